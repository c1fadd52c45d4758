/**
 * A {@link RevisionedBackend} on etcd v3, in kube-apiserver's layout and encoding (etcd-layout.ts), after
 * k8s.io/apiserver/pkg/storage/etcd3/store.go and compact.go:
 *
 * - create = `Txn(If create_revision(key) == 0, Then Put)`, update and delete =
 *   `Txn(If mod_revision(key) == expected, Then Put|Delete, Else Get)`; the object's resourceVersion is the
 *   revision etcd gives the write (store.go's `mod_revision`), never stored in the value;
 * - the read model (the `Storage` that owns this backend) starts from a paged range read of `/registry/` at
 *   one revision and is kept current by one watch from the next revision (what kube-apiserver's cacher does);
 *   a commit is acknowledged only once the watch has delivered it, together with every earlier change, so
 *   every watcher of every server sees etcd's order and a client reads its own writes;
 * - compaction follows compact.go's `compact_rev_key` protocol, so several servers on one etcd compact once
 *   per round between them.
 *
 * The storage contract is synchronous (interface.ts), so the etcd I/O runs on a thread of its own
 * (etcd-worker.ts) and a call blocks the server's thread for one round trip (Atomics.wait). See
 * docs/apiserver.md, "Storage", for what this gives and what kube-apiserver does differently.
 */
