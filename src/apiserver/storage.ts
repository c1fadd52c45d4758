/**
 * The generic storage behind every resource of the embedded API server, modelled on etcd as
 * kube-apiserver uses it: one global, monotonic revision stamped on every write as the object's
 * resourceVersion; objects kept per resource under `namespace/name` keys, listed in key order; a bounded
 * history of changes that serves watch resumption and consistent paginated lists at older revisions.
 *
 * Stored objects are immutable: every write stores a new object together with its JSON, so reads
 * and watch fan-out never serialise the same state twice.
 *
 * A store may have a {@link StorageDecoder}: what kube-apiserver's storage codec does when it decodes an
 * object read back from etcd (custom resources are pruned and defaulted by their current schema there).
 * Every read — get, list, history, the previous state of a change — goes through it.
 *
 * A store may also have a {@link WatchCache}: the window of recent events kube-apiserver's watch cache keeps
 * per resource, which decides how far back a watch may start (watch-cache.ts). Every write is recorded there.
 *
 * This class is the one implementation of {@link StorageInterface} (storage/interface.ts) and the read model
 * of every backend: with a {@link StorageBackend} (SQLite), each change is made durable by the backend before
 * it is applied here, and a store opened on a backend starts from what the backend retained.
 */
import { goFieldOrder } from '../runtime/json-field-order.ts';
import type { WatchCache } from './watch-cache.ts';
import { isPipelined, isRevisioned, type KeyRange, type PipelinedBackend, type PipelinedCommit, type RemoteEvent, type StorageBackend, type StorageInterface, type StorageSnapshot } from './storage/interface.ts';
import { alreadyExists, conflict, notFound, optimisticLockMessage } from './status.ts';
import { StatusError } from '../apimachinery/errors.ts';

/** The watch event types a change produces. */
export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One stored state of an object. Never mutated after it is stored. */
export interface StoredObject {
  /** The object, with metadata.resourceVersion set to `rv`. */
  readonly obj: Record<string, unknown>;
  /** `JSON.stringify(obj)`, computed once. */
  readonly json: string;
  /** The revision of this state. */
  readonly rv: number;
  /** `namespace/name`, or `name` for cluster-scoped objects. */
  readonly key: string;
}

/** One change recorded in the history, shared by every watcher that sends it. */
export interface Change {
  readonly rv: number;
  /** The storage key of the resource (see storageKey()). */
  readonly store: string;
  readonly type: ChangeType;
  readonly key: string;
  /** The new state; for DELETED the final state stamped with the deletion's revision. */
  readonly object: StoredObject;
  /** The state before the change, undefined for ADDED. */
  readonly prev: StoredObject | undefined;
  /** Encoded watch lines by event type, filled lazily by the watch streams and shared by them. */
  lines?: Map<string, string>;
  /** Encoded protobuf watch frames by event type, shared the same way (watch-stream.ts). */
  frames?: Map<string, Buffer>;
  /** Set when another writer of a shared backend (etcd) made the change, not this store. */
  readonly remote?: boolean;
}

/** Thrown when a revision is older than the retained history. */
export class RevisionCompactedError extends Error {
  readonly revision: number;
  readonly compacted: number;
  constructor(revision: number, compacted: number) {
    super(`revision ${revision} has been compacted (oldest available is after ${compacted})`);
    this.name = 'RevisionCompactedError';
    this.revision = revision;
    this.compacted = compacted;
  }
}

/**
 * Thrown by {@link Storage.write} when the write was computed from a state that is no longer current: the
 * caller's `expectedRevision` is not the key's revision, or (etcd) the compare-and-swap on it failed because
 * another writer got there first. It is a 409 Conflict (`the object has been modified`) when it reaches a
 * client; the write handlers catch it instead and run their update again on the fresh object, as
 * etcd3/store.go's GuaranteedUpdate loops (registry/generic/guaranteed-update.ts). The read model already
 * holds the fresh state when this is thrown.
 */
