/**
 * A small etcd v3 client over etcd's own JSON gRPC gateway (`/v3/kv/range`, `/v3/kv/txn`,
 * `/v3/kv/compaction`, `/v3/watch`; documented at etcd.io, "gRPC gateway"), with Node's fetch (undici).
 * It covers what kube-apiserver's storage/etcd3 uses of clientv3: ranges (paged, at a revision), a
 * compare-and-swap transaction, compaction and a prefix watch from a revision.
 *
 * Why not a gRPC client: the `etcd3` npm package brings @grpc/grpc-js and protobufjs (megabytes, native-free
 * but heavy to load) and its last release predates etcd 3.5; the gateway is part of every etcd since 3.3
 * (`/v3/` since 3.4), needs no dependency and speaks the same messages as JSON. Keys and values travel as
 * base64, int64 fields as decimal strings, and proto3 leaves out fields at their zero value (a PUT event
 * has no `type`, a key never created has no `create_revision`).
 *
 * Endpoints are tried in order; a request that cannot reach one moves to the next (clientv3's balancer
 * rotates the same way, without its health checks).
 */
import { KubeloomError } from '../../apimachinery/errors.ts';

/** One key-value as etcd returns it, decoded. */
export interface EtcdKeyValue {
  key: string;
  value: Buffer;
  createRevision: number;
  modRevision: number;
  version: number;
}

/** One watch event: a put (create or update) or a delete at `kv.modRevision`. */
export interface EtcdEvent {
  type: 'PUT' | 'DELETE';
  kv: EtcdKeyValue;
}

/** Thrown when etcd cannot be reached or answers with an error. */
export class EtcdError extends KubeloomError {
  /** etcd's gRPC status code, when it answered with one. */
  readonly grpcCode: number | undefined;
  constructor(message: string, grpcCode?: number, options?: { cause?: unknown }) {
    super('ERR_ETCD', message, options);
    this.grpcCode = grpcCode;
  }
}

/** Thrown when a read or watch asks for a revision etcd has compacted (mvcc: required revision has been compacted). */
export class EtcdCompactedError extends EtcdError {
  /** etcd's compacted revision. */
  readonly compactRevision: number;
  constructor(compactRevision: number) {
    super(`etcdserver: mvcc: required revision has been compacted (compacted at ${compactRevision})`);
    this.compactRevision = compactRevision;
  }
}

/** A comparison of a transaction (clientv3.Compare). */
export type EtcdCompare = { key: string; target: 'MOD'; modRevision: number } | { key: string; target: 'CREATE'; createRevision: number } | { key: string; target: 'VERSION'; version: number };

/** An operation of a transaction branch (clientv3.OpPut, OpDelete, OpGet). */
export type EtcdOp = { put: { key: string; value: Uint8Array | string } } | { delete: { key: string } } | { get: { key: string } };

/** What a transaction answered: which branch ran, the revision after it, and the gets' key-values. */
export interface EtcdTxnResult {
  succeeded: boolean;
  revision: number;
  /** Per operation of the branch that ran: the key-values of a get (empty for put/delete). */
  ranges: EtcdKeyValue[][];
}

/** A page of a range read. */
export interface EtcdRangeResult {
  revision: number;
  kvs: EtcdKeyValue[];
  more: boolean;
}

/** The key after every key that starts with an ASCII `prefix` (clientv3.GetPrefixRangeEnd): its last byte plus one. */
export function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

const b64 = (s: string | Uint8Array): string => (typeof s === 'string' ? Buffer.from(s, 'utf8') : Buffer.from(s)).toString('base64');
const num = (v: unknown): number => (v === undefined ? 0 : Number(v));

interface RawKv {
  key: string;
  value?: string;
  create_revision?: string;
  mod_revision?: string;
  version?: string;
}

function kvOf(raw: RawKv): EtcdKeyValue {
  return { key: Buffer.from(raw.key, 'base64').toString('utf8'), value: Buffer.from(raw.value ?? '', 'base64'), createRevision: num(raw.create_revision), modRevision: num(raw.mod_revision), version: num(raw.version) };
}

