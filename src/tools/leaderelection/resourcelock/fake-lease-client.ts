/**
 * An in-memory {@link LeaseClient} for tests, with the API server's optimistic concurrency: every write
 * bumps a global resourceVersion, an update carrying a stale resourceVersion fails with 409 Conflict,
 * creating an existing Lease with 409 AlreadyExists and reading a missing one with 404 NotFound.
 * Scripted faults make the next calls fail or hang until their signal aborts.
 */
import type { Lease } from '../../../api/coordination/v1.ts';
import { StatusError, newNotFound, newStatus } from '../../../apimachinery/errors.ts';
import type { RequestOptions } from '../../../apimachinery/options.ts';
import type { LeaseClient } from './lease-lock.ts';

/** A Lease client call, as recorded by {@link FakeLeaseClient.calls}. */
export type LeaseVerb = 'get' | 'create' | 'update';

/** One recorded call: its verb, the Lease name and, for writes, the holder it tried to write. */
export interface LeaseCall {
  /** Which call was made. */
  verb: LeaseVerb;
  /** The Lease's name. */
  name: string;
  /** The holder written by a create or update. */
  holderIdentity?: string;
  /** How the call ended: 'ok' or the error's Status reason (or 'aborted'). */
  outcome: string;
}

/** A scripted fault for the next call of a verb: fail with `error`, hang until aborted, or wait for `until`. */
export type LeaseFault =
  | {
      /** The call it answers. */
      verb: LeaseVerb;
      /** The call rejects with this. */
      error: unknown;
    }
  | {
      /** The call it answers. */
      verb: LeaseVerb;
      /** The call never settles (until its signal aborts). */
      hang: true;
    }
  | {
      /** The call it answers. */
      verb: LeaseVerb;
      /** The call waits for this promise, then proceeds. */
      until: Promise<void>;
    };

/** A shared in-memory Lease store; several clients (one per elector) may share one store. */
export class FakeLeaseStore {
  /** Leases by `namespace/name`. */
  readonly leases = new Map<string, Lease>();
  #revision = 0;

  /** Next global resourceVersion. */
  nextResourceVersion(): string {
    this.#revision++;
    return String(this.#revision);
  }
}

function clone<T>(value: T): T {
  return structuredClone(value);
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** See the module comment. */
export class FakeLeaseClient implements LeaseClient {
  /** Where the Leases live (shared by clients of several candidates). */
  readonly store: FakeLeaseStore;
  /** The namespace this client reads and writes. */
  readonly namespace: string;
  /** Every call made, in order. */
  readonly calls: LeaseCall[] = [];
  readonly #faults: LeaseFault[] = [];

  constructor(options: { namespace?: string; store?: FakeLeaseStore } = {}) {
    this.namespace = options.namespace ?? 'default';
    this.store = options.store ?? new FakeLeaseStore();
  }

  /** Queues a fault for the next call of `fault.verb`. */
  inject(fault: LeaseFault): void {
    this.#faults.push(fault);
  }

  /** Reads a Lease (or applies a queued fault). */
  get(name: string, options: RequestOptions = {}): Promise<Lease> {
    return this.#call({ verb: 'get', name }, options.signal, () => {
      const lease = this.store.leases.get(name);
      if (lease === undefined) throw newNotFound('coordination.k8s.io', 'leases', name);
      return clone(lease);
    });
  }

  /** Creates a Lease (or applies a queued fault). */
  create(lease: Lease, options: RequestOptions = {}): Promise<Lease> {
    const name = lease.metadata?.name ?? '';
    return this.#call({ verb: 'create', name, holderIdentity: lease.spec?.holderIdentity ?? '' }, options.signal, () => {
      if (this.store.leases.has(name)) {
        throw new StatusError(newStatus(409, 'AlreadyExists', `leases.coordination.k8s.io "${name}" already exists`, { group: 'coordination.k8s.io', kind: 'leases', name }));
      }
      const stored = clone(lease);
      stored.metadata = { ...stored.metadata, namespace: this.namespace, resourceVersion: this.store.nextResourceVersion(), uid: `uid-${name}` };
      this.store.leases.set(name, stored);
      return clone(stored);
    });
  }

  /** Updates a Lease if its resourceVersion matches (or applies a queued fault). */
  update(lease: Lease, options: RequestOptions = {}): Promise<Lease> {
    const name = lease.metadata?.name ?? '';
    return this.#call({ verb: 'update', name, holderIdentity: lease.spec?.holderIdentity ?? '' }, options.signal, () => {
      const current = this.store.leases.get(name);
      if (current === undefined) throw newNotFound('coordination.k8s.io', 'leases', name);
      const rv = lease.metadata?.resourceVersion;
      if (rv !== undefined && rv !== '' && rv !== current.metadata?.resourceVersion) {
        throw new StatusError(
          newStatus(409, 'Conflict', `Operation cannot be fulfilled on leases.coordination.k8s.io "${name}": the object has been modified; please apply your changes to the latest version and try again`, {
            group: 'coordination.k8s.io',
            kind: 'leases',
            name,
          }),
        );
      }
      const stored = clone(lease);
      stored.metadata = { ...current.metadata, ...stored.metadata, resourceVersion: this.store.nextResourceVersion() };
      this.store.leases.set(name, stored);
      return clone(stored);
    });
  }

  async #call(call: Omit<LeaseCall, 'outcome'>, signal: AbortSignal | undefined, run: () => Lease): Promise<Lease> {
    const entry: LeaseCall = { ...call, outcome: 'pending' };
    if (entry.holderIdentity === undefined) delete entry.holderIdentity;
    this.calls.push(entry);
    // Answer asynchronously, as a real client does.
    await Promise.resolve();
    try {
      if (signal?.aborted) throw abortReason(signal);
      const index = this.#faults.findIndex((f) => f.verb === call.verb);
      if (index >= 0) {
        const fault = this.#faults.splice(index, 1)[0]!;
        if ('hang' in fault) await hangUntilAborted(signal);
        else if ('until' in fault) await fault.until;
        else throw fault.error;
      }
      const result = run();
      entry.outcome = 'ok';
      return result;
    } catch (err) {
      entry.outcome = err instanceof StatusError ? err.reason || String(err.statusCode) : signal?.aborted ? 'aborted' : 'error';
      throw err;
    }
  }
}

function hangUntilAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise<never>((_resolve, reject) => {
    if (signal === undefined) return;
    if (signal.aborted) {
      reject(abortReason(signal));
      return;
    }
    signal.addEventListener('abort', () => reject(abortReason(signal)), { once: true });
  });
}
