import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Pod } from '../api/core/v1.ts';
import { newNotFound, StatusError } from '../apimachinery/errors.ts';
import { UIDTrackingControllerExpectations } from '../controller/expectations.ts';
import type { Clientset } from '../kubernetes/clientset.ts';
import type { EventRecorder } from '../tools/events/record/event.ts';
import { FakeClock } from '../util/clock/clock.ts';
import { createPodsWithExpectations, deletePodsWithExpectations, RealPodControl } from './pod-control.ts';

const owner = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { namespace: 'ns', name: 'rs', uid: 'u1' } };
const pod = (name: string): Pod => ({ metadata: { namespace: 'ns', name } });
const forbidden = (causes: { reason: string }[] = []): StatusError =>
  new StatusError({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 403, reason: 'Forbidden', message: 'refused', details: { causes } });

/** A clientset whose pods client answers from `create` / `remove`, and a recorder keeping `reason message` lines. */
function setup(create: (n: number) => Promise<Pod>, remove: (name: string) => Promise<void>): { control: RealPodControl; events: string[] } {
  let n = 0;
  const pods = { create: () => create(n++), delete: (name: string) => remove(name) };
  const client = { coreV1: () => ({ pods: () => pods }) } as unknown as Clientset;
  const events: string[] = [];
  const record = (_o: unknown, type: string, reason: string, message: string): void => void events.push(`${type} ${reason} ${message}`);
  const recorder: EventRecorder = { event: record, eventf: record, annotatedEventf: (o, _a, t, r, m) => record(o, t, r, m) };
  return { control: new RealPodControl(client, recorder), events };
}

test('createPodsWithExpectations: slow-start batches stop at the first failure; events per call; unissued creates are observed', async () => {
  const { control, events } = setup(
    async (n) => {
      if (n >= 2) throw forbidden();
      return pod(`p${n}`);
    },
    async () => undefined,
  );
  const expectations = new UIDTrackingControllerExpectations({ clock: new FakeClock(0) });
  await assert.rejects(createPodsWithExpectations({ podControl: control, expectations, key: 'ns/rs', count: 5, namespace: 'ns', object: owner, newPod: () => pod('') }), /refused/);
  // Batches of 1 and 2 went out (3 calls, the third failed); only the two creates that succeeded stay expected.
  assert.deepEqual(events, ['Normal SuccessfulCreate Created pod: p0', 'Normal SuccessfulCreate Created pod: p1', 'Warning FailedCreate Error creating: refused']);
  assert.equal(expectations.getExpectations('ns/rs')?.add, 2);
});

test('createPodsWithExpectations: a create refused in a terminating namespace is recorded but not an error', async () => {
  const { control, events } = setup(
    () => Promise.reject(forbidden([{ reason: 'NamespaceTerminating' }])),
    async () => undefined,
  );
  const expectations = new UIDTrackingControllerExpectations({ clock: new FakeClock(0) });
  await createPodsWithExpectations({ podControl: control, expectations, key: 'ns/rs', count: 1, namespace: 'ns', object: owner, newPod: () => pod('') });
  assert.deepEqual(events, ['Warning FailedCreate Error creating: refused']);
  // Counted as issued, as upstream's slowStartBatch counts it: the expectation waits for its timeout.
  assert.equal(expectations.getExpectations('ns/rs')?.add, 1);
});

test('deletePodsWithExpectations: NotFound counts as deleted without an event; other failures are observed, recorded and thrown', async () => {
  const { control, events } = setup(
    async () => pod('x'),
    async (name) => {
      if (name === 'gone') throw newNotFound('', 'pods', name);
      if (name === 'stuck') throw forbidden();
    },
  );
  const expectations = new UIDTrackingControllerExpectations({ clock: new FakeClock(0) });
  await assert.rejects(
    deletePodsWithExpectations({ podControl: control, expectations, key: 'ns/rs', pods: [pod('ok'), pod('gone'), pod('stuck')], namespace: 'ns', object: owner }),
    /refused/,
  );
  assert.deepEqual(events.sort(), ['Normal SuccessfulDelete Deleted pod: ok', 'Warning FailedDelete Error deleting: refused']);
  // Still expected: the deletions of ok and gone, which the informer will see.
  assert.deepEqual([...(expectations.getUIDs('ns/rs') ?? [])].sort(), ['ns/gone', 'ns/ok']);
});
