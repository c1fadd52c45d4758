/**
 * The messages between an {@link EtcdBackend} (etcd-backend.ts) and its etcd thread (etcd-worker.ts).
 * Values travel as bytes (Uint8Array, structured-cloned); decoding them into objects is the backend's job.
 */

/** A key's new value (PUT) or its removal (DELETE) at revision `rv`, as the watch or a range read gave it. */
export interface WorkerEvent {
  type: 'PUT' | 'DELETE';
  /** The full etcd key, e.g. `/registry/configmaps/default/x`. */
  key: string;
  /** The stored bytes (PUT only). */
  value: Uint8Array | undefined;
  /** The key's mod revision. */
  rv: number;
  /** The id of this server's commit that wrote it, when the etcd thread recognised it (PUT only). */
  commit?: number;
}

/** What the server's thread asks. */
export type WorkerRequest =
  | { op: 'load'; pageSize: number; compactRevKey: string }
  | { op: 'commit'; key: string; value: Uint8Array | undefined; expected: number }
  | { op: 'drain' }
  | { op: 'compact'; revision: number; compactRevKey: string; compactVersion: number }
  | { op: 'suspendWatch' }
  | { op: 'resumeWatch' }
  | { op: 'close' };

/** Every key under the prefix at `revision`: the read model's watch fell behind a compaction and was listed again. */
export interface WorkerRelist {
  revision: number;
  events: WorkerEvent[];
}

/** What the etcd thread answers. */
export type WorkerReply =
  | { op: 'load'; revision: number; events: WorkerEvent[]; compactVersion: number }
  | { op: 'commit'; succeeded: boolean; revision: number; events: WorkerEvent[]; relist?: WorkerRelist }
  | { op: 'drain'; events: WorkerEvent[]; relist?: WorkerRelist }
  | { op: 'suspendWatch' }
  | { op: 'resumeWatch' }
  | { op: 'compact'; compacted: boolean; compactVersion: number }
  | { op: 'close' }
  | { op: 'error'; message: string };
