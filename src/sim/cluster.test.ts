import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isAlreadyExists, isConflict, isNotFound } from '../apimachinery/errors.ts';
import { kinds } from '../client/kinds.ts';
import { FakeClock } from '../util/clock/clock.ts';
import { SimCluster } from './cluster.ts';
import { Scheduler } from './scheduler.ts';

function cluster(): { c: SimCluster; s: Scheduler } {
  const s = new Scheduler(new FakeClock(), 1, undefined, 0);
  return { c: new SimCluster(s, 10), s };
}
const cms = kinds.coreV1.configMaps;
const rss = kinds.appsV1.replicaSets;

test('create stamps uid, generation and resourceVersion, names generateName objects, refuses duplicates', () => {
  const { c } = cluster();
  const a = c.create(cms, { metadata: { generateName: 'a-', namespace: 'ns' } });
  assert.equal(a.metadata?.name, 'a-00001');
  assert.equal(a.metadata?.resourceVersion, '1');
  assert.equal(a.metadata?.generation, 1);
  assert.match(a.metadata?.uid ?? '', /^uid-/);
  assert.throws(() => c.create(cms, { metadata: { name: 'a-00001', namespace: 'ns' } }), isAlreadyExists);
});

test('an update with a stale resourceVersion is a 409; spec changes bump generation, status ones do not', () => {
  const { c } = cluster();
  const rs = c.create(rss, { metadata: { name: 'r', namespace: 'ns' }, spec: { replicas: 1, selector: {} } } as never);
  const scaled = c.update(rss, { ...rs, spec: { replicas: 2, selector: {} } } as never);
  assert.equal(scaled.metadata?.generation, 2);
  assert.throws(() => c.update(rss, rs), isConflict);
  const status = c.update(rss, { ...scaled, status: { replicas: 2 } } as never, 'status');
  assert.equal(status.metadata?.generation, 2);
  // The main resource ignores status; the status subresource ignores spec.
  const ignored = c.update(rss, { ...status, status: { replicas: 9 } } as never) as { status?: { replicas?: number } };
  assert.equal(ignored.status?.replicas, 2);
});

test('deleting an object with finalizers marks it; removing the last finalizer removes it; the garbage collector takes its dependents', () => {
  const { c, s } = cluster();
  const owner = c.create(cms, { metadata: { name: 'owner', namespace: 'ns', finalizers: ['x/y'] } });
  c.create(cms, { metadata: { name: 'child', namespace: 'ns', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid! }] } });
  c.delete(cms, 'ns/owner');
  assert.ok(c.get(cms, 'ns/owner').metadata?.deletionTimestamp !== undefined);
  c.patch(cms, 'ns/owner', { metadata: { finalizers: null } });
  assert.throws(() => c.get(cms, 'ns/owner'), isNotFound);
  while (s.runOne());
  assert.throws(() => c.get(cms, 'ns/child'), isNotFound);
});
