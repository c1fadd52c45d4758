/**
 * What a controller logs when a reconcile fails (controller-runtime pkg/internal/controller/controller.go:
 * `Reconcile`'s deferred recover, which runs utilruntime's panic handlers — they log "Observed a panic"
 * with the stack — and returns "panic: … [recovered]"; `reconcileHandler`'s `log.Error(err, "Reconciler
 * error")`, whose logger carries controller, object, namespace, name and reconcileID).
 *
 * JavaScript has no panics: a thrown programming error (TypeError, ReferenceError, RangeError,
 * SyntaxError, or a thrown value that is not an Error) stands for one. One such error is common enough
 * to deserve its own message: writing to an object read from the cache, which the cache deeply freezes
 * (src/tools/cache/deep-freeze.ts). V8 then says only "Cannot add property status, object is not
 * extensible"; {@link withFrozenObjectHint} turns that into a {@link FrozenObjectError} that says to copy
 * the object first. It is done here, at the reconcile boundary, rather than with a Proxy on every cached
 * object, which would slow down every read on the hot path.
 */
import type { Logger, LogFields } from '../tools/events/logger.ts';

/** A thrown value that stands for a Go panic: a programming error, or something that is not an Error. */
export function isPanic(err: unknown): boolean {
  return !(err instanceof Error) || err instanceof TypeError || err instanceof ReferenceError || err instanceof RangeError || err instanceof SyntaxError;
}

// V8's strict-mode messages for writes to a frozen object or array.
const frozenWrite = /object is not extensible|Cannot assign to read only property|Cannot delete property|Cannot define property/;

/**
 * A reconcile wrote to a frozen object: one read from the cache (client `get`/`list`, an informer's
 * store, an event handler's object). The message keeps V8's and adds the remedy; `cause` is the
 * original TypeError, whose stack points at the faulty line. It is a TypeError, so it still counts as
 * a panic.
 */
export class FrozenObjectError extends TypeError {
  /** Stable identifier, as a KubeloomError's. */
  readonly code = 'ERR_FROZEN_OBJECT';
  constructor(original: TypeError) {
    super(`${original.message}: objects read from the cache are frozen; copy it first (deepCopy(obj) from kubeloom/client) and write the copy`, { cause: original });
    this.name = 'FrozenObjectError';
    // The stack of the write itself, not of this wrapper.
    if (original.stack !== undefined) this.stack = `${this.name}: ${this.message}\n${original.stack.split('\n').slice(1).join('\n')}`;
  }
}

/** `err`, or a {@link FrozenObjectError} when it is V8's TypeError for a write to a frozen object. */
export function withFrozenObjectHint(err: unknown): unknown {
  if (err instanceof TypeError && !(err instanceof FrozenObjectError) && frozenWrite.test(err.message)) return new FrozenObjectError(err);
  return err;
}

/** The stack of `err` followed by its causes' ("Caused by: …"), or undefined for a non-Error. */
export function stackOf(err: unknown): string | undefined {
  if (!(err instanceof Error)) return undefined;
  const parts: string[] = [];
  const seen = new Set<unknown>();
  for (let e: unknown = err; e instanceof Error && !seen.has(e); e = e.cause) {
    seen.add(e);
    parts.push(parts.length === 0 ? (e.stack ?? String(e)) : `Caused by: ${e.stack ?? String(e)}`);
    // Its stack is its cause's already.
    if (e instanceof FrozenObjectError) break;
  }
  return parts.join('\n');
}

/**
 * Logs a failed reconcile on `logger` (which carries controller, namespace, name and reconcileID):
 * for a panic "Observed a panic" with its stack first, as utilruntime.HandleCrash, then "Reconciler
 * error" with the message (`panic: … [recovered]` for a panic) and the stack.
 */
export function logReconcileError(logger: Logger, err: unknown, fields: LogFields): void {
  const message = err instanceof Error ? err.message : String(err);
  const stack = stackOf(err);
  if (isPanic(err)) {
    logger.error('Observed a panic', { panic: message, ...(stack !== undefined ? { stacktrace: stack } : {}) });
    logger.error('Reconciler error', { ...fields, err: `panic: ${message} [recovered]`, ...(stack !== undefined ? { stacktrace: stack } : {}) });
    return;
  }
  logger.error('Reconciler error', { ...fields, err: message, ...(stack !== undefined ? { stacktrace: stack } : {}) });
}
