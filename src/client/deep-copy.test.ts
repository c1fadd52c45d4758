import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap } from '../api/core/v1.ts';
import { deepFreeze } from '../tools/cache/deep-freeze.ts';
import { deepCopy, type DeepReadonly } from './deep-copy.ts';

test('deepCopy gives a mutable copy of a frozen cached object; DeepReadonly makes tsc reject writes but still passes as the object type', () => {
  const cached: DeepReadonly<ConfigMap> = deepFreeze<ConfigMap>({ metadata: { name: 'a', labels: { app: 'x' } }, data: { k: 'v' } });
  assert.throws(() => {
    // @ts-expect-error -- a cached object is readonly at every depth
    cached.metadata!.labels = {};
  }, /Cannot assign to read only property 'labels'/);
  const copy = deepCopy(cached);
  copy.metadata!.labels!['app'] = 'y';
  copy.data = { k: 'w' };
  assert.deepEqual(copy, { metadata: { name: 'a', labels: { app: 'y' } }, data: { k: 'w' } });
  assert.equal(cached.metadata!.labels!['app'], 'x');
  const asObject: ConfigMap = cached;
  assert.equal(asObject.metadata?.name, 'a');
});

test('deepCopy of a plain typed object keeps its type usable where the object type is expected', () => {
  const cm: ConfigMap = { metadata: { name: 'b', finalizers: ['x'] } };
  const copy = deepCopy(cm);
  copy.metadata!.finalizers!.push('y');
  const back: ConfigMap = copy;
  assert.deepEqual(back.metadata?.finalizers, ['x', 'y']);
  assert.deepEqual(cm.metadata?.finalizers, ['x']);
});