export class ResourceVersionConflictError extends StatusError {
  /** The revision the write expected. */
  readonly expected: number;
  /** The key's revision found instead (0: the key is gone). */
  readonly actual: number;
  constructor(store: string, key: string, expected: number, actual: number) {
    const { r, name } = refOf(store, key);
    super(conflict(r, name, optimisticLockMessage).status);
    this.name = 'ResourceVersionConflictError';
    this.expected = expected;
    this.actual = actual;
  }
}

/** etcd's default `--max-request-bytes` (1.5 MiB): the largest write it accepts, key and value together. */
export const etcdMaxRequestBytes = 1.5 * 1024 * 1024;

/**
 * Thrown by {@link Storage.write} for an object whose stored form is over {@link etcdMaxRequestBytes}.
 * kube-apiserver passes etcd's error through untyped: 500 `etcdserver: request is too large`.
 */
export class EtcdRequestTooLargeError extends Error {
  /** Stable identifier of this error. */
  readonly code = 'ERR_ETCD_REQUEST_TOO_LARGE';
  constructor() {
    super('etcdserver: request is too large');
    this.name = 'EtcdRequestTooLargeError';
  }
}

/** The objects of one resource (all versions share it). */
class ObjectStore {
  readonly items = new Map<string, StoredObject>();
  #sorted: string[] | undefined;

  sortedKeys(): string[] {
    this.#sorted ??= [...this.items.keys()].sort(compareKeys);
    return this.#sorted;
  }

  invalidate(): void {
    this.#sorted = undefined;
  }
}

/** Index of the first key >= `key` in a sorted array. */
function lowerBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Byte-wise key order, as etcd ranges are ordered. */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Turns a stored state into what a read returns; must answer `stored` itself when nothing changes and be
 * cheap then, as it runs on every read. It may return another object with the same `rv` and `key`.
 */
export type StorageDecoder = (stored: StoredObject) => StoredObject;

/** A listener for the changes of one resource. */
export type ChangeListener = (change: Change) => void;

/**
 * Every map's keys in byte order, at every level: how Go's encoding/json writes a map, and so how
 * kube-apiserver writes unstructured objects (custom resources), whose fields are maps.
 */
export function sortKeysDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeysDeep);
  if (v === null || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o).sort(compareKeys)) out[k] = sortKeysDeep(o[k]);
  return out;
}

function sortedStored(s: StoredObject): StoredObject {
  const obj = sortKeysDeep(s.obj) as Record<string, unknown>;
  return { obj, json: JSON.stringify(obj), rv: s.rv, key: s.key };
}

// Built-in objects are kept in the key order kube-apiserver's encoding/json writes them in (Go struct
// order, `kind` first, maps sorted), so that every answer made from the stored JSON has it without a
// pass per read.
// Custom resources are unstructured: Go writes their maps with sorted keys.
// `prev` is the version it replaces: the parts it shares with it are in order already (goFieldOrder's twin).
function withRevision(obj: Record<string, unknown>, rv: number, unstructured: boolean, prev?: Record<string, unknown>): Record<string, unknown> {
  const metadata = { ...(obj.metadata as Record<string, unknown> | undefined), resourceVersion: String(rv) };
  return unstructured ? (sortKeysDeep({ ...obj, metadata }) as Record<string, unknown>) : goFieldOrder({ ...obj, metadata }, prev);
}

/** An object as stored at revision `rv`: resourceVersion set, keys in Go field order (a backend's loaded state). */
export function stampRevision(obj: Record<string, unknown>, rv: number): Record<string, unknown> {
  return withRevision(obj, rv, false);
}

// The resource and name a storage key is about, for the Status of a failed compare-and-swap.
function refOf(store: string, key: string): { r: { group: string; resource: string }; name: string } {
  const dot = store.indexOf('.');
  return { r: dot < 0 ? { group: '', resource: store } : { group: store.slice(dot + 1), resource: store.slice(0, dot) }, name: key.slice(key.lastIndexOf('/') + 1) };
}

