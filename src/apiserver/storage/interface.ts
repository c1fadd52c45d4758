/**
 * The storage contract of the embedded API server, after kube-apiserver's `storage.Interface`
 * (k8s.io/apiserver/pkg/storage/interfaces.go) and etcd's data model as kine reproduces it on SQL
 * (k3s-io/kine, pkg/logstructured): one global revision, a log of changes keyed by revision, reads at a
 * revision, watches from a revision, compaction.
 *
 * Two layers, so the hot path stays synchronous and in memory whatever keeps the data:
 *
 * - {@link StorageInterface}: what the registry and the handlers call. It is synchronous: a write returns
 *   the stored object (or throws) before the request continues, and every read is served from memory.
 *   `Storage` (../storage.ts) is its one implementation; every backend shares it as the read model.
 * - {@link StorageBackend}: where committed changes are made durable. The in-memory server has none; the
 *   SQLite backend (sqlite-backend.ts) appends each change to a revision log, synchronously and before the
 *   write is acknowledged, and gives the retained state back when a server starts on the same data.
 *
 * - {@link RevisionedBackend}: a backend shared with other writers that assigns the revisions itself (etcd,
 *   etcd-backend.ts): a write is a compare-and-swap there, and the read model applies changes only as the
 *   backend reports them, in its order.
 *
 * Where this differs from upstream: kube-apiserver's storage.Interface is asynchronous (etcd is remote) and
 * its watch cache is the read model; here the read model is the store itself, so a backend must answer
 * synchronously too (the etcd backend blocks on a thread of its own; see docs/apiserver.md, "Storage").
 */
import type { Change, ChangeListener, ChangeType, StorageDecoder, StoredObject } from '../storage.ts';
import type { WatchCache } from '../watch-cache.ts';

/** A key range within one resource: keys >= `startKey`, restricted to one namespace when given. */
export interface KeyRange {
  /** Only keys `namespace/...` (undefined or '': every key). */
  namespace?: string;
  /** The first key to include (a continue token's key, plus NUL). */
  startKey?: string;
}

/**
 * The operations the API server performs on its storage (upstream's storage.Interface: Get, GetList,
 * Create/GuaranteedUpdate/Delete folded into {@link StorageInterface.write}, Watch as
 * {@link StorageInterface.changesSince} + {@link StorageInterface.subscribe}, plus etcd's Compact).
 *
 * Invariants every implementation keeps:
 * - `revision` only grows; each write takes `revision + 1` and stamps it as the object's resourceVersion;
 * - stored objects are immutable: a write stores a new object, so reads may share them without copying;
 * - a write either commits completely (memory, backend and listeners) or throws with nothing changed;
 * - a read at a revision older than `compactedRevision` throws RevisionCompactedError (410 Gone).
 */
export interface StorageInterface {
  /** The current revision: the resourceVersion of the latest write (etcd's header revision). */
  readonly revision: number;
  /** The highest revision whose changes are no longer retained; reads and watches before it fail. */
  readonly compactedRevision: number;
  /** The watch cache's event windows, when the server models them. */
  watchCache: WatchCache | undefined;
  /** The current state of one object (upstream Get), decoded. */
  get(store: string, key: string): StoredObject | undefined;
  /** How many objects a resource holds now. */
  count(store: string): number;
  /** The objects of a resource in key order at `revision` (upstream GetList with ResourceVersionMatchExact). */
  listAt(store: string, revision: number, range?: KeyRange): StoredObject[];
  /** Like listAt, lazily: O(log n) plus the items consumed at the current revision (paginated lists). */
  scan(store: string, revision: number, range?: KeyRange): { total: number; items: Iterable<StoredObject> };
  /** The retained changes of a resource after `revision`, in order (a watch's replay). */
  changesSince(store: string, revision: number): Change[];
  /**
   * Commits one change: a new state (ADDED/MODIFIED) or a removal (DELETED, `obj` being the final state).
   * Preconditions (resourceVersion, uid) are checked by the registry before it calls this, in the same
   * synchronous turn, which makes the check and the write atomic as etcd's transaction does.
   * `expectedRevision` is the revision of the state an update was computed from: a key no longer at it
   * is not written (ResourceVersionConflictError, a 409 the write handlers retry on the fresh state, as
   * GuaranteedUpdate does).
   */
  write(store: string, key: string, type: ChangeType, obj: Record<string, unknown>, expectedRevision?: number): StoredObject;
  /** Drops the history up to `revision` (default: the current one), as etcd's Compact. */
  compact(revision?: number): void;
  /** Registers a listener of one resource's committed changes; returns its unregistration. */
  subscribe(store: string, listener: ChangeListener): () => void;
  /** Registers a listener of every committed change; returns its unregistration. */
  subscribeAll(listener: ChangeListener): () => void;
  /** Sets how a resource's stored states are read back (custom resources' pruning and defaulting). */
  setDecoder(store: string, decoder: StorageDecoder | undefined): void;
  /** Marks a resource as unstructured (custom resources: keys in Go's map order). */
  setUnstructured(store: string, unstructured: boolean): void;
  /** The resources that hold or held objects. */
  stores(): string[];
  /** An immutable image of the whole store, which {@link StorageInterface.restore} takes back. */
  snapshot(): StorageSnapshot;
}

/**
 * An immutable image of a store at one revision: the objects and the retained history. Taking one copies
 * the maps' entries, never the objects (stored objects are immutable and shared), so it costs microseconds
 * per thousand objects; a store started from it is isolated from the one it was taken from.
 */