function opOf(op: EtcdOp): Record<string, unknown> {
  if ('put' in op) return { request_put: { key: b64(op.put.key), value: b64(op.put.value) } };
  if ('delete' in op) return { request_delete_range: { key: b64(op.delete.key) } };
  return { request_range: { key: b64(op.get.key) } };
}

function compareOf(c: EtcdCompare): Record<string, unknown> {
  const base = { key: b64(c.key), result: 'EQUAL', target: c.target };
  if (c.target === 'MOD') return { ...base, mod_revision: String(c.modRevision) };
  if (c.target === 'CREATE') return { ...base, create_revision: String(c.createRevision) };
  return { ...base, version: String(c.version) };
}

/**
 * TLS for `https://` endpoints, as kube-apiserver's `--etcd-cafile`, `--etcd-certfile`, `--etcd-keyfile`
 * (apiserver/pkg/storage/storagebackend/config.go TransportConfig): PEM contents, not paths.
 */
export interface EtcdTlsOptions {
  /** The CA bundle that signed etcd's serving certificate (default: the system's roots). */
  ca?: string;
  /** The client certificate presented to etcd (etcd's `--client-cert-auth`). */
  cert?: string;
  /** The client certificate's private key. */
  key?: string;
}

type Fetch = (url: string, init: { method: string; body: string; headers: Record<string, string>; signal?: AbortSignal }) => Promise<Response>;

/** A client of one etcd cluster (several endpoints of it). */
export class EtcdClient {
  readonly endpoints: readonly string[];
  #current = 0;
  readonly #tls: EtcdTlsOptions | undefined;
  #fetch: Promise<Fetch> | undefined;

  /**
   * @param endpoints the client URLs, e.g. `http://127.0.0.1:2379` (kube-apiserver's `--etcd-servers`).
   * @param tls the CA and client certificate for `https://` endpoints.
   */
  constructor(endpoints: readonly string[], tls?: EtcdTlsOptions) {
    if (endpoints.length === 0) throw new EtcdError('no etcd endpoints given');
    this.endpoints = endpoints.map((e) => e.replace(/\/+$/, ''));
    this.#tls = tls !== undefined && (tls.ca !== undefined || tls.cert !== undefined || tls.key !== undefined) ? tls : undefined;
  }

