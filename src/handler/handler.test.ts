import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap } from '../api/core/v1.ts';
import type { Request } from '../reconcile/reconcile.ts';
import { enqueueRequestsFromMapFunc, type RequestQueue } from './handler.ts';

function recordingQueue(): { queue: RequestQueue; added: string[] } {
  const added: string[] = [];
  return { added, queue: { add: (r: Request) => added.push(`${r.namespace}/${r.name}`) } };
}

const cm = (name: string): ConfigMap => ({ metadata: { namespace: 'ns', name } });

test('enqueueRequestsFromMapFunc: a synchronous map enqueues at once, an async one once it resolves, deduplicated across old and new objects', async () => {
  const sync = recordingQueue();
  enqueueRequestsFromMapFunc<ConfigMap>((o) => [{ namespace: 'ns', name: `for-${o.metadata!.name}` }]).update!({ objectOld: cm('a'), objectNew: cm('a') }, sync.queue);
  assert.deepEqual(sync.added, ['ns/for-a']);

  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const async = recordingQueue();
  const handler = enqueueRequestsFromMapFunc<ConfigMap>(async (o) => {
    await gate; // e.g. a cache read
    return [{ namespace: 'ns', name: 'shared' }, { namespace: 'ns', name: `for-${o.metadata!.name}` }];
  });
  handler.update!({ objectOld: cm('a'), objectNew: cm('b') }, async.queue);
  assert.deepEqual(async.added, []);
  release();
  await gate;
  await new Promise<void>((r) => setImmediate(r));
  assert.deepEqual(async.added, ['ns/shared', 'ns/for-a', 'ns/for-b']);
});

test('enqueueRequestsFromMapFunc reports a rejected map function and enqueues nothing', async () => {
  const errors: unknown[] = [];
  const { queue, added } = recordingQueue();
  enqueueRequestsFromMapFunc<ConfigMap>(() => Promise.reject(new Error('cache not started')), { onError: (e) => errors.push(e) }).create!({ object: cm('a'), isInInitialList: false }, queue);
  await new Promise<void>((r) => setImmediate(r));
  assert.deepEqual(added, []);
  assert.equal((errors[0] as Error).message, 'cache not started');
});