import { receiveMessageOnPort, MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { EtcdError, type EtcdTlsOptions } from './etcd-client.ts';
import { decodeStored, defaultEtcdPrefix, encodeStored, etcdKey, parseEtcdKey } from './etcd-layout.ts';
import type { WorkerEvent, WorkerReply, WorkerRequest } from './etcd-protocol.ts';
import { StorageKind, type PipelinedBackend, type PipelinedCommit, type RemoteEvent, type RemoteCommit, type StorageSnapshot } from './interface.ts';
import { stampRevision, type StoredObject } from '../storage.ts';

/** compact.go's key: its version counts the compactions every server on the etcd has done. */
export const compactRevKey = 'compact_rev_key';

// How many keys one range request of the initial load reads (the cacher's reflector pages by 10,000 in
// v1.24: apiserver/pkg/storage/cacher/cacher.go, pagingEnabled with a 10000 limit).
const loadPageSize = 10_000;
// How long a call may block the server's thread: kube-apiserver's default request timeout (60 s,
// apiserver/pkg/server/config.go RequestTimeout).
const callTimeoutMs = 60_000;

// Stands for the object of a commit's own event: the store keeps the object it wrote (RemoteCommit).
const ownObject: Record<string, unknown> = Object.freeze({});

/** Options of {@link EtcdBackend.open}. */
export interface EtcdBackendOptions {
  /** The key prefix (kube-apiserver's `--etcd-prefix`, default `/registry`). */
  prefix?: string;
  /** TLS for `https://` endpoints (kube-apiserver's `--etcd-cafile`, `--etcd-certfile`, `--etcd-keyfile`). */
  tls?: EtcdTlsOptions;
}

/** The etcd v3 backend: one per server, one thread and one watch each. */
export class EtcdBackend implements PipelinedBackend {
  readonly kind = StorageKind.Etcd;
  /** The client URLs (kube-apiserver's `--etcd-servers`). */
  readonly endpoints: readonly string[];
  /** The key prefix. */
  readonly prefix: string;
  readonly #worker: Worker;
  readonly #port: MessagePort;
  readonly #flag: Int32Array;
  #nextId = 0;
  #compactVersion = 0;
  #listener: (() => void) | undefined;
  #closed = false;
  #failure: Error | undefined;
  // The asynchronous commits waiting for their answer, by request id.
  readonly #pending = new Map<number, { resolve: (c: PipelinedCommit) => void; reject: (err: Error) => void }>();
  #apply: ((events: readonly RemoteEvent[]) => void) | undefined;
  #relisted: ((snapshot: StorageSnapshot) => void) | undefined;
  #draining = false;
  #drainAgain = false;
  // The object each unanswered commit writes (undefined: a deletion), by request id: its event carries it.
  readonly #written = new Map<number, Record<string, unknown> | undefined>();
  /** Values under the prefix that could not be decoded or are not served, skipped so far. */
  skipped = 0;

  private constructor(endpoints: readonly string[], options: EtcdBackendOptions) {
    this.endpoints = endpoints;
    this.prefix = (options.prefix ?? defaultEtcdPrefix).replace(/\/+$/, '');
    const channel = new MessageChannel();
    this.#port = channel.port1;
    this.#flag = new Int32Array(new SharedArrayBuffer(4));
    const file = import.meta.url.endsWith('.ts') ? './etcd-worker.ts' : './etcd-worker.js';
    this.#worker = new Worker(new URL(file, import.meta.url), {
      workerData: { port: channel.port2, flag: this.#flag, endpoints, prefix: `${this.prefix}/`, tls: options.tls },
      transferList: [channel.port2],
    });
    this.#worker.unref();
    // Answers to asynchronous commits arrive here, or inside a synchronous call that finds them first.
    this.#port.on('message', (m: WorkerReply & { id: number }) => this.#answer(m));
    this.#port.unref();
    this.#worker.on('message', () => {
      if (this.#closed) return;
      // With a read model that takes answers asynchronously, other writers' changes are drained without
      // blocking the server's thread either.
      if (this.#apply !== undefined) this.#drainAsync();
      else this.#listener?.();
    });
    // A thread that died fails every later call instead of crashing the server.
    this.#worker.on('error', (err: unknown) => {
      this.#failure = err instanceof Error ? err : new Error(String(err));
    });
  }

  /** Starts the etcd thread for one etcd cluster (several client URLs of it). */
  static open(endpoints: readonly string[], options: EtcdBackendOptions = {}): EtcdBackend {
    if (endpoints.length === 0) throw new EtcdError('no etcd servers given');
    return new EtcdBackend(endpoints, options);
  }

  #call(req: WorkerRequest): WorkerReply {
    if (this.#closed) throw new EtcdError('etcd backend is closed');
    if (this.#failure !== undefined) throw new EtcdError(`etcd thread failed: ${this.#failure.message}`, undefined, { cause: this.#failure });
    const id = ++this.#nextId;
    this.#port.postMessage({ ...req, id });
    for (;;) {
      const seen = Atomics.load(this.#flag, 0);
      const m = receiveMessageOnPort(this.#port) as { message: WorkerReply & { id: number } } | undefined;
      if (m !== undefined) {
        if (m.message.id !== id) {
          this.#answer(m.message);
          continue;
        }
        if (m.message.op === 'error') throw new EtcdError(`etcd: ${m.message.message}`);
        return m.message;
      }
      if (Atomics.wait(this.#flag, 0, seen, callTimeoutMs) === 'timed-out') throw new EtcdError(`etcd: no answer from ${this.endpoints.join(',')} within ${callTimeoutMs / 1000}s`);
    }
  }

  // An answer to an asynchronous commit: its changes go to the read model now, in the order answers come.
  #answer(m: WorkerReply & { id: number }): void {
    const pending = this.#pending.get(m.id);
    if (pending === undefined) return;
    this.#pending.delete(m.id);
    if (m.op !== 'commit' && m.op !== 'drain') {
      this.#written.delete(m.id);
      pending.reject(new EtcdError(m.op === 'error' ? `etcd: ${m.message}` : `etcd: unexpected answer ${m.op}`));
      return;
    }
    try {
      this.#takeRelist(m);
      this.#apply?.(this.#decode(m.events));
      this.#written.delete(m.id);
    } catch (err) {
      this.#written.delete(m.id);
      pending.reject(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    pending.resolve(m.op === 'commit' ? { succeeded: m.succeeded, revision: m.revision } : { succeeded: true, revision: 0 });
  }

  // One asynchronous drain at a time; a nudge meanwhile drains again after it.
  #drainAsync(): void {
    if (this.#draining) {
      this.#drainAgain = true;
      return;
    }
    this.#draining = true;
    this.#drainAgain = false;
    const id = ++this.#nextId;
    const settle = (): void => {
      this.#draining = false;
      if (this.#drainAgain && !this.#closed) this.#drainAsync();
    };
    this.#pending.set(id, { resolve: settle, reject: settle });
    this.#port.postMessage({ op: 'drain', id });
  }

  onApply(apply: (events: readonly RemoteEvent[]) => void): void {
    this.#apply = apply;
  }

  commitAsync(store: string, key: string, obj: Record<string, unknown> | undefined, expected: number): { id: number; done: Promise<PipelinedCommit> } {
    if (this.#closed) throw new EtcdError('etcd backend is closed');
    if (this.#failure !== undefined) throw new EtcdError(`etcd thread failed: ${this.#failure.message}`, undefined, { cause: this.#failure });
    const value = obj === undefined ? undefined : encodeStored(store, obj);
    const id = ++this.#nextId;
    const done = new Promise<PipelinedCommit>((resolve, reject) => this.#pending.set(id, { resolve, reject }));
    this.#written.set(id, obj);
    this.#port.postMessage({ op: 'commit', key: etcdKey(this.prefix, store, key), value, expected, id });
    return { id, done };
  }

  describe(): string {
    return `etcd ${this.endpoints.join(',')} (prefix ${this.prefix}, kube-apiserver's layout: built-in kinds as protobuf, custom resources as JSON)`;
  }

  // `own`: this server's own write, whose object the store already has (not decoded again).
  #decode(events: readonly WorkerEvent[], own?: { key: string; rv: number }): RemoteEvent[] {
    const out: RemoteEvent[] = [];
    for (const e of events) {
      const where = parseEtcdKey(this.prefix, e.key);
      if (where === undefined) {
        this.skipped++;
        continue;
      }
      if (e.commit !== undefined && this.#written.has(e.commit)) {
        out.push({ store: where.store, key: where.key, rv: e.rv, obj: this.#written.get(e.commit), commit: e.commit });
        continue;
      }
      if (own !== undefined && e.rv === own.rv && e.key === own.key) {
        out.push({ store: where.store, key: where.key, rv: e.rv, obj: e.type === 'DELETE' ? undefined : ownObject });
        continue;
      }
      if (e.type === 'DELETE') {
        out.push({ store: where.store, key: where.key, rv: e.rv, obj: undefined });
        continue;
      }
      try {
        out.push({ store: where.store, key: where.key, rv: e.rv, obj: decodeStored(e.value!) });
      } catch {
        this.skipped++;
      }
    }
    return out;
  }

  load(): StorageSnapshot {
    const r = this.#call({ op: 'load', pageSize: loadPageSize, compactRevKey });
    if (r.op !== 'load') throw new EtcdError(`etcd: unexpected answer ${r.op}`);
    this.#compactVersion = r.compactVersion;
    return this.#snapshotOf(r.revision, r.events);
  }

  // The state a list read at `revision` (the load, or a relist), as the read model takes it.
  #snapshotOf(revision: number, events: readonly WorkerEvent[]): StorageSnapshot {
    const objects = new Map<string, Map<string, StoredObject>>();
    for (const e of this.#decode(events)) {
      let items = objects.get(e.store);
      if (items === undefined) {
        items = new Map();
        objects.set(e.store, items);
      }
      const obj = stampRevision(e.obj!, e.rv);
      items.set(e.key, { obj, json: JSON.stringify(obj), rv: e.rv, key: e.key });
    }
    // etcd's history before the load is not replayed: watches start at the loaded revision.
    return { revision, compactedRevision: revision, objects, history: [] };
  }

  // An answer carrying a relist (the read model's watch fell behind a compaction): the read model takes
  // it before the answer's events.
  #takeRelist(m: WorkerReply): void {
    if ((m.op === 'drain' || m.op === 'commit') && m.relist !== undefined) this.#relisted?.(this.#snapshotOf(m.relist.revision, m.relist.events));
  }

  onRelist(listener: (snapshot: StorageSnapshot) => void): void {
    this.#relisted = listener;
  }

  /**
   * Stops the read model's etcd watch until {@link EtcdBackend.resumeWatch} (fault injection and tests: a
   * server whose watch falls behind). Writes still commit; their acknowledgement waits for the watch.
   */
  suspendWatch(): void {
    this.#call({ op: 'suspendWatch' });
  }

  /** Resumes the watch {@link EtcdBackend.suspendWatch} stopped, from the revision after the last it delivered. */
  resumeWatch(): void {
    this.#call({ op: 'resumeWatch' });
  }

  commit(store: string, key: string, obj: Record<string, unknown> | undefined, expected: number): RemoteCommit {
    const value = obj === undefined ? undefined : encodeStored(store, obj);
    const etcdKeyText = etcdKey(this.prefix, store, key);
    // #call takes the next id: the events of this write carry it (another commit's answer may hold them).
    const id = this.#nextId + 1;
    this.#written.set(id, obj);
    let r: WorkerReply;
    try {
      r = this.#call({ op: 'commit', key: etcdKeyText, value, expected });
    } catch (err) {
      this.#written.delete(id);
      throw err;
    }
    if (r.op !== 'commit') {
      this.#written.delete(id);
      throw new EtcdError(`etcd: unexpected answer ${r.op}`);
    }
    this.#takeRelist(r);
    const events = this.#decode(r.events, r.succeeded ? { key: etcdKeyText, rv: r.revision } : undefined);
    this.#written.delete(id);
    return { succeeded: r.succeeded, revision: r.revision, events };
  }

  drain(): RemoteEvent[] {
    const r = this.#call({ op: 'drain' });
    this.#takeRelist(r);
    return r.op === 'drain' ? this.#decode(r.events) : [];
  }

  onRemoteChanges(listener: () => void): void {
    this.#listener = listener;
  }

  append(): void {
    throw new EtcdError('the etcd backend commits through commit(), not append()');
  }

  compact(revision: number): void {
    // compact.go: a server whose compact_rev_key version is stale learns the current one and tries again.
    for (let attempt = 0; attempt < 2; attempt++) {
      const r = this.#call({ op: 'compact', revision, compactRevKey, compactVersion: this.#compactVersion });
      if (r.op !== 'compact') return;
      this.#compactVersion = r.compactVersion;
      if (r.compacted) return;
    }
  }

  close(): void {
    if (this.#closed) return;
    try {
      this.#call({ op: 'close' });
    } finally {
      this.#closed = true;
      for (const p of this.#pending.values()) p.reject(new EtcdError('etcd backend is closed'));
      this.#pending.clear();
      this.#port.close();
      void this.#worker.terminate();
    }
  }
}
