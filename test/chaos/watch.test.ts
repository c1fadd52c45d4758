/**
 * Chaos during the watch: the informer is synced and watching while the writer changes objects and
 * the network or the server fails. Every scenario ends with the invariants of harness.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withWorld, until, sleep, injectWatch, liveWatch, type World, printTotalsAfterAll } from './harness.ts';

printTotalsAfterAll('watch');

interface Scenario {
  name: string;
  /** Injects the fault (the writer is running). */
  fault: (w: World) => Promise<void>;
  /** Whether the scenario must recover without relisting. */
  resumesWithoutRelist?: boolean;
}

const newWatch = async (w: World, before: number): Promise<void> => until('a new watch', () => w.watches.length + w.relists.length > before);
const attempts = (w: World): number => w.watches.length + w.relists.length;

const scenarios: Scenario[] = [
  {
    name: 'the proxy resets every connection',
    resumesWithoutRelist: true,
    fault: async (w) => {
      const before = attempts(w);
      w.proxy.resetAll();
      await newWatch(w, before);
    },
  },
  {
    name: 'the watch connection goes half-open (stall) and is abandoned after the idle timeout',
    resumesWithoutRelist: true,
    fault: async (w) => {
      const before = attempts(w);
      await injectWatch(w, { type: 'stall' });
      await newWatch(w, before);
    },
  },
  {
    name: 'a network partition: every connection, the watch and idle pooled ones, goes half-open',
    fault: async (w) => {
      const before = attempts(w);
      w.proxy.injectAll({ type: 'stall' });
      await newWatch(w, before);
    },
  },
  ...[1, 57, 300, 1999].map(
    (afterBytes): Scenario => ({
      name: `the watch stream is cut after ${afterBytes} more bytes`,
      resumesWithoutRelist: true,
      fault: async (w) => {
        const before = attempts(w);
        await injectWatch(w, { type: 'cut', afterBytes });
        await newWatch(w, before);
      },
    }),
  ),
  {
    name: 'every byte is delayed by 150 ms for a while',
    resumesWithoutRelist: true,
    fault: async (w) => {
      w.proxy.injectAll({ type: 'delay', ms: 150 });
      w.proxy.injectNew({ type: 'delay', ms: 150 });
      await sleep(400);
    },
  },
  {
    name: 'the proxy refuses connections and resets the open ones, then comes back',
    resumesWithoutRelist: true,
    fault: async (w) => {
      await w.proxy.pause();
      w.proxy.resetAll();
      await sleep(200);
      const before = attempts(w);
      await w.proxy.resume();
      await newWatch(w, before);
    },
  },
  {
    name: 'the server closes watches',
    resumesWithoutRelist: true,
    fault: async (w) => {
      const before = attempts(w);
      w.server.faults.closeWatches('configmaps');
      await newWatch(w, before);
    },
  },
  {
    name: 'the server cuts the watch in the middle of an event',
    resumesWithoutRelist: true,
    fault: async (w) => {
      const before = attempts(w);
      w.server.faults.cutNextWatchEvent('configmaps');
      await newWatch(w, before);
    },
  },
  {
    name: 'the server writes a malformed watch line',
    fault: async (w) => {
      const before = attempts(w);
      w.server.faults.malformedNextWatchLine('configmaps');
      await newWatch(w, before);
    },
  },
  {
    name: '429 with Retry-After on the next watches after the watch closes',
    resumesWithoutRelist: true,
    fault: async (w) => {
      const before = attempts(w);
      w.server.faults.failNext({ verb: 'watch', resource: 'configmaps', status: 429, retryAfterSeconds: 0, count: 3 });
      w.server.faults.closeWatches('configmaps');
      await until('the 429s to be retried', () => attempts(w) >= before + 4);
    },
  },
  ...[500, 503].map(
    (status): Scenario => ({
      name: `${status} on the next watches after the watch closes`,
      fault: async (w) => {
        const before = attempts(w);
        w.server.faults.failNext({ verb: 'watch', resource: 'configmaps', status, count: 2 });
        w.server.faults.closeWatches('configmaps');
        await until('the failures to be retried', () => attempts(w) >= before + 2);
      },
    }),
  ),
  {
    name: '410: the watch stalls, history is compacted, the connection resets',
    fault: async (w) => {
      const before = w.relists.length;
      await injectWatch(w, { type: 'stall' });
      await sleep(100);
      w.server.faults.compact();
      w.proxy.resetAll();
      await until('a relist', () => w.relists.length > before);
    },
  },
  {
    name: 'the server restarts',
    fault: async (w) => {
      await w.writer.stop();
      const before = attempts(w);
      await w.server.faults.restart();
      w.writer.start();
      await newWatch(w, before);
    },
  },
];

for (const [i, s] of scenarios.entries()) {
  for (const useWatchList of [true, false]) {
    test(`chaos during watch (${useWatchList ? 'watch-list' : 'LIST'}): ${s.name}`, async () => {
      await withWorld({ useWatchList, seed: 100 + i }, async (w) => {
        w.writer.start();
        await liveWatch(w);
        const relists = w.relists.length;
        await s.fault(w);
        await sleep(100);
        if (s.resumesWithoutRelist === true) assert.equal(w.relists.length, relists, 'resumed from the last resourceVersion without relisting');
      });
    });
  }
}
