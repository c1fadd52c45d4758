/**
 * An in-memory {@link EventSink} for tests: stores events by namespace/name with the API server's
 * answers (AlreadyExists on a duplicate create, NotFound when patching a missing event), records every
 * call, and fails or holds back calls on request.
 */
import type { Event } from '../../api/events/v1.ts';
import { StatusError, newNotFound, newStatus } from '../../apimachinery/errors.ts';
import type { KubeObject } from '../../apimachinery/object.ts';

/** A recorded sink call. */
export interface EventSinkCall {
  /** Which call was made. */
  verb: 'create' | 'update' | 'patch';
  /** `namespace/name` of the event. */
  key: string;
  /** The patch body, for patches. */
  patch?: Record<string, unknown>;
  /** 'ok' or the failure (Status reason, or the error's message). */
  outcome: string;
}

/** A scripted answer for the next call of a verb. */
export type EventSinkFault =
  | {
      /** The call it answers. */
      verb: EventSinkCall['verb'];
      /** The call rejects with this. */
      error: unknown;
    }
  | {
      /** The call it answers. */
      verb: EventSinkCall['verb'];
      /** The call waits for this promise, then proceeds. */
      until: Promise<void>;
    };

/**
 * See the module comment. Works for events.k8s.io/v1 Events (the default) and, as
 * `FakeEventSink<CoreEvent>`, for core/v1 Events: it satisfies both sink interfaces.
 */
export class FakeEventSink<E extends KubeObject = Event> {
  /** Stored events by `namespace/name`. */
  readonly events = new Map<string, E>();
  /** Every call, in order. */
  readonly calls: EventSinkCall[] = [];
  readonly #faults: EventSinkFault[] = [];
  #revision = 0;

  /** Queues a fault for the next call of `fault.verb`. */
  inject(fault: EventSinkFault): void {
    this.#faults.push(fault);
  }

  /** Stores the event (or applies a queued fault). */
  create(event: E): Promise<E> {
    return this.#call('create', event, undefined, (key) => {
      if (this.events.has(key)) {
        throw new StatusError(newStatus(409, 'AlreadyExists', `events "${event.metadata?.name ?? ''}" already exists`));
      }
      const stored = structuredClone(event);
      stored.metadata = { ...stored.metadata, resourceVersion: String(++this.#revision) };
      this.events.set(key, stored);
      return structuredClone(stored);
    });
  }

  /** Replaces the stored event (or applies a queued fault). */
  update(event: E): Promise<E> {
    return this.#call('update', event, undefined, (key) => {
      if (!this.events.has(key)) throw newNotFound('', 'events', event.metadata?.name ?? '');
      const stored = structuredClone(event);
      stored.metadata = { ...stored.metadata, resourceVersion: String(++this.#revision) };
      this.events.set(key, stored);
      return structuredClone(stored);
    });
  }

  /** Merges `patch` into the stored event's top-level fields (or applies a queued fault). */
  patch(event: E, patch: Record<string, unknown>): Promise<E> {
    return this.#call('patch', event, patch, (key) => {
      const current = this.events.get(key);
      if (current === undefined) throw newNotFound('', 'events', event.metadata?.name ?? '');
      // Top-level fields replace: enough for the patches recorders send (series / count, lastTimestamp, message).
      const stored = { ...current, ...structuredClone(patch) } as E;
      stored.metadata = { ...current.metadata, resourceVersion: String(++this.#revision) };
      this.events.set(key, stored);
      return structuredClone(stored);
    });
  }

  async #call(verb: EventSinkCall['verb'], event: E, patch: Record<string, unknown> | undefined, run: (key: string) => E): Promise<E> {
    const key = `${event.metadata?.namespace ?? ''}/${event.metadata?.name ?? ''}`;
    const call: EventSinkCall = { verb, key, outcome: 'pending' };
    if (patch !== undefined) call.patch = structuredClone(patch);
    this.calls.push(call);
    await Promise.resolve();
    try {
      const index = this.#faults.findIndex((f) => f.verb === verb);
      if (index >= 0) {
        const fault = this.#faults.splice(index, 1)[0]!;
        if ('until' in fault) await fault.until;
        else throw fault.error;
      }
      const result = run(key);
      call.outcome = 'ok';
      return result;
    } catch (err) {
      call.outcome = err instanceof StatusError ? err.reason : err instanceof Error ? err.message : String(err);
      throw err;
    }
  }
}
