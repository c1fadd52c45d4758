/**
 * Chaos during the initial list: the fault is armed before the informer starts, so it hits the
 * first LIST (or watch-list); the writer keeps writing while the informer syncs.
 */
import { test } from 'node:test';
import { withWorld, until, sleep, type World, printTotalsAfterAll } from './harness.ts';

printTotalsAfterAll('initial');

interface Scenario {
  name: string;
  /** Arms the fault before the informer starts. */
  arm: (w: World) => Promise<void> | void;
  /** After the informer started (e.g. to lift the fault). */
  after?: (w: World) => Promise<void>;
  /** Only in one mode. */
  only?: 'LIST' | 'watch-list';
}

const verb = (w: World): 'list' | 'watch' => (w.useWatchList ? 'watch' : 'list');

const scenarios: Scenario[] = [
  { name: 'the proxy resets the first two initial requests', arm: (w) => w.proxy.onRequest({ match: w.relistRequest, fault: { type: 'reset' }, count: 2 }) },
  { name: 'the first initial request goes half-open and is abandoned', arm: (w) => w.proxy.onRequest({ match: w.relistRequest, fault: { type: 'stall' } }) },
  ...[0, 40, 250, 900].map(
    (afterBytes): Scenario => ({
      name: `the first initial response is cut after ${afterBytes} bytes`,
      arm: (w) => w.proxy.onRequest({ match: w.relistRequest, fault: { type: 'cut', afterBytes } }),
    }),
  ),
  { name: 'every connection is delayed by 100 ms', arm: (w) => w.proxy.injectNew({ type: 'delay', ms: 100 }) },
  {
    name: 'the proxy refuses connections for 300 ms',
    arm: async (w) => w.proxy.pause(),
    after: async (w) => {
      await sleep(300);
      await w.proxy.resume();
    },
  },
  { name: '429 with Retry-After on the first three initial requests', arm: (w) => w.server.faults.failNext({ verb: verb(w), resource: 'configmaps', status: 429, retryAfterSeconds: 0, count: 3 }) },
  { name: '500 on the first two initial requests', arm: (w) => w.server.faults.failNext({ verb: verb(w), resource: 'configmaps', status: 500, count: 2 }) },
  { name: '503 with Retry-After on the first two initial requests', arm: (w) => w.server.faults.failNext({ verb: verb(w), resource: 'configmaps', status: 503, retryAfterSeconds: 0, count: 2 }) },
  { name: '410 Expired on the first initial request', arm: (w) => w.server.faults.failNext({ verb: verb(w), resource: 'configmaps', status: 410 }) },
  {
    name: 'the server restarts while the first initial request is held',
    arm: (w) => w.server.faults.delay({ verb: verb(w), resource: 'configmaps', ms: 300 }),
    after: async (w) => {
      await until('the initial request', () => w.relists.length > 0);
      await w.writer.stop();
      await w.server.faults.restart();
      w.writer.start();
    },
  },
];

for (const [i, s] of scenarios.entries()) {
  for (const useWatchList of [true, false]) {
    if (s.only !== undefined && (s.only === 'LIST') === useWatchList) continue;
    test(`chaos during the initial list (${useWatchList ? 'watch-list' : 'LIST'}): ${s.name}`, async () => {
      await withWorld({ useWatchList, seed: 200 + i, start: false }, async (w) => {
        await s.arm(w);
        w.writer.start();
        await w.start();
        await s.after?.(w);
        await until('the informer to sync', () => w.informer.hasSynced());
        await sleep(50);
      });
    });
  }
}
