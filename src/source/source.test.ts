import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../apiserver/index.ts';
import { InformerCache } from '../cache/cache.ts';
import { Client } from '../client/client.ts';
import { kinds } from '../client/kinds.ts';
import { enqueueRequestForObject } from '../handler/handler.ts';
import { RestClient } from '../rest/client.ts';
import { eventually } from '../testing/eventually.ts';
import { LowPriority, PriorityQueue, type AddOpts } from '../util/workqueue/priority-queue.ts';
import { kindSource } from './source.ts';

test('kindSource queues the initial list at low priority, so a real change comes out before the backlog', async (t) => {
  const server = await startApiServer();
  const rest = new RestClient({ host: server.url, qps: -1 });
  const cache = new InformerCache({ rest });
  const stop = new AbortController();
  t.after(async () => {
    stop.abort();
    await rest.close();
    await server.stop();
  });
  const client = new Client({ rest });
  for (let i = 0; i < 20; i++) await client.create(kinds.coreV1.configMaps, { metadata: { namespace: 'default', name: `cm-${i}` } });
  const running = cache.start(stop.signal);
  t.after(() => running);
  await cache.waitForCacheSync(stop.signal);

  const queue = new PriorityQueue<string>();
  const adds: string[] = [];
  const add = queue.addWithOpts.bind(queue);
  queue.addWithOpts = (opts: AddOpts, ...items: string[]) => {
    adds.push(`${items.join()}@${opts.priority ?? 0}`);
    add(opts, ...items);
  };
  const source = kindSource(cache, kinds.coreV1.configMaps, enqueueRequestForObject());
  source.start(queue, stop.signal);
  await eventually(() => source.hasSynced(), { timeoutMs: 5_000 });
  assert.ok(adds.includes(`default/cm-0@${LowPriority}`));
  await client.patch(kinds.coreV1.configMaps, { namespace: 'default', name: 'cm-17' }, 'application/merge-patch+json', { data: { changed: 'yes' } });
  await eventually(() => adds.includes('default/cm-17@0'), { timeoutMs: 5_000 });
  const first = await queue.getWithPriority();
  assert.deepEqual([first.item, first.priority], ['default/cm-17', 0]);
  const second = await queue.getWithPriority();
  assert.equal(second.priority, LowPriority);
});