// A change as a read returns it: a new change (without shared encoded lines) when the decoder changed a state.
function decodeChange(c: Change, d: StorageDecoder): Change {
  const object = d(c.object);
  const prev = c.prev === undefined ? undefined : d(c.prev);
  return object === c.object && prev === c.prev ? c : { rv: c.rv, store: c.store, type: c.type, key: c.key, object, prev };
}

/** The global store: every resource's objects, the revision counter and the change history. */
export class Storage implements StorageInterface {
  #revision: number;
  readonly #stores = new Map<string, ObjectStore>();
  readonly #listeners = new Map<string, Set<ChangeListener>>();
  readonly #allListeners = new Set<ChangeListener>();
  readonly #decoders = new Map<string, StorageDecoder>();
  // Stores of unstructured objects (custom resources): written with sorted keys (see sortKeysDeep).
  readonly #unstructured = new Set<string>();
  readonly #capacity: number;
  // Ring buffer of changes in revision order: #history[#head..] are live entries.
  #history: Change[] = [];
  #head = 0;
  // Every revision <= #compacted is no longer reconstructable from the history.
  #compacted = 0;
  // Where changes are made durable before they are applied (undefined: memory only).
  readonly #backend: StorageBackend | undefined;
  // writeAsync's commits in flight, by the backend's commit id: the state stored for each, once applied.
  readonly #awaited = new Map<number, StoredObject | undefined>();
  readonly #relistListeners = new Set<() => void>();
  /** The watch cache's event windows, when the server models them (undefined: any retained revision may be watched). */
  watchCache: WatchCache | undefined;