  // Node's fetch, or, with TLS options, undici's (already a dependency) with an Agent carrying them: Node's
  // fetch takes no TLS options of its own.
  #fetcher(): Promise<Fetch> {
    this.#fetch ??=
      this.#tls === undefined
        ? Promise.resolve(fetch as Fetch)
        : import('undici').then((undici) => {
            const tls = this.#tls!;
            const dispatcher = new undici.Agent({ connect: { ...(tls.ca === undefined ? {} : { ca: tls.ca }), ...(tls.cert === undefined ? {} : { cert: tls.cert }), ...(tls.key === undefined ? {} : { key: tls.key }) } });
            return ((url, init) => undici.fetch(url, { ...init, dispatcher }) as unknown as Promise<Response>) satisfies Fetch;
          });
    return this.#fetch;
  }

  async #post(path: string, body: unknown, signal?: AbortSignal): Promise<Response> {
    let lastError: unknown;
    for (let attempt = 0; attempt < this.endpoints.length; attempt++) {
      const endpoint = this.endpoints[(this.#current + attempt) % this.endpoints.length]!;
      let res: Response;
      try {
        res = await (await this.#fetcher())(`${endpoint}${path}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' }, ...(signal === undefined ? {} : { signal }) });
      } catch (err) {
        if (signal?.aborted === true) throw err;
        lastError = err;
        continue;
      }
      this.#current = (this.#current + attempt) % this.endpoints.length;
      if (!res.ok) {
        const text = await res.text();
        let message = text;
        let code: number | undefined;
        try {
          const e = JSON.parse(text) as { error?: string; message?: string; code?: number };
          message = e.message ?? e.error ?? text;
          code = e.code;
        } catch {
          // not JSON: keep the text
        }
        const compacted = /required revision has been compacted/.test(message);
        if (compacted) throw new EtcdCompactedError(0);
        throw new EtcdError(`etcd ${path}: ${res.status} ${message}`, code);
      }
      return res;
    }
    throw new EtcdError(`etcd unreachable at ${this.endpoints.join(',')}: ${lastError instanceof Error ? lastError.message : String(lastError)}`, undefined, { cause: lastError });
  }

  async #json<T>(path: string, body: unknown): Promise<T> {
    return (await (await this.#post(path, body)).json()) as T;
  }

  /** Reads the keys in [key, rangeEnd) (one key without rangeEnd), at `revision` (0: latest), at most `limit` (0: all). */
  async range(key: string, options: { rangeEnd?: string; revision?: number; limit?: number; countOnly?: boolean } = {}): Promise<EtcdRangeResult & { count: number }> {
    const body: Record<string, unknown> = { key: b64(key) };
    if (options.rangeEnd !== undefined) body.range_end = b64(options.rangeEnd);
    if (options.revision !== undefined && options.revision > 0) body.revision = String(options.revision);
    if (options.limit !== undefined && options.limit > 0) body.limit = String(options.limit);
    if (options.countOnly === true) body.count_only = true;
    const r = await this.#json<{ header: { revision: string }; kvs?: RawKv[]; more?: boolean; count?: string }>('/v3/kv/range', body);
    return { revision: num(r.header.revision), kvs: (r.kvs ?? []).map(kvOf), more: r.more === true, count: num(r.count) };
  }

  /** A transaction: if every compare holds, the success ops run, else the failure ops (clientv3.Txn). */
  async txn(compare: readonly EtcdCompare[], success: readonly EtcdOp[], failure: readonly EtcdOp[] = []): Promise<EtcdTxnResult> {
    const r = await this.#json<{ header: { revision: string }; succeeded?: boolean; responses?: Array<{ response_range?: { kvs?: RawKv[] } }> }>('/v3/kv/txn', { compare: compare.map(compareOf), success: success.map(opOf), failure: failure.map(opOf) });
    return { succeeded: r.succeeded === true, revision: num(r.header.revision), ranges: (r.responses ?? []).map((x) => (x.response_range?.kvs ?? []).map(kvOf)) };
  }

  /** Compacts the key-value history up to `revision` (clientv3.Compact). */
  async compact(revision: number): Promise<void> {
    await this.#json('/v3/kv/compaction', { revision: String(revision) });
  }

  /**
   * Watches every key in [key, rangeEnd) from `startRevision`, yielding each response's events in revision
   * order together with the response's header revision. Ends by throwing {@link EtcdCompactedError} when
   * `startRevision` was compacted, or {@link EtcdError} when the stream breaks; `signal` ends it quietly.
   */
  async *watch(key: string, rangeEnd: string, startRevision: number, signal: AbortSignal): AsyncGenerator<{ revision: number; events: EtcdEvent[] }> {
    const res = await this.#post('/v3/watch', { create_request: { key: b64(key), range_end: b64(rangeEnd), start_revision: String(startRevision) } }, signal);
    if (res.body === null) throw new EtcdError('etcd watch: no response body');
    const decoder = new TextDecoder();
    let buffered = '';
    try {
      for await (const chunk of res.body) {
        buffered += decoder.decode(chunk as Uint8Array, { stream: true });
        const lines = buffered.split('\n');
        buffered = lines.pop()!;
        for (const text of lines) {
          const line = text.trim();
          if (line === '') continue;
          const msg = JSON.parse(line) as { result?: { header?: { revision?: string }; created?: boolean; canceled?: boolean; compact_revision?: string; cancel_reason?: string; events?: Array<{ type?: string; kv: RawKv }> }; error?: { message?: string } };
          if (msg.error !== undefined) throw new EtcdError(`etcd watch: ${msg.error.message ?? JSON.stringify(msg.error)}`);
          const r = msg.result;
          if (r === undefined) continue;
          if (num(r.compact_revision) > 0) throw new EtcdCompactedError(num(r.compact_revision));
          if (r.canceled === true) throw new EtcdError(`etcd watch canceled: ${r.cancel_reason ?? ''}`);
          const events = (r.events ?? []).map((e): EtcdEvent => ({ type: e.type === 'DELETE' ? 'DELETE' : 'PUT', kv: kvOf(e.kv) }));
          yield { revision: num(r.header?.revision), events };
        }
      }
    } catch (err) {
      if (signal.aborted) return;
      throw err;
    }
    if (!signal.aborted) throw new EtcdError('etcd watch: stream ended');
  }
}
