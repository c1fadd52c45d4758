import assert from 'node:assert/strict';
import { test } from 'node:test';
import { kinds } from '../client/kinds.ts';
import { FakeClock } from '../util/clock/clock.ts';
import { pathOf, SimCluster } from './cluster.ts';
import { drainMicrotasks, Scheduler } from './scheduler.ts';

function cluster(seed = 1): { c: SimCluster; s: Scheduler } {
  const s = new Scheduler(new FakeClock(), seed, undefined, 0);
  return { c: new SimCluster(s, 10, seed), s };
}
const cms = kinds.coreV1.configMaps;
const json = { 'content-type': 'application/json' };

test('requests are served by the API server handler: generated names and uids come from the seed, duplicates are 409', async () => {
  const names: string[] = [];
  for (const seed of [7, 7, 8]) {
    const { c } = cluster(seed);
    const r = await c.request({ method: 'POST', path: pathOf(cms, 'default'), headers: json, body: JSON.stringify({ metadata: { generateName: 'a-' } }) });
    assert.equal(r.status, 201);
    const created = JSON.parse(r.body) as { metadata: { name: string; uid: string } };
    assert.match(created.metadata.uid, /^00000000-0000-4000-8000-0{11}1$/);
    names.push(created.metadata.name);
    const again = await c.request({ method: 'POST', path: pathOf(cms, 'default'), headers: json, body: JSON.stringify({ metadata: { name: created.metadata.name } }) });
    assert.equal(again.status, 409);
    assert.match(again.body, /"reason":"AlreadyExists"/);
  }
  assert.equal(names[0], names[1]);
  assert.notEqual(names[0], names[2]);
});

test('a custom kind is served through a CRD the cluster writes; the garbage collector deletes dependents of a deleted owner', async () => {
  const { c, s } = cluster();
  const widgets = { group: 'example.dev', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true, subresources: ['status'] } as const;
  c.register(widgets);
  c.register(cms);
  const owner = JSON.parse((await c.request({ method: 'POST', path: pathOf(widgets, 'default'), headers: json, body: JSON.stringify({ apiVersion: 'example.dev/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 } }) })).body) as { metadata: { uid: string } };
  const ownerReferences = [{ apiVersion: 'example.dev/v1', kind: 'Widget', name: 'w', uid: owner.metadata.uid }];
  assert.equal((await c.request({ method: 'POST', path: pathOf(cms, 'default'), headers: json, body: JSON.stringify({ metadata: { name: 'child', ownerReferences } }) })).status, 201);
  assert.equal((await c.request({ method: 'DELETE', path: pathOf(widgets, 'default', 'w') })).status, 200);
  while (s.runOne()) await drainMicrotasks();
  assert.equal(c.peek(cms, 'default/child'), undefined);
  assert.ok(s.trace.some((l) => l.includes('GC delete configmaps default/child')), s.trace.join('\n'));
});

test('a cluster restored from the starting point the first one built is the same cluster', async () => {
  const gadgets = { group: 'example.dev', version: 'v1', resource: 'gadgets', kind: 'Gadget', namespaced: true, subresources: [] as string[] };
  const made: string[] = [];
  for (let i = 0; i < 2; i++) {
    const s = new Scheduler(new FakeClock(), 3, undefined, 0);
    const c = new SimCluster(s, 10, 3, [cms, gadgets]);
    const crd = c.storage.get('customresourcedefinitions.apiextensions.k8s.io', 'gadgets.example.dev');
    const r = await c.request({ method: 'POST', path: pathOf(gadgets, 'default'), headers: json, body: JSON.stringify({ apiVersion: 'example.dev/v1', kind: 'Gadget', metadata: { generateName: 'g-' } }) });
    assert.equal(r.status, 201, r.body);
    made.push(JSON.stringify([c.storage.revision, crd?.obj.metadata, r.body]));
  }
  assert.equal(made[1], made[0]);
});
