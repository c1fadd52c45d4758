/**
 * Waiting for informer caches (client-go tools/cache shared_informer.go WaitForCacheSync and
 * WaitForNamedCacheSync).
 */
import { realClock, type Clock } from '../../util/clock/clock.ts';

/** How often sync functions are polled (shared_informer.go syncedPollPeriod). */
export const syncedPollPeriodMs = 100;

/** Where and how to wait: a signal alone, or with a clock (tests) and a poll interval. */
export type WaitForCacheSyncOptions =
  | AbortSignal
  | {
      /** Stops waiting (the wait then resolves false). */
      signal?: AbortSignal;
      /** The clock to poll on (default: the real clock). */
      clock?: Clock;
      /** How often to poll (default {@link syncedPollPeriodMs}). */
      pollIntervalMs?: number;
    };

function normalize(options: WaitForCacheSyncOptions): { signal: AbortSignal | undefined; clock: Clock; pollIntervalMs: number } {
  if (options instanceof AbortSignal) return { signal: options, clock: realClock, pollIntervalMs: syncedPollPeriodMs };
  return { signal: options.signal, clock: options.clock ?? realClock, pollIntervalMs: options.pollIntervalMs ?? syncedPollPeriodMs };
}

/**
 * Resolves true once every function returns true (checked at once, then every 100 ms), or false if
 * the signal aborts first (cache.WaitForCacheSync). As upstream's immediate poll, the functions
 * are always checked once, so caches that already synced give true even after the signal aborted.
 *
 * @example
 * if (!(await waitForCacheSync(signal, () => pods.hasSynced(), () => nodes.hasSynced()))) return;
 */
export async function waitForCacheSync(options: WaitForCacheSyncOptions, ...cacheSyncs: (() => boolean)[]): Promise<boolean> {
  const { signal, clock, pollIntervalMs } = normalize(options);
  for (;;) {
    if (cacheSyncs.every((f) => f())) return true;
    if (signal?.aborted) return false;
    try {
      await clock.sleep(pollIntervalMs, signal);
    } catch {
      return false;
    }
  }
}

/**
 * {@link waitForCacheSync} that reports a failure to sync for `controllerName` on the console
 * (cache.WaitForNamedCacheSync).
 */
export async function waitForNamedCacheSync(controllerName: string, options: WaitForCacheSyncOptions, ...cacheSyncs: (() => boolean)[]): Promise<boolean> {
  const synced = await waitForCacheSync(options, ...cacheSyncs);
  if (!synced) console.error(`unable to sync caches for ${controllerName}`);
  return synced;
}