export interface StorageSnapshot {
  /** The revision of the image. */
  readonly revision: number;
  /** The compacted revision of the image. */
  readonly compactedRevision: number;
  /** @internal Resource → key → current state. Never mutated. */
  readonly objects: ReadonlyMap<string, ReadonlyMap<string, StoredObject>>;
  /** @internal The retained changes, oldest first. */
  readonly history: readonly Change[];
}

/** The backends a server can keep its data in. */
export const StorageKind = {
  /** In memory only: fastest, lost when the process ends. */
  Memory: 'memory',
  /** A SQLite revision log on disk (node:sqlite), the in-memory store as its read model. */
  Sqlite: 'sqlite',
  /** etcd v3 in kube-apiserver's layout; the in-memory store is its read model, fed by an etcd watch. */
  Etcd: 'etcd',
} as const;

/** One of {@link StorageKind}. */
export type StorageKind = (typeof StorageKind)[keyof typeof StorageKind];

/**
 * Where committed changes are made durable (kine's `Backend`, reduced to what a write-through log needs).
 * Every method is synchronous: {@link StorageBackend.append} returns once the change is durable, and
 * throws when it could not be, in which case the write fails and memory is left unchanged.
 */
export interface StorageBackend {
  /** Which backend this is. */
  readonly kind: StorageKind;
  /** One line for humans: where the data is and what survives what (the CLI's startup line). */
  describe(): string;
  /** The retained state to start from: the latest objects and the log after the compacted revision. */
  load(): StorageSnapshot;
  /**
   * Makes one change durable before it is applied in memory and acknowledged. `compacted` is the store's
   * compacted revision, so the backend can drop what no read can reach any more when it suits it.
   */
  append(change: Change, compacted: number): void;
  /** Drops what no read at or after `revision` needs (etcd's Compact). */
  compact(revision: number): void;
  /** Releases the backend (closes files). */
  close(): void;
}

/** One change a {@link RevisionedBackend} saw: a key's new state (`obj`) or its removal (`obj` undefined) at `rv`. */
export interface RemoteEvent {
  readonly store: string;
  readonly key: string;
  readonly rv: number;
  /** The decoded object, without resourceVersion; undefined for a deletion. */
  readonly obj: Record<string, unknown> | undefined;
  /**
   * The {@link PipelinedBackend.commitAsync} of this server that wrote it, when recognised: `obj` is then a
   * placeholder, the store keeps the object it wrote.
   */
  readonly commit?: number;
}

/** What a {@link RevisionedBackend.commit} did, and what the read model must apply before acknowledging it. */
export interface RemoteCommit {
  /** Whether the compare held and the write was made. */
  readonly succeeded: boolean;
  /** etcd's revision after the transaction (the write's own revision when it succeeded). */
  readonly revision: number;
  /**
   * Every change up to (at least) the write, in revision order: other writers' first, then this one (whose
   * `obj` may be a placeholder: the store keeps the object it wrote).
   */
  readonly events: readonly RemoteEvent[];
}

/**
 * A backend that assigns the revisions itself and is shared with other writers (etcd): a write is a
 * compare-and-swap on the key's revision, and the read model applies changes only as the backend reports
 * them, in the backend's order. Still synchronous, as {@link StorageBackend}.
 */
export interface RevisionedBackend extends StorageBackend {
  /**
   * Writes `obj` (undefined: deletes) at `key` if the key's current revision is `expected` (0: the key
   * must not exist), as etcd3/store.go's transactions do.
   */
  commit(store: string, key: string, obj: Record<string, unknown> | undefined, expected: number): RemoteCommit;
  /** The changes reported since the last commit or drain (other writers'), in order. */
  drain(): RemoteEvent[];
  /** Sets what to call when changes are waiting to be drained. */
  onRemoteChanges(listener: () => void): void;
  /**
   * Sets what to call when the backend lost track of changes (its watch fell behind a compaction) and
   * listed everything again: the read model replaces its content with `snapshot` (the cacher's relist).
   */
  onRelist?(listener: (snapshot: StorageSnapshot) => void): void;
}

/** What a {@link PipelinedBackend.commitAsync} answers once its events were applied. */
export interface PipelinedCommit {
  /** Whether the compare held and the write was made. */
  readonly succeeded: boolean;
  /** etcd's revision after the transaction (the write's own revision when it succeeded). */
  readonly revision: number;
}

/**
 * A {@link RevisionedBackend} that can have several commits in flight (etcd: several transactions on the
 * wire, so etcd batches them into one disk sync). Every change still reaches the read model in the
 * backend's order, through the one function given to {@link PipelinedBackend.onApply}, and synchronously
 * as each answer arrives; a commit's promise settles after the changes up to its own were applied.
 */
export interface PipelinedBackend extends RevisionedBackend {
  /** Sets the function every change of an asynchronous commit's answer goes through, in order. */
  onApply(apply: (events: readonly RemoteEvent[]) => void): void;
  /**
   * Starts a write as {@link RevisionedBackend.commit} does, without waiting: `id` is known at once (the
   * events of this write carry it as {@link RemoteEvent.commit}), `done` settles once the changes up to it
   * were applied (or rejects when etcd could not be asked).
   */
  commitAsync(store: string, key: string, obj: Record<string, unknown> | undefined, expected: number): { id: number; done: Promise<PipelinedCommit> };
}

/** Whether a backend can have several commits in flight ({@link PipelinedBackend}). */
export function isPipelined(backend: StorageBackend | undefined): backend is PipelinedBackend {
  return backend !== undefined && 'commitAsync' in backend;
}

/** Whether a backend assigns revisions itself ({@link RevisionedBackend}). */
export function isRevisioned(backend: StorageBackend | undefined): backend is RevisionedBackend {
  return backend !== undefined && 'commit' in backend;
}
