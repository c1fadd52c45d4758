/**
 * Chaos during a relist: the informer is synced, the writer is running, a relist is forced (the
 * watch goes half-open, history is compacted, the connection resets → 410 → relist), and the relist
 * itself meets a fault.
 */
import { test } from 'node:test';
import { withWorld, until, sleep, forceRelist, liveWatch, type World, printTotalsAfterAll } from './harness.ts';

printTotalsAfterAll('relist');

interface Scenario {
  name: string;
  /** Arms the fault for the coming relist. */
  arm: (w: World) => Promise<void> | void;
  /** While the relist is under way. */
  during?: (w: World) => Promise<void>;
  only?: 'LIST' | 'watch-list';
}

const verb = (w: World): 'list' | 'watch' => (w.useWatchList ? 'watch' : 'list');

const scenarios: Scenario[] = [
  { name: 'the proxy resets the relist request twice', arm: (w) => w.proxy.onRequest({ match: w.relistRequest, fault: { type: 'reset' }, count: 2 }) },
  { name: 'the relist request goes half-open and is abandoned', arm: (w) => w.proxy.onRequest({ match: w.relistRequest, fault: { type: 'stall' } }) },
  ...[0, 120, 700].map(
    (afterBytes): Scenario => ({
      name: `the relist response is cut after ${afterBytes} bytes`,
      arm: (w) => w.proxy.onRequest({ match: w.relistRequest, fault: { type: 'cut', afterBytes } }),
    }),
  ),
  { name: 'the relist is delayed by 200 ms', arm: (w) => w.proxy.onRequest({ match: w.relistRequest, fault: { type: 'delay', ms: 200 } }) },
  { name: '429 with Retry-After on the next requests', arm: (w) => w.server.faults.failNext({ verb: verb(w), resource: 'configmaps', status: 429, retryAfterSeconds: 0, count: 3 }) },
  { name: '500 on the next requests', arm: (w) => w.server.faults.failNext({ verb: verb(w), resource: 'configmaps', status: 500, count: 2 }) },
  { name: '503 on the next requests', arm: (w) => w.server.faults.failNext({ verb: verb(w), resource: 'configmaps', status: 503, count: 2 }) },
  {
    name: 'the server restarts during the relist',
    arm: (w) => w.server.faults.delay({ verb: verb(w), resource: 'configmaps', ms: 300, count: 3 }),
    during: async (w) => {
      await w.writer.stop();
      await w.server.faults.restart();
      w.writer.start();
    },
  },
  {
    name: 'the watch closes right after the relist, twice',
    arm: () => {},
    during: async (w) => {
      for (let i = 0; i < 2; i++) {
        await liveWatch(w);
        const before = w.watches.length + w.relists.length;
        w.server.faults.closeWatches('configmaps');
        await until('a new watch', () => w.watches.length + w.relists.length > before);
      }
    },
  },
];

for (const [i, s] of scenarios.entries()) {
  for (const useWatchList of [true, false]) {
    if (s.only !== undefined && (s.only === 'LIST') === useWatchList) continue;
    test(`chaos during a relist (${useWatchList ? 'watch-list' : 'LIST'}): ${s.name}`, async () => {
      await withWorld({ useWatchList, seed: 300 + i }, async (w) => {
        w.writer.start();
        await sleep(30);
        await s.arm(w);
        await forceRelist(w);
        await s.during?.(w);
        await sleep(50);
      });
    });
  }
}
