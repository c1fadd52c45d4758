/**
 * events.k8s.io/v1 and core/v1 Events are one stored object served through both groups, on both
 * backends (kube-apiserver stores events.k8s.io events with core events and converts between them:
 * pkg/apis/events/v1/conversion.go). An Event recorded through events.k8s.io is what `kubectl describe`
 * lists through core/v1 (field selector on involvedObject), and the other way round.
 */
import assert from 'node:assert/strict';
import { statusOf } from '../src/apimachinery/errors.ts';
import { DynamicClient } from '../src/dynamic/index.ts';
import { RestClient } from '../src/rest/index.ts';
import { e2eTest } from './support/backend.ts';

type Obj = Record<string, unknown>;

e2eTest('an Event written through events.k8s.io/v1 is a core/v1 Event and the other way round', async (env) => {
  const rest = new RestClient(env.restConfig());
  env.defer(() => rest.close());
  const dyn = new DynamicClient(rest);
  const ns = env.namespace;
  const core = dyn.resource({ group: '', version: 'v1', resource: 'events' }).namespace(ns);
  const events = dyn.resource({ group: 'events.k8s.io', version: 'v1', resource: 'events' }).namespace(ns);
  const regarding = { kind: 'Pod', namespace: ns, name: 'web-0', uid: '00000000-0000-0000-0000-000000000001', apiVersion: 'v1' };
  const created = await events.create({
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: 'e1' },
    eventTime: '2026-01-02T03:04:05.000000Z',
    reportingController: 'example.com/ctl',
    reportingInstance: 'ctl-1',
    action: 'Started',
    reason: 'Started',
    type: 'Normal',
    note: 'container started',
    regarding,
  });
  assert.equal(created.apiVersion, 'events.k8s.io/v1');
  const asCore = await core.get('e1');
  const pick = (o: Obj, fields: string[]): Obj => Object.fromEntries(fields.map((f) => [f, o[f]]));
  assert.deepEqual(pick(asCore, ['apiVersion', 'kind', 'involvedObject', 'message', 'reason', 'type', 'action', 'reportingComponent', 'reportingInstance', 'eventTime', 'count', 'firstTimestamp', 'lastTimestamp']), {
    apiVersion: 'v1',
    kind: 'Event',
    involvedObject: regarding,
    message: 'container started',
    reason: 'Started',
    type: 'Normal',
    action: 'Started',
    reportingComponent: 'example.com/ctl',
    reportingInstance: 'ctl-1',
    eventTime: '2026-01-02T03:04:05.000000Z',
    count: undefined,
    firstTimestamp: null,
    lastTimestamp: null,
  });
  assert.equal(asCore.metadata?.uid, created.metadata?.uid);
  assert.equal(asCore.metadata?.resourceVersion, created.metadata?.resourceVersion);
  // kubectl describe's query finds it.
  const described = await core.list({ fieldSelector: `involvedObject.name=web-0,involvedObject.namespace=${ns},involvedObject.kind=Pod,involvedObject.uid=${regarding.uid}` });
  assert.deepEqual(described.items.map((i) => i.metadata?.name), ['e1']);

  // A core Event (as client-go's legacy recorder writes it) read through events.k8s.io.
  await core.create({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'e2' },
    involvedObject: regarding,
    reason: 'Pulled',
    message: 'image pulled',
    source: { component: 'kubelet', host: 'node-1' },
    firstTimestamp: '2026-01-02T03:04:05Z',
    lastTimestamp: '2026-01-02T03:04:06Z',
    count: 2,
    type: 'Normal',
  });
  const asEvents = await events.get('e2');
  assert.deepEqual(pick(asEvents, ['apiVersion', 'regarding', 'note', 'reason', 'deprecatedSource', 'deprecatedFirstTimestamp', 'deprecatedLastTimestamp', 'deprecatedCount', 'type']), {
    apiVersion: 'events.k8s.io/v1',
    regarding,
    note: 'image pulled',
    reason: 'Pulled',
    deprecatedSource: { component: 'kubelet', host: 'node-1' },
    deprecatedFirstTimestamp: '2026-01-02T03:04:05Z',
    deprecatedLastTimestamp: '2026-01-02T03:04:06Z',
    deprecatedCount: 2,
    type: 'Normal',
  });
  // Both lists hold both; a change through one group is seen through the other; so is the deletion.
  assert.deepEqual((await events.list()).items.map((i) => i.metadata?.name).sort(), ['e1', 'e2']);
  await core.patch('e2', 'application/merge-patch+json', { message: 'pulled again', count: 3 });
  const updated = await events.get('e2');
  assert.deepEqual([updated['note'], updated['deprecatedCount']], ['pulled again', 3]);
  // Through events.k8s.io/v1 only the series may change, and a create must be a new-style Event (the field
  // paths are the core type's, as v1.24 reports them).
  const refusal = async (p: Promise<unknown>): Promise<string | undefined> => {
    try {
      await p;
    } catch (err) {
      return statusOf(err)?.message;
    }
    assert.fail('expected 422');
  };
  assert.equal(
    await refusal(events.patch('e2', 'application/merge-patch+json', { note: 'pulled thrice', deprecatedCount: 4 })),
    'Event "e2" is invalid: [message: Invalid value: "pulled thrice": field is immutable, count: Invalid value: 4: field is immutable]',
  );
  assert.equal(
    await refusal(events.create({ apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e3' }, regarding, reason: 'X', deprecatedCount: 1 })),
    'Event "e3" is invalid: [eventTime: Required value, type: Invalid value: "": has invalid value: , count: Invalid value: "": needs to be unset]',
  );
  assert.equal(
    await refusal(events.create({ apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e4' }, eventTime: '2026-01-02T03:04:05.000000Z', type: 'Normal', regarding })),
    'Event "e4" is invalid: [reportingController: Required value, reportingController: Invalid value: "": name part must be non-empty, reportingController: Invalid value: "": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\'), reportingInstance: Required value, action: Required value, reason: Required value]',
  );
  await core.delete('e1');
  assert.deepEqual((await events.list()).items.map((i) => i.metadata?.name), ['e2']);
});

e2eTest('events.k8s.io/v1 selects by its own field names (regarding.*, reportingController) and refuses core/v1 names, as v1.24 does', async (env) => {
  const rest = new RestClient(env.restConfig());
  env.defer(() => rest.close());
  const dyn = new DynamicClient(rest);
  const ns = env.namespace;
  const core = dyn.resource({ group: '', version: 'v1', resource: 'events' }).namespace(ns);
  const events = dyn.resource({ group: 'events.k8s.io', version: 'v1', resource: 'events' }).namespace(ns);
  const regarding = { kind: 'Pod', namespace: ns, name: 'web-0', uid: '00000000-0000-0000-0000-000000000002', apiVersion: 'v1' };
  const event = { apiVersion: 'events.k8s.io/v1', kind: 'Event', eventTime: '2026-01-02T03:04:05.000000Z', reportingInstance: 'ctl-1', action: 'Started', reason: 'Started', type: 'Normal' };
  await events.create({ ...event, metadata: { name: 'a' }, reportingController: 'example.com/a', regarding });
  await events.create({ ...event, metadata: { name: 'b' }, reportingController: 'example.com/b', regarding: { ...regarding, name: 'web-1' }, type: 'Warning' });
  const names = async (fieldSelector: string): Promise<string[]> => (await events.list({ fieldSelector })).items.map((i) => String(i.metadata?.name)).sort();
  assert.deepEqual(await names('regarding.name=web-0'), ['a']);
  assert.deepEqual(await names(`regarding.kind=Pod,regarding.namespace=${ns},regarding.uid=${regarding.uid}`), ['a', 'b']);
  assert.deepEqual(await names('reportingController=example.com/b'), ['b']);
  assert.deepEqual(await names('type=Warning,reason=Started'), ['b']);
  assert.deepEqual(await names('metadata.name=a'), ['a']);
  // core/v1 keeps its names; the other group's are refused with fields.Selector's conversion error.
  assert.deepEqual((await core.list({ fieldSelector: 'involvedObject.name=web-1,reportingComponent=example.com/b' })).items.map((i) => i.metadata?.name), ['b']);
  const refused = async (list: Promise<unknown>): Promise<[number | undefined, string | undefined]> => {
    try {
      await list;
    } catch (err) {
      return [statusOf(err)?.code, statusOf(err)?.message];
    }
    assert.fail('expected 400');
  };
  for (const field of ['involvedObject.name', 'reportingComponent', 'source', 'note', 'deprecatedSource.component']) {
    assert.deepEqual(await refused(events.list({ fieldSelector: `${field}=x` })), [400, `field label not supported: ${field}`]);
  }
  for (const field of ['regarding.name', 'reportingController', 'note']) {
    assert.deepEqual(await refused(core.list({ fieldSelector: `${field}=x` })), [400, `field label not supported: ${field}`]);
  }
});
