/**
 * An in-memory {@link LeaseClient} for tests, with the API server's optimistic concurrency: every write
 * bumps a global resourceVersion, an update carrying a stale resourceVersion fails with 409 Conflict,
 * creating an existing Lease with 409 AlreadyExists and reading a missing one with 404 NotFound.
 * Scripted faults make the next calls fail or hang until their signal aborts.
 */
import type { Lease } from '../../../api/coordination/v1.ts';
import { StatusError, newNotFound, newStatus } from '../../../apimachinery/errors.ts';
import type { KubeList } from '../../../apimachinery/object.ts';
import type { ListOptions, RequestOptions } from '../../../apimachinery/options.ts';
import { InitialEventsEndAnnotation, type Watch, type WatchEvent } from '../../../apimachinery/watch.ts';
import type { LeaseClient } from './lease-lock.ts';

/** A Lease client call, as recorded by {@link FakeLeaseClient.calls}. */
export type LeaseVerb = 'get' | 'create' | 'update' | 'watch' | 'list' | 'delete';

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

  readonly #watchers = new Set<{ push: (event: WatchEvent<Lease>) => void; close: () => void }>();

  /** Next global resourceVersion. */
  nextResourceVersion(): string {
    this.#revision++;
    return String(this.#revision);
  }

  /** Tells every open watch that `lease` was stored (`ADDED`/`MODIFIED`) or removed (`DELETED`). */
  notify(type: 'ADDED' | 'MODIFIED' | 'DELETED', lease: Lease): void {
    for (const w of this.#watchers) w.push({ type, object: clone(lease) });
  }

  /** Deletes a Lease (as another client would), telling the watches. */
  delete(name: string): void {
    const lease = this.leases.get(name);
    if (lease === undefined) return;
    this.leases.delete(name);
    this.notify('DELETED', lease);
  }

  /** Ends every open watch, as a dropped connection would. */
  closeWatches(): void {
    for (const w of [...this.#watchers]) w.close();
  }

  /** The resourceVersion of the last write, as a list's. */
  currentResourceVersion(): string {
    return String(this.#revision);
  }

  /** Number of open watches. */
  watchCount(): number {
    return this.#watchers.size;
  }

  /** Registers a watch; returns its unsubscribe function. */
  subscribe(watcher: { push: (event: WatchEvent<Lease>) => void; close: () => void }): () => void {
    this.#watchers.add(watcher);
    return () => this.#watchers.delete(watcher);
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
      this.store.notify('ADDED', stored);
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
      this.store.notify('MODIFIED', stored);
      return clone(stored);
    });
  }

  /** Lists Leases (or applies a queued fault), filtered by a `k=v[,k=v]` label selector. */
  list(options: ListOptions = {}): Promise<KubeList<Lease>> {
    return this.#call({ verb: 'list', name: '' }, options.signal, () => {
      const wanted = (options.labelSelector ?? '').split(',').filter((x) => x !== '').map((x) => x.split('=') as [string, string]);
      const items = [...this.store.leases.values()].filter((l) => wanted.every(([k, v]) => l.metadata?.labels?.[k] === v)).map((l) => clone(l));
      return { apiVersion: 'coordination.k8s.io/v1', kind: 'LeaseList', metadata: { resourceVersion: this.store.currentResourceVersion() }, items };
    });
  }

  /** Deletes a Lease (or applies a queued fault); 404 when it does not exist. */
  delete(name: string, options: RequestOptions = {}): Promise<Record<string, never>> {
    return this.#call({ verb: 'delete', name }, options.signal, () => {
      if (!this.store.leases.has(name)) throw newNotFound('coordination.k8s.io', 'leases', name);
      this.store.delete(name);
      return {};
    });
  }

  /**
   * Watches Leases (or applies a queued fault): with a `metadata.name=` field selector only that one;
   * without a resourceVersion (or with `sendInitialEvents`, then ended by the initial-events-end
   * bookmark) the current state comes first as ADDED events. The stream ends when
   * `options.signal` aborts or {@link FakeLeaseStore.closeWatches} is called.
   */
  async watch(options: ListOptions = {}): Promise<Watch<Lease>> {
    const selected = /^metadata\.name=(.*)$/.exec(options.fieldSelector ?? '')?.[1];
    const signal = options.signal;
    const queue: WatchEvent<Lease>[] = [];
    let wake: (() => void) | undefined;
    let closed = false;
    const matches = (lease: Lease): boolean => selected === undefined || lease.metadata?.name === selected;
    let unsubscribe = (): void => {};
    // The snapshot and the subscription happen together, so that no write falls between them.
    await this.#call({ verb: 'watch', name: selected ?? '' }, signal, () => {
      if (options.resourceVersion === undefined || options.resourceVersion === '' || options.sendInitialEvents === true) {
        for (const lease of this.store.leases.values()) if (matches(lease)) queue.push({ type: 'ADDED', object: clone(lease) });
      }
      if (options.sendInitialEvents === true) {
        // A watch-list stream: the initial state ends with the initial-events-end bookmark.
        const metadata = { resourceVersion: this.store.currentResourceVersion(), annotations: { [InitialEventsEndAnnotation]: 'true' } };
        queue.push({ type: 'BOOKMARK', object: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata } });
      }
      unsubscribe = this.store.subscribe({
        push: (event) => {
          if (!matches(event.object as Lease)) return;
          queue.push(event);
          wake?.();
        },
        close: () => {
          closed = true;
          wake?.();
        },
      });
    });
    const onAbort = (): void => wake?.();
    signal?.addEventListener('abort', onAbort, { once: true });
    return {
      async *[Symbol.asyncIterator](): AsyncGenerator<WatchEvent<Lease>> {
        try {
          for (;;) {
            while (queue.length > 0 && !signal?.aborted) yield queue.shift()!;
            if (closed || signal?.aborted) return;
            await new Promise<void>((resolve) => (wake = resolve));
            wake = undefined;
          }
        } finally {
          unsubscribe();
          signal?.removeEventListener('abort', onAbort);
        }
      },
    };
  }

  async #call<R = Lease>(call: Omit<LeaseCall, 'outcome'>, signal: AbortSignal | undefined, run: () => R): Promise<R> {
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