  /**
   * @param historySize how many changes to keep for watch resumption and paginated lists.
   * @param startRevision the revision of an empty store.
   * @param backend where to make changes durable; the store starts from what it {@link StorageBackend.load}s.
   */
  constructor(historySize: number, startRevision = 0, backend?: StorageBackend) {
    this.#capacity = Math.max(1, historySize);
    this.#revision = startRevision;
    this.#compacted = startRevision;
    this.#backend = backend;
    if (backend !== undefined) this.restore(backend.load());
    if (isPipelined(backend)) {
      backend.onApply((events) => {
        for (const e of events) this.#applyRemote(e, undefined);
      });
    }
    if (isRevisioned(backend)) {
      backend.onRelist?.((snapshot) => this.#relist(snapshot));
      backend.onRemoteChanges(() => {
        try {
          for (const e of backend.drain()) this.#applyRemote(e, undefined);
        } catch {
          // The backend lost its watch; the next write reports it.
        }
      });
    }
  }

  /**
   * Registers what to do when a shared backend listed everything again (its watch fell behind a compaction):
   * the server ends its watches then, as kube-apiserver's cacher terminates its watchers before it relists.
   * Returns the unregistration.
   */
  onRelist(listener: () => void): () => void {
    this.#relistListeners.add(listener);
    return () => {
      this.#relistListeners.delete(listener);
    };
  }

  // The backend listed everything again at `snapshot.revision` (cacher.go startCaching: terminate the
  // watchers, ListAndWatch, watchCache.Replace): the content becomes the list; the history and the watch
  // cache windows start at its revision, so a watch from before it is 410 and its client relists; the
  // watches end; listeners of changes are told the difference (at the list's revision, not recorded in the
  // history), so the caches inside the server converge as an informer's relist makes them.
  #relist(snapshot: StorageSnapshot): void {
    const rv = Math.max(snapshot.revision, this.#revision);
    const diff: Change[] = [];
    const names = new Set([...this.#stores.keys(), ...snapshot.objects.keys()]);
    for (const store of names) {
      const old = this.#stores.get(store)?.items ?? new Map<string, StoredObject>();
      const now = snapshot.objects.get(store) ?? new Map<string, StoredObject>();
      for (const [key, was] of old) {
        if (!now.has(key)) diff.push({ rv, store, type: 'DELETED', key, object: this.#storedAt(store, key, was.obj, rv), prev: this.#decode(store, was), remote: true });
      }
      for (const [key, is] of now) {
        const was = old.get(key);
        if (was === undefined) diff.push({ rv, store, type: 'ADDED', key, object: is, prev: undefined, remote: true });
        else if (was.rv !== is.rv) diff.push({ rv, store, type: 'MODIFIED', key, object: is, prev: this.#decode(store, was), remote: true });
      }
    }
    this.#stores.clear();
    for (const [name, items] of snapshot.objects) {
      const st = this.#store(name);
      for (const [k, v] of items) st.items.set(k, v);
    }
    this.#revision = rv;
    this.#history = [];
    this.#head = 0;
    this.#compacted = rv;
    this.watchCache?.restart(rv);
    for (const l of [...this.#relistListeners]) l();
    for (const change of diff) {
      const listeners = this.#listeners.get(change.store);
      if (listeners !== undefined) for (const l of [...listeners]) l(change);
      for (const l of [...this.#allListeners]) l(change);
    }
  }

  /** The backend that makes this store's changes durable, if any. */
  get backend(): StorageBackend | undefined {
    return this.#backend;
  }

  /**
   * An immutable image of every object and the retained history. The maps are copied, the stored objects
   * and changes shared (they are immutable), so a snapshot of a thousand objects takes microseconds.
   */
  snapshot(): StorageSnapshot {
    const objects = new Map<string, ReadonlyMap<string, StoredObject>>();
    for (const [name, s] of this.#stores) if (s.items.size > 0) objects.set(name, new Map(s.items));
    return { revision: this.#revision, compactedRevision: this.#compacted, objects, history: this.#history.slice(this.#head) };
  }

  /**
   * Replaces the whole content with a snapshot's (or a backend's loaded state): objects, revision, compacted
   * revision and history (its newest `historySize` changes). Listeners are not told; decoders and unstructured
   * marks are kept (the server sets them again for the custom resources the snapshot serves).
   */
  restore(snapshot: StorageSnapshot): void {
    this.#stores.clear();
    for (const [name, items] of snapshot.objects) {
      const s = this.#store(name);
      for (const [k, v] of items) s.items.set(k, v);
    }
    this.#revision = snapshot.revision;
    const history = snapshot.history;
    const dropped = Math.max(0, history.length - this.#capacity);
    this.#history = history.slice(dropped);
    this.#head = 0;
    this.#compacted = dropped > 0 ? Math.max(snapshot.compactedRevision, history[dropped - 1]!.rv) : snapshot.compactedRevision;
  }

  /** The current revision: the resourceVersion of the latest write. */
  get revision(): number {
    return this.#revision;
  }

  /** The highest revision whose changes were dropped from the history. */
  get compactedRevision(): number {
    return this.#compacted;
  }

  #store(name: string): ObjectStore {
    let s = this.#stores.get(name);
    if (s === undefined) {
      s = new ObjectStore();
      this.#stores.set(name, s);
    }
    return s;
  }

  /** Sets (or, with undefined, removes) the decoder of a store's reads. */
  setDecoder(store: string, decoder: StorageDecoder | undefined): void {
    if (decoder === undefined) this.#decoders.delete(store);
    else if (this.#unstructured.has(store)) {
      // What a decoder changes keeps Go's map order too.
      this.#decoders.set(store, (s) => {
        const d = decoder(s);
        return d === s ? d : sortedStored(d);
      });
    } else this.#decoders.set(store, decoder);
  }

  /**
   * Marks a store as holding unstructured objects (custom resources), or unmarks it: objects are then
   * stored with their keys in Go's map order at every level, as kube-apiserver writes them (set before
   * the store's decoder).
   */
  setUnstructured(store: string, unstructured: boolean): void {
    if (unstructured) this.#unstructured.add(store);
    else this.#unstructured.delete(store);
  }

  #decode(store: string, s: StoredObject | undefined): StoredObject | undefined {
    if (s === undefined) return undefined;
    const d = this.#decoders.get(store);
    return d === undefined ? s : d(s);
  }

  /** The current state of one object. */
  get(store: string, key: string): StoredObject | undefined {
    return this.#decode(store, this.#stores.get(store)?.items.get(key));
  }

  /** Number of objects currently stored for a resource. */
  count(store: string): number {
    return this.#stores.get(store)?.items.size ?? 0;
  }

  /** How many listeners one resource's changes have (watches, watch caches): leaks show here. */
  subscriberCount(store: string): number {
    return this.#listeners.get(store)?.size ?? 0;
  }

  /** Registers a listener for one resource's changes; returns the function that unregisters it. */
  subscribe(store: string, listener: ChangeListener): () => void {
    let set = this.#listeners.get(store);
    if (set === undefined) {
      set = new Set();
      this.#listeners.set(store, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
    };
  }

  /**
   * Registers a listener for the changes of every resource, as the controllers running inside the server
   * watch everything; returns the function that unregisters it.
   */
  subscribeAll(listener: ChangeListener): () => void {
    this.#allListeners.add(listener);
    return () => {
      this.#allListeners.delete(listener);
    };
  }

  /** The names of every store that holds or held objects. */
  stores(): string[] {
    return [...this.#stores.keys()];
  }

  /**
   * Writes a new state (ADDED/MODIFIED) or removes an object (DELETED, `obj` being its final state).
   * Stamps the next revision as resourceVersion, records the change and notifies listeners.
   *
   * `expectedRevision`: the revision of the state the write was computed from (etcd3/store.go's compare on
   * the key's mod revision); when the key is no longer at it, nothing is written and
   * {@link ResourceVersionConflictError} is thrown. Without it, a MODIFIED or DELETED write on a shared
   * backend compares with the revision the read model holds, and a plain write in memory is unconditional.
   */
  write(store: string, key: string, type: ChangeType, obj: Record<string, unknown>, expectedRevision?: number): StoredObject {
    const s = this.#store(store);
    const raw = s.items.get(key);
    if (expectedRevision !== undefined && type !== 'ADDED' && (raw?.rv ?? 0) !== expectedRevision) throw new ResourceVersionConflictError(store, key, expectedRevision, raw?.rv ?? 0);
    const prev = this.#decode(store, raw);
    const rv = this.#revision + 1;
    const stamped = withRevision(obj, rv, this.#unstructured.has(store), type === 'DELETED' ? undefined : raw?.obj);
    const json = JSON.stringify(stamped);
    // etcd refuses a request larger than its --max-request-bytes before anything is written.
    if (type !== 'DELETED' && json.length + key.length > etcdMaxRequestBytes && Buffer.byteLength(json) + key.length > etcdMaxRequestBytes) throw new EtcdRequestTooLargeError();
    if (isRevisioned(this.#backend)) return this.#writeRevisioned(store, key, type, obj, expectedRevision !== undefined);
    const stored: StoredObject = { obj: stamped, json, rv, key };
    const change: Change = { rv, store, type, key, object: stored, prev };
    // Durable first: a backend that cannot commit throws, and nothing has changed then.
    if (this.#backend !== undefined) this.#backend.append(change, this.#compacted);
    this.#apply(change);
    return stored;
  }

  /**
   * {@link Storage.write} for a request that can wait: on a backend that pipelines (etcd), the write is sent
   * without blocking the server, so the writes of concurrent requests are in flight together and etcd
   * commits them in one disk sync; the read model still applies every change in etcd's order, and the
   * promise settles once the change is applied (a client reads its own write). Elsewhere it is `write`,
   * settled at once. Same arguments and errors.
   */
  writeAsync(store: string, key: string, type: ChangeType, obj: Record<string, unknown>, expectedRevision?: number): Promise<StoredObject> {
    const backend = this.#backend;
    if (!isPipelined(backend)) {
      try {
        return Promise.resolve(this.write(store, key, type, obj, expectedRevision));
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
    }
    return this.#writePipelined(backend, store, key, type, obj, expectedRevision);
  }

  async #writePipelined(backend: PipelinedBackend, store: string, key: string, type: ChangeType, obj: Record<string, unknown>, expectedRevision: number | undefined): Promise<StoredObject> {
    const current = this.#stores.get(store)?.items.get(key);
    if (expectedRevision !== undefined && type !== 'ADDED' && (current?.rv ?? 0) !== expectedRevision) throw new ResourceVersionConflictError(store, key, expectedRevision, current?.rv ?? 0);
    if (type !== 'DELETED') {
      const json = JSON.stringify(obj);
      if (json.length + key.length > etcdMaxRequestBytes && Buffer.byteLength(json) + key.length > etcdMaxRequestBytes) throw new EtcdRequestTooLargeError();
    }
    const expected = type === 'ADDED' ? 0 : (expectedRevision ?? current?.rv ?? 0);
    const { id, done } = backend.commitAsync(store, key, type === 'DELETED' ? undefined : obj, expected);
    this.#awaited.set(id, undefined);
    let result: PipelinedCommit;
    try {
      result = await done;
    } catch (err) {
      this.#awaited.delete(id);
      throw err;
    }
    const stored = this.#awaited.get(id);
    this.#awaited.delete(id);
    if (!result.succeeded) {
      const { r, name } = refOf(store, key);
      if (type === 'ADDED') throw alreadyExists(r, name);
      const now = this.#stores.get(store)?.items.get(key);
      if (expectedRevision !== undefined) throw new ResourceVersionConflictError(store, key, expected, now?.rv ?? 0);
      if (now === undefined) throw notFound(r, name);
      throw conflict(r, name, optimisticLockMessage);
    }
    // The state applied for the write (a deletion is not recognised by the backend: the final state).
    return stored ?? this.#storedAt(store, key, obj, result.revision);
  }

  // Applies a committed change: the revision, the object, the history, the watch cache, the listeners.
  #apply(change: Change): void {
    const s = this.#store(change.store);
    this.#revision = change.rv;
    if (change.type === 'DELETED') {
      s.items.delete(change.key);
      s.invalidate();
    } else {
      if (change.prev === undefined) s.invalidate();
      s.items.set(change.key, change.object);
    }
    this.#record(change);
    this.watchCache?.record(change.store, change.rv);
    const listeners = this.#listeners.get(change.store);
    if (listeners !== undefined) for (const l of [...listeners]) l(change);
    for (const l of [...this.#allListeners]) l(change);
  }

  // A state at `rv`, in the store's form (Go map order for unstructured stores).
  #storedAt(store: string, key: string, obj: Record<string, unknown>, rv: number): StoredObject {
    const stamped = withRevision(obj, rv, this.#unstructured.has(store));
    return { obj: stamped, json: JSON.stringify(stamped), rv, key };
  }

  // A change a revisioned backend reported; `own` is this store's own write at that revision, kept as built.
  #applyRemote(e: RemoteEvent, ownWrite: { rv: number; store: string; key: string; obj: Record<string, unknown> } | undefined): StoredObject | undefined {
    if (e.rv < this.#revision) return undefined;
    // This store's own object for the change, kept as built and not marked remote: a commit the backend
    // recognised (`commit`, a PUT: `obj` is the object written), or the write being acknowledged.
    let ownObj: Record<string, unknown> | undefined;
    if (e.commit !== undefined) ownObj = e.obj;
    else if (ownWrite !== undefined && ownWrite.rv === e.rv && ownWrite.store === e.store && ownWrite.key === e.key) ownObj = ownWrite.obj;
    const mine = ownObj !== undefined;
    const s = this.#store(e.store);
    const raw = s.items.get(e.key);
    const prev = this.#decode(e.store, raw);
    let object: StoredObject;
    if (e.obj === undefined) {
      if (raw === undefined) {
        this.#revision = e.rv;
        return undefined;
      }
      object = this.#storedAt(e.store, e.key, ownObj ?? raw.obj, e.rv);
      this.#apply({ rv: e.rv, store: e.store, type: 'DELETED', key: e.key, object, prev, ...(mine ? {} : { remote: true }) });
    } else {
      object = this.#storedAt(e.store, e.key, ownObj ?? e.obj, e.rv);
      this.#apply({ rv: e.rv, store: e.store, type: raw === undefined ? 'ADDED' : 'MODIFIED', key: e.key, object, prev, ...(mine ? {} : { remote: true }) });
    }
    if (e.commit !== undefined && this.#awaited.has(e.commit)) this.#awaited.set(e.commit, object);
    return object;
  }

  // etcd3/store.go: a compare-and-swap on the key's mod revision (create: on its absence); the read model
  // applies every change the backend reports up to this one, in order, then acknowledges.
  #writeRevisioned(store: string, key: string, type: ChangeType, obj: Record<string, unknown>, pinned: boolean): StoredObject {
    const backend = this.#backend;
    if (!isRevisioned(backend)) throw new Error('not a revisioned backend');
    const current = this.#stores.get(store)?.items.get(key);
    // A pinned revision was checked against the read model by write(); it is the one held here.
    const expected = type === 'ADDED' ? 0 : (current?.rv ?? 0);
    const result = backend.commit(store, key, type === 'DELETED' ? undefined : obj, expected);
    let stored: StoredObject | undefined;
    const own = { rv: result.revision, store, key, obj };
    for (const e of result.events) {
      const applied = this.#applyRemote(e, result.succeeded ? own : undefined);
      if (result.succeeded && e.rv === result.revision && e.store === store && e.key === key) stored = applied;
    }
    if (!result.succeeded) {
      const { r, name } = refOf(store, key);
      if (type === 'ADDED') throw alreadyExists(r, name);
      const now = this.#stores.get(store)?.items.get(key);
      // The caller computed the write from a state: it may run again on the fresh one (GuaranteedUpdate).
      if (pinned) throw new ResourceVersionConflictError(store, key, expected, now?.rv ?? 0);
      if (now === undefined) throw notFound(r, name);
      throw conflict(r, name, optimisticLockMessage);
    }
    return stored ?? this.#storedAt(store, key, obj, result.revision);
  }

  #record(change: Change): void {
    this.#history.push(change);
    if (this.#history.length - this.#head > this.#capacity) {
      this.#compacted = this.#history[this.#head]!.rv;
      this.#head++;
      // Reclaim the dead prefix now and then rather than shifting on every write.
      if (this.#head > 4096 && this.#head * 2 > this.#history.length) {
        this.#history = this.#history.slice(this.#head);
        this.#head = 0;
      }
    }
  }

  /**
   * Drops the history up to and including `revision` (default: the current revision), as an etcd
   * compaction does: watches and lists older than that revision fail with 410 afterwards.
   */
  compact(revision = this.#revision): void {
    const target = Math.min(revision, this.#revision);
    if (target <= this.#compacted) return;
    this.#backend?.compact(target);
    this.#compacted = target;
    let i = this.#head;
    while (i < this.#history.length && this.#history[i]!.rv <= target) i++;
    this.#history = this.#history.slice(i);
    this.#head = 0;
  }

  /** Index of the first retained change with rv > `after`. */
  #firstAfter(after: number): number {
    let lo = this.#head;
    let hi = this.#history.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#history[mid]!.rv <= after) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * The changes of `store` after `revision`, in order. Throws {@link RevisionCompactedError} when
   * some of them are no longer retained.
   */
  changesSince(store: string, revision: number): Change[] {
    if (revision < this.#compacted) throw new RevisionCompactedError(revision, this.#compacted);
    const out: Change[] = [];
    const d = this.#decoders.get(store);
    for (let i = this.#firstAfter(revision); i < this.#history.length; i++) {
      const c = this.#history[i]!;
      if (c.store === store) out.push(d === undefined ? c : decodeChange(c, d));
    }
    return out;
  }

  /**
   * The objects of `store` in key order as they were at `revision` (current state when `revision` is
   * at or past the current revision), restricted to keys >= `startKey` and, when given, to one
   * namespace. Throws {@link RevisionCompactedError} when the history no longer reaches back.
   */
  listAt(store: string, revision: number, options: KeyRange = {}): StoredObject[] {
    const s = this.#stores.get(store);
    const prefix = options.namespace === undefined || options.namespace === '' ? '' : `${options.namespace}/`;
    const start = options.startKey ?? '';
    const inRange = (k: string): boolean => k >= start && (prefix === '' || k.startsWith(prefix));
    const d = this.#decoders.get(store);
    if (revision >= this.#revision) {
      if (s === undefined) return [];
      const out: StoredObject[] = [];
      for (const k of s.sortedKeys()) if (inRange(k)) out.push(d === undefined ? s.items.get(k)! : d(s.items.get(k)!));
      return out;
    }
    if (revision < this.#compacted) throw new RevisionCompactedError(revision, this.#compacted);
    // Undo every later change: the first change of each key after `revision` holds its state then.
    const overrides = new Map<string, StoredObject | undefined>();
    for (let i = this.#firstAfter(revision); i < this.#history.length; i++) {
      const c = this.#history[i]!;
      if (c.store === store && !overrides.has(c.key)) overrides.set(c.key, c.prev);
    }
    const keys = new Set<string>(s?.items.keys() ?? []);
    for (const k of overrides.keys()) keys.add(k);
    const out: StoredObject[] = [];
    for (const k of [...keys].sort(compareKeys)) {
      if (!inRange(k)) continue;
      const v = overrides.has(k) ? overrides.get(k) : s?.items.get(k);
      if (v !== undefined) out.push(d === undefined ? v : d(v));
    }
    return out;
  }

  /**
   * Like {@link Storage.listAt}, but lazy: `items` yields the objects in key order and `total` is how
   * many there are in range. At the current revision this costs O(log n) plus the items consumed, so
   * paging through a large resource stays linear overall.
   */
  scan(store: string, revision: number, options: KeyRange = {}): { total: number; items: Iterable<StoredObject> } {
    const s = this.#stores.get(store);
    if (revision < this.#revision || s === undefined) {
      const all = this.listAt(store, revision, options);
      return { total: all.length, items: all };
    }
    const keys = s.sortedKeys();
    const prefix = options.namespace === undefined || options.namespace === '' ? '' : `${options.namespace}/`;
    const start = options.startKey !== undefined && options.startKey > prefix ? options.startKey : prefix;
    const lo = lowerBound(keys, start);
    // '0' is the character after '/', so every key with the prefix sorts before `${namespace}0`.
    const hi = prefix === '' ? keys.length : lowerBound(keys, `${options.namespace}0`);
    const items = s.items;
    const d = this.#decoders.get(store);
    function* iterate(): Generator<StoredObject> {
      if (d === undefined) for (let i = lo; i < hi; i++) yield items.get(keys[i]!)!;
      else for (let i = lo; i < hi; i++) yield d(items.get(keys[i]!)!);
    }
    return { total: Math.max(0, hi - lo), items: iterate() };
  }

  /** Removes every object of a resource without recording changes (used when a CRD goes away). */
  dropStore(store: string): StoredObject[] {
    const s = this.#stores.get(store);
    this.#stores.delete(store);
    return s === undefined ? [] : [...s.items.values()];
  }
}
