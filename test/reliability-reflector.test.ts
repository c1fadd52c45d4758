/**
 * Reliability of the reflector's connection handling on a fake clock: every place where the
 * reflector waits on the network must give up within a bounded time, so a half-open connection
 * cannot freeze an informer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap } from '../src/api/core/v1.ts';
import type { ListOptions } from '../src/apimachinery/options.ts';
import type { Watch, WatchEvent } from '../src/apimachinery/watch.ts';
import { FakeClock } from '../src/util/clock/clock.ts';
import { Cache, ListWatch, Reflector, deletionHandlingMetaNamespaceKeyFunc } from '../src/tools/cache/index.ts';

/** A watch that never yields and ends only when aborted: a response body on a half-open connection. */
function silentWatch(signal: AbortSignal | undefined): Watch<ConfigMap> {
  return {
    [Symbol.asyncIterator]: (): AsyncIterator<WatchEvent<ConfigMap>> => ({
      next: () =>
        new Promise((_resolve, reject) => {
          if (signal?.aborted) reject(signal.reason as Error);
          signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
        }),
      return: () => Promise.resolve({ done: true, value: undefined }),
    }),
  };
}

/** A watch call whose response headers never arrive: it settles only when aborted. */
function hangingWatchCall(signal: AbortSignal | undefined): Promise<Watch<ConfigMap>> {
  return new Promise((_resolve, reject) => {
    if (signal?.aborted) reject(signal.reason as Error);
    signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
  });
}

async function run(watchImpl: (o: ListOptions) => Promise<Watch<ConfigMap>>): Promise<{ watches: number; stop: () => Promise<void>; clock: FakeClock }> {
  const clock = new FakeClock();
  let watches = 0;
  const lw = new ListWatch<ConfigMap>({
    list: () => Promise.resolve({ apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '7' }, items: [] }),
    watch: (o) => {
      watches++;
      return watchImpl(o);
    },
  });
  const store = new Cache<ConfigMap>(deletionHandlingMetaNamespaceKeyFunc);
  const reflector = new Reflector<ConfigMap>(lw, store, { clock, useWatchList: false, watchIdleTimeoutMs: 1_000, backoffManager: { nextDelay: () => 0 }, watchErrorHandler: () => {} });
  const ac = new AbortController();
  const running = reflector.run({ signal: ac.signal });
  const r = {
    watches: 0,
    clock,
    stop: async (): Promise<void> => {
      ac.abort();
      await running;
    },
  };
  Object.defineProperty(r, 'watches', { get: () => watches });
  return r;
}

async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

test('a watch that goes silent (half-open after the headers) is dropped after watchIdleTimeoutMs and re-established', async () => {
  const r = await run((o) => Promise.resolve(silentWatch(o.signal)));
  try {
    await settle();
    assert.equal(r.watches, 1);
    await r.clock.step(999);
    await settle();
    assert.equal(r.watches, 1);
    await r.clock.step(1);
    await settle();
    assert.equal(r.watches, 2);
  } finally {
    await r.stop();
  }
});

// Found by the chaos suite: the idle timeout used to start only once a watch's response headers
// arrived, so a watch request sent on a connection that went half-open (accepted by the network, never
// answered) waited for the HTTP client's own headers timeout (undici: 300 s).
test('a watch request whose response headers never arrive is abandoned after watchIdleTimeoutMs and retried', async () => {
  const r = await run((o) => hangingWatchCall(o.signal));
  try {
    await settle();
    assert.equal(r.watches, 1);
    await r.clock.step(1_000);
    await settle();
    assert.equal(r.watches, 2, 'the hanging watch request was given up and a new one made');
  } finally {
    await r.stop();
  }
});
