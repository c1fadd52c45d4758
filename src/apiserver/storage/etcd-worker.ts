/**
 * The thread that talks to etcd for one {@link EtcdBackend} (etcd-backend.ts). The API server's storage
 * contract is synchronous (storage/interface.ts), etcd is not: the server's thread posts a request on a
 * MessagePort and blocks on a shared word (Atomics.wait) while this thread does the network I/O, posts the
 * answer and wakes it. This thread also owns the one watch on `/registry/` that feeds the server's read
 * model (what kube-apiserver's cacher does with its reflector over etcd3's watcher): every event is queued
 * here in revision order, the server is nudged, and takes the queue with a synchronous `drain`.
 *
 * A commit waits here until the watch has delivered its own revision, and hands back every queued event up
 * to it, so the server applies other servers' earlier writes first, then its own: each watcher sees one
 * order, etcd's.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { EtcdClient, EtcdCompactedError, EtcdError, prefixEnd, type EtcdTlsOptions, type EtcdCompare, type EtcdEvent, type EtcdOp } from './etcd-client.ts';
import type { WorkerEvent, WorkerReply, WorkerRequest } from './etcd-protocol.ts';
import { realClock } from '../../util/clock/clock.ts';

const { port, flag, endpoints, prefix, tls } = workerData as { port: MessagePort; flag: Int32Array; endpoints: string[]; prefix: string; tls: EtcdTlsOptions | undefined };
const client = new EtcdClient(endpoints, tls);
const abort = new AbortController();
let queue: WorkerEvent[] = [];
// The highest revision the watch has delivered (its events, or a header saying nothing is pending before it).
let watched = 0;
let watchError: string | undefined;
let nudged = false;
// Waiters for the watch to reach a revision.
let waiters: Array<{ revision: number; resolve: () => void }> = [];

function wake(): void {
  const ready = waiters.filter((w) => watched >= w.revision || watchError !== undefined);
  waiters = waiters.filter((w) => !(watched >= w.revision || watchError !== undefined));
  for (const w of ready) w.resolve();
}

function reached(revision: number): Promise<void> {
  if (watched >= revision || watchError !== undefined) return Promise.resolve();
  return new Promise((resolve) => waiters.push({ revision, resolve }));
}

// This server's commits whose transaction was sent and not answered yet: several are in flight at once
// (each request is handled as it comes), so the watch may deliver one's event before its transaction's
// answer, or within another commit's answer; the event is tagged with the commit that wrote it, so the
// server keeps the object it built instead of decoding etcd's copy.
const inflight = new Map<number, { key: string; value: Uint8Array | undefined }>();

function ownCommit(e: EtcdEvent): number | undefined {
  if (e.type !== 'PUT') return undefined;
  for (const [id, c] of inflight) if (c.key === e.kv.key && c.value !== undefined && Buffer.compare(c.value, e.kv.value) === 0) return id;
  return undefined;
}

function toEvent(e: EtcdEvent): WorkerEvent {
  const commit = inflight.size === 0 ? undefined : ownCommit(e);
  return { type: e.type, key: e.kv.key, value: e.type === 'PUT' ? e.kv.value : undefined, rv: e.kv.modRevision, ...(commit === undefined ? {} : { commit }) };
}

// A broken watch (etcd restarted, a proxy or undici's body timeout closed the stream) is resumed from the
// next revision after a backoff, as the cacher's reflector re-watches. One whose revision was compacted
// meanwhile cannot be resumed: as the cacher's reflector does then (apiserver/pkg/storage/cacher/cacher.go
// startCaching, client-go's reflector relisting after 410), the prefix is listed again at the current
// revision and the watch starts after it; the list goes to the server, which replaces its read model and
// ends its watches (`relisted`, handed out with the next drain or commit answer).
// The backoff: client-go's reflector's (800 ms, doubling, capped at 30 s), from 100 ms on loopback.
const initialBackoffMs = 100;
const maxBackoffMs = 30_000;

// A relist waiting to be handed to the server: it supersedes every event before its revision.
let relisted: { revision: number; events: WorkerEvent[] } | undefined;
// Set while the watch is suspended (faults and tests: "the watch falls behind"); resolving it resumes.
let suspended: { promise: Promise<void>; resume: () => void } | undefined;
let watchAbort: AbortController | undefined;

// Every key under the prefix at one revision, in pages (the cacher's initial list).
async function listAll(pageSize: number): Promise<{ revision: number; events: WorkerEvent[] }> {
  const events: WorkerEvent[] = [];
  const end = prefixEnd(prefix);
  let page = await client.range(prefix, { rangeEnd: end, limit: pageSize });
  const revision = page.revision;
  for (;;) {
    for (const kv of page.kvs) events.push({ type: 'PUT', key: kv.key, value: kv.value, rv: kv.modRevision });
    if (!page.more || page.kvs.length === 0) break;
    page = await client.range(`${page.kvs.at(-1)!.key}\0`, { rangeEnd: end, limit: pageSize, revision });
  }
  return { revision, events };
}

let relistPageSize = 10_000;

async function runWatch(from: number): Promise<void> {
  let backoff = initialBackoffMs;
  let next = from;
  while (!abort.signal.aborted) {
    if (suspended !== undefined) await suspended.promise;
    watchAbort = new AbortController();
    const signal = AbortSignal.any([abort.signal, watchAbort.signal]);
    try {
      for await (const r of client.watch(prefix, prefixEnd(prefix), next, signal)) {
        backoff = initialBackoffMs;
        for (const e of r.events) queue.push(toEvent(e));
        const last = r.events.at(-1)?.kv.modRevision ?? 0;
        watched = Math.max(watched, last);
        next = watched + 1;
        if (r.events.length > 0 && !nudged) {
          nudged = true;
          parentPort!.postMessage('nudge');
        }
        wake();
      }
      if (abort.signal.aborted) return;
      if (signal.aborted) continue;
      throw new EtcdError('etcd watch: stream ended');
    } catch (err) {
      if (abort.signal.aborted) return;
      if (signal.aborted) continue;
      if (err instanceof EtcdCompactedError) {
        try {
          const list = await listAll(relistPageSize);
          // Events queued before the list are in it; commits waiting for a revision it covers go on.
          queue = [];
          relisted = list;
          watched = Math.max(watched, list.revision);
          next = list.revision + 1;
          backoff = initialBackoffMs;
          nudged = true;
          parentPort!.postMessage('nudge');
          wake();
          continue;
        } catch {
          // etcd is unreachable: retry the watch, then the list, after the backoff.
        }
      }
      await realClock.sleep(backoff, abort.signal).catch(() => undefined);
      backoff = Math.min(backoff * 2, maxBackoffMs);
    }
  }
}

// The relist waiting to be handed out, if any (it goes before the events of the same answer).
function takeRelist(): { relist?: { revision: number; events: WorkerEvent[] } } {
  const r = relisted;
  relisted = undefined;
  return r === undefined ? {} : { relist: r };
}

function take(upTo: number): WorkerEvent[] {
  let i = 0;
  while (i < queue.length && queue[i]!.rv <= upTo) i++;
  const out = queue.slice(0, i);
  queue = queue.slice(i);
  return out;
}

async function handle(req: WorkerRequest & { id: number }): Promise<WorkerReply> {
  switch (req.op) {
    case 'load': {
      relistPageSize = req.pageSize;
      const { revision, events: kvs } = await listAll(req.pageSize);
      const compactKey = await client.range(req.compactRevKey);
      watched = revision;
      void runWatch(revision + 1);
      return { op: 'load', revision, events: kvs, compactVersion: compactKey.kvs[0]?.version ?? 0 };
    }
    case 'commit': {
      const compare: EtcdCompare[] = [req.expected === 0 ? { key: req.key, target: 'CREATE', createRevision: 0 } : { key: req.key, target: 'MOD', modRevision: req.expected }];
      const success: EtcdOp[] = [req.value === undefined ? { delete: { key: req.key } } : { put: { key: req.key, value: req.value } }];
      inflight.set(req.id, { key: req.key, value: req.value });
      let r;
      try {
        r = await client.txn(compare, success, [{ get: { key: req.key } }]);
      } catch (err) {
        inflight.delete(req.id);
        throw err;
      }
      // Success: the write's own revision; failure: the key's current state, so the read model learns it.
      const target = r.succeeded ? r.revision : (r.ranges[0]?.[0]?.modRevision ?? 0);
      await reached(target);
      inflight.delete(req.id);
      if (watchError !== undefined) return { op: 'error', message: watchError };
      nudged = false;
      return { op: 'commit', succeeded: r.succeeded, revision: r.revision, ...takeRelist(), events: take(Math.max(target, watched)) };
    }
    case 'drain': {
      nudged = false;
      if (watchError !== undefined && queue.length === 0) return { op: 'error', message: watchError };
      return { op: 'drain', ...takeRelist(), events: take(Number.MAX_SAFE_INTEGER) };
    }
    case 'suspendWatch': {
      if (suspended === undefined) {
        let resume!: () => void;
        const promise = new Promise<void>((r) => (resume = r));
        suspended = { promise, resume };
        watchAbort?.abort();
      }
      return { op: 'suspendWatch' };
    }
    case 'resumeWatch': {
      const s = suspended;
      suspended = undefined;
      s?.resume();
      return { op: 'resumeWatch' };
    }
    case 'compact': {
      // kube-apiserver's compactor (storage/etcd3/compact.go): only the server whose view of
      // compact_rev_key's version is current compacts; the others learn the new version and skip a round.
      const r = await client.txn([{ key: req.compactRevKey, target: 'VERSION', version: req.compactVersion }], [{ put: { key: req.compactRevKey, value: String(req.revision) } }], [{ get: { key: req.compactRevKey } }]);
      if (!r.succeeded) return { op: 'compact', compacted: false, compactVersion: r.ranges[0]?.[0]?.version ?? 0 };
      try {
        await client.compact(req.revision);
      } catch (err) {
        // Another server compacted past it meanwhile.
        if (!(err instanceof EtcdCompactedError)) throw err;
      }
      return { op: 'compact', compacted: true, compactVersion: req.compactVersion + 1 };
    }
    case 'close':
      abort.abort();
      return { op: 'close' };
  }
}

port.on('message', (req: WorkerRequest & { id: number }) => {
  void handle(req)
    .catch((err: unknown): WorkerReply => ({ op: 'error', message: err instanceof Error ? err.message : String(err) }))
    .then((reply) => {
      port.postMessage({ ...reply, id: req.id });
      Atomics.add(flag, 0, 1);
      Atomics.notify(flag, 0);
      if (req.op === 'close') port.close();
    });
});
