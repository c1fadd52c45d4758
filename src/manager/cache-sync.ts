/**
 * What the Manager says when its cache cannot sync (controller-runtime pkg/manager/internal.go's cache
 * start, pkg/source/kind.go's retry loop and pkg/internal/controller/controller.go's CacheSyncTimeout):
 * every failed LIST or WATCH is logged with the kind and the cause, spaced by the reflector's backoff;
 * `/readyz` fails while a kind is unsynced or its last request failed; and `start()` gives up after the
 * cache sync timeout (2 minutes, as controller-runtime's CacheSyncTimeout) with a
 * {@link CacheSyncTimeoutError} naming the kinds and the cause.
 *
 * Upstream retries a kind its RESTMapper does not know every 10 s until the timeout, logging "if kind is
 * a CRD, it should be installed before calling Start"; here the informer's LIST answers 404, which is
 * reported the same way: `no matches for kind "Website" in version "example.com/v1"`.
 */
import { isNotFound, KubeloomError } from '../apimachinery/errors.ts';
import { noKindMatchMessage, type InformerCache, type KindSyncStatus } from '../cache/cache.ts';
import type { ResourceKind } from '../client/kinds.ts';
import type { Logger } from '../tools/events/logger.ts';
import type { Checker } from './healthz.ts';

/** controller-runtime's default CacheSyncTimeout (pkg/config/controller.go: 2 minutes). */
export const defaultCacheSyncTimeoutMs = 120_000;

/**
 * A one-line cause of a failed LIST or WATCH of `kind`: a 404 becomes upstream's RESTMapper message
 * `no matches for kind "Website" in version "example.com/v1"` (the kind is not served: a CRD not
 * installed), anything else the innermost message (e.g. "connect ECONNREFUSED 127.0.0.1:6443").
 */
export function describeListWatchError(kind: ResourceKind<unknown, unknown>, err: unknown): string {
  if (isNotFound(err)) return `${noKindMatchMessage(kind)} (is its CRD installed?)`;
  let e: unknown = err;
  // The network error's own message already names the URL and the cause; a wrapper only repeats it.
  while (e instanceof Error && e.cause instanceof Error && e.message.includes(e.cause.message)) e = e.cause;
  return e instanceof Error ? e.message : String(e);
}

/** A kind for messages: "Website (example.com/v1, Resource=websites)". */
function kindName(s: KindSyncStatus): string {
  return `${s.kind.kind} (${s.objectDescription})`;
}

/**
 * The Manager's cache did not sync within the cache sync timeout; `start()` rejects with it after
 * stopping what it had started.
 */
export class CacheSyncTimeoutError extends KubeloomError {
  /** The kinds that had not synced, e.g. ["Website (example.com/v1, Resource=websites)"]. */
  readonly kinds: readonly string[];
  constructor(timeoutMs: number, pending: readonly KindSyncStatus[]) {
    const names = pending.map(kindName);
    const each = pending.map((p) => `${kindName(p)}${p.lastError !== undefined ? `: ${describeListWatchError(p.kind, p.lastError)}` : ''}`);
    const first = pending.find((p) => p.lastError !== undefined)?.lastError;
    super('ERR_CACHE_SYNC_TIMEOUT', `timed out after ${timeoutMs / 1000}s waiting for cache to be synced for Kind ${each.join('; ')}`, first !== undefined ? { cause: first } : undefined);
    this.kinds = names;
  }
}

/** Logs a failed LIST or WATCH (the reflector's "Failed to watch"), with the kind and the cause. */
export function logListWatchError(logger: Logger, kind: ResourceKind<unknown, unknown>, objectDescription: string, err: unknown): void {
  logger.error('Failed to watch', { kind: kind.kind, resource: objectDescription, err: describeListWatchError(kind, err) });
}

/**
 * The readiness check the Manager adds as `informers`: fails while a kind has not synced or its last
 * LIST/WATCH failed (an API server that cannot be reached), naming the kind and the cause.
 */
export function cacheReadyChecker(cache: InformerCache): Checker {
  return () => {
    const bad = cache.syncStatus().filter((s) => !s.synced || s.lastError !== undefined);
    if (bad.length === 0) return undefined;
    return new Error(bad.map((s) => `${kindName(s)} ${s.synced ? 'synced, but' : 'not synced'}${s.lastError !== undefined ? `: ${describeListWatchError(s.kind, s.lastError)}` : ''}`).join('; '));
  };
}
