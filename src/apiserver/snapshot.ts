/**
 * A snapshot of a whole embedded API server, from which another server starts in milliseconds
 * (`startApiServer({ from })`, `server.fork()`): the storage's objects and history, and the custom
 * resources the server serves with their compiled schemas. Both are immutable and shared, never copied:
 * a server started from a snapshot writes new objects, so it and the server the snapshot came from never
 * see each other's writes. Upstream has no counterpart (an etcd snapshot restores the data, and the
 * apiserver rebuilds everything else as it starts).
 */
import type { ApiResource } from './resources.ts';
import type { StorageSnapshot } from './storage/interface.ts';

/** An immutable image of an API server's data, taken with `server.snapshot()`. */
export interface ApiServerSnapshot {
  /** Every object and the retained change history. */
  readonly storage: StorageSnapshot;
  /** @internal CRD name → the resources it serves (its compiled schemas included). */
  readonly customResources: ReadonlyMap<string, readonly ApiResource[]>;
}
