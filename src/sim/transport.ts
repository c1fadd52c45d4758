/**
 * An in-process transport for kubeloom's REST client (src/rest/client.ts): an undici `Dispatcher` that
 * answers Kubernetes REST requests from the simulated cluster, each request and response, and each watch
 * event, being a step of the simulation's scheduler. With it, the real client-go stack — typed
 * clientsets, reflectors, shared informers, work queues, and kube-controller-manager's controllers
 * (src/controllers) — runs inside a simulation on the virtual clock, without sockets.
 *
 * Every request is served by the embedded API server's own handler (cluster.ts, src/apiserver/handler.ts),
 * in-process: what `startApiServer()` answers on the wire, this answers here, byte for byte (admission,
 * defaulting, validation, server-side apply, every patch type, subresources, selectors, pagination,
 * watches with bookmarks, timeouts and 410 Expired). Writes see the same perturbations as {@link apiCall}
 * (conflicts, 429/500, lost responses, delays); each event a watch writes is a step of the watch's lane,
 * held back by `watchDelay` or cut off by `watchDrop` (the connection closed, as by a server going away).
 */
import { Buffer } from 'node:buffer';
import { Dispatcher } from 'undici';
import { StatusError, newStatus, type Status } from '../apimachinery/errors.ts';
import { splitApiPath } from '../apiserver/handlers/request-info.ts';
import type { InProcessExchange } from '../apiserver/in-process.ts';
import { apiCall, serveRequest, ServerAnswerError, type Caller } from './api.ts';
import type { SimEnv } from './env.ts';

/** What a path names, for the trace and the lanes: `resource`, and `namespace/name` or `-n namespace`. */
function describe(pathname: string): { resource: string; object: string } {
  const parts = pathname.split('/').filter((p) => p !== '');
  const groupVersion = splitApiPath(parts);
  if (groupVersion === undefined) return { resource: pathname, object: '' };
  let rest = groupVersion.rest;
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [resource = '', name, sub] = rest;
  const object = name === undefined ? (namespace === undefined ? '' : ` -n ${namespace}`) : ` ${namespace === undefined ? '' : `${namespace}/`}${name}${sub === undefined ? '' : `/${sub}`}`;
  return { resource, object };
}

function bodyOf(body: Dispatcher.DispatchOptions['body']): Buffer | string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new StatusError(newStatus(400, 'BadRequest', 'the simulated transport takes string or buffer bodies only'));
}

function headersOf(headers: Dispatcher.DispatchOptions['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers === undefined || headers === null) return out;
  const add = (k: string, v: string | number | readonly string[] | undefined): void => {
    if (v !== undefined) out[k.toLowerCase()] = typeof v === 'object' ? v.join(', ') : String(v);
  };
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) add(String(headers[i]), headers[i + 1] as string | undefined);
  } else if (typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function') {
    for (const [k, v] of headers as Iterable<[string, string]>) add(k, v);
  } else for (const [k, v] of Object.entries(headers as Record<string, string | string[] | undefined>)) add(k, v);
  return out;
}

// The trace's view of a JSON watch line: its type, the object's namespace/name and resourceVersion.
const typePattern = /^\{"type":"([A-Z]+)"/;
const namePattern = /"name":"([^"]*)"/;
const namespacePattern = /"namespace":"([^"]*)"/;
const rvPattern = /"resourceVersion":"(\d*)"/;

function eventOf(line: string): string {
  const type = typePattern.exec(line)?.[1] ?? 'EVENT';
  const rv = rvPattern.exec(line)?.[1] ?? '';
  if (type === 'BOOKMARK') return `${type} rv=${rv}`;
  if (type === 'ERROR') return `ERROR ${/"code":(\d+)/.exec(line)?.[1] ?? ''} ${/"reason":"([A-Za-z]*)"/.exec(line)?.[1] ?? ''}`;
  const ns = namespacePattern.exec(line)?.[1];
  return `${type} ${ns === undefined ? '' : `${ns}/`}${namePattern.exec(line)?.[1] ?? ''} rv=${rv}`;
}

/**
 * The response controller undici's handlers are given. An abort before the response started is reported
 * to the handler as an error (what undici's own client does when it tears the request down), so the
 * caller's promise settles: a reflector that aborts a watch whose request was still on its way (a relist
 * requested meanwhile) would otherwise wait for it forever.
 */
class Control implements Dispatcher.DispatchController {
  aborted = false;
  paused = false;
  reason: Error | null = null;
  /** Set once the handler was given the response's start. */
  started = false;
  onAbort: (() => void) | undefined;
  readonly #handler: Dispatcher.DispatchHandler;
  constructor(handler: Dispatcher.DispatchHandler) {
    this.#handler = handler;
  }
  abort(reason: Error): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.onAbort?.();
    if (!this.started) this.#handler.onResponseError?.(this, reason);
  }
  pause(): void {
    this.paused = true;
  }
  resume(): void {
    this.paused = false;
  }
}

const jsonHeaders = { 'content-type': 'application/json' };

/**
 * The dispatcher: pass it as `RestClientOptions.dispatcher` of a RestClient (or `newClientset`), created
 * by {@link SimHarness.restClientOptions} inside a running simulation.
 */
export class SimDispatcher extends Dispatcher {
  readonly #env: SimEnv;
  readonly #caller: Caller;
  #watches = 0;
  // Ends every open watch stream; emptied by kill().
  readonly #open = new Set<() => void>();

  /**
   * Created by the simulation run ({@link SimHarness.restClientOptions}).
   * @param caller who sends the requests (names them in the trace; decides whether writes are perturbed).
   * @internal
   */
  constructor(env: SimEnv, caller: Caller) {
    super();
    this.#env = env;
    this.#caller = caller;
  }

  /** Ends every open watch without telling its reader, as a process that died stops hearing anything. */
  kill(): void {
    for (const end of [...this.#open]) end();
  }

  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const control = new Control(handler);
    handler.onRequestStart?.(control, {});
    if (control.aborted) return true;
    const path = opts.path;
    const url = new URL(path, 'http://sim.invalid');
    const method = String(opts.method).toUpperCase();
    const headers = headersOf(opts.headers);
    const answer = (status: number, h: Record<string, string | string[]>, body: Buffer | string): void => {
      control.started = true;
      handler.onResponseStart?.(control, status, h, '');
      handler.onResponseData?.(control, typeof body === 'string' ? Buffer.from(body) : body);
      handler.onResponseEnd?.(control, {});
    };
    const fail = (status: Status): void => answer(status.code ?? 500, jsonHeaders, JSON.stringify(status));
    const watch = method === 'GET' && (url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1');
    const { resource, object } = describe(url.pathname);
    if (watch) {
      this.#watch(path, headers, resource, url, control, handler);
      return true;
    }
    let body: Buffer | string | undefined;
    try {
      body = bodyOf(opts.body);
    } catch (err) {
      fail((err as StatusError).status);
      return true;
    }
    const label = `${method} ${resource}${object}`;
    // Events are never perturbed: the event recorder drops a failed event by design (and logs it), so
    // failing them would test nothing and bury the trace.
    const write = method !== 'GET' && resource !== 'events';
    apiCall(this.#env, this.#caller, label, write, () => serveRequest(this.#env, { method, path, headers, ...(body === undefined ? {} : { body }) })).then(
      (r) => {
        if (!control.aborted) answer(r.status, r.headers, r.body);
      },
      (err: unknown) => {
        if (control.aborted) return;
        if (err instanceof ServerAnswerError) answer(err.response.status, err.response.headers, err.response.body);
        else fail(err instanceof StatusError ? err.status : newStatus(500, 'InternalError', String(err)));
      },
    );
    return true;
  }

  /**
   * A watch: the API server's watch handler writes into the stream, and each event it writes (and its
   * bookmarks, and the end at its timeout) reaches the reader as a step of the watch's lane, where the
   * seed may hold it back (`watchDelay`) or close the connection before it (`watchDrop`).
   */
  #watch(path: string, headers: Record<string, string>, resource: string, url: URL, control: Control, handler: Dispatcher.DispatchHandler): void {
    const { sched, rates, limits, cluster } = this.#env;
    const caller = this.#caller.name;
    const lane = `${caller}/watch/${resource}/${this.#watches++}`;
    const rvText = url.searchParams.get('resourceVersion') ?? '';
    const namespace = describe(url.pathname).object;
    let exchange: InProcessExchange | undefined;
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      this.#open.delete(end);
      exchange?.abort();
      sched.dropLanes(lane);
    };
    this.#open.add(end);
    control.onAbort = end;
    const deliver = (chunk: Buffer, trace: string, activity: boolean): void => {
      const u = sched.decide('watchDelay', rates.watchDelay, (x) => `hold ${lane} for ${Math.round(x * limits.maxWatchDelayMs)}ms`);
      sched.post(
        lane,
        `watch ${lane} ${trace}`,
        () => {
          if (ended || control.aborted) return;
          if (sched.decide('watchDrop', rates.watchDrop, () => `close ${lane} before ${trace}`) !== undefined) {
            end();
            handler.onResponseEnd?.(control, {});
            return;
          }
          sched.log(`WATCH ${caller} ${resource} ${trace}`);
          if (activity) this.#env.activity();
          handler.onResponseData?.(control, chunk);
        },
        u === undefined ? 0 : Math.round(u * limits.maxWatchDelayMs),
      );
    };
    if (this.#caller.epoch() < 0) return;
    sched.post(lane, `watch request ${lane} rv=${rvText}`, () => {
      if (control.aborted || ended) return;
      this.#env.apiOps++;
      let streaming = false;
      let protobuf = false;
      let pending: Buffer = Buffer.alloc(0);
      exchange = cluster.serve(
        { method: 'GET', path, headers },
        {
          start: (status, h) => {
            control.started = true;
            streaming = status === 200;
            protobuf = String(h['content-type'] ?? '').includes('protobuf');
            sched.log(`API ${caller} WATCH ${resource}${namespace} rv=${rvText || '""'}${streaming ? '' : ` -> ${status}`}`);
            handler.onResponseStart?.(control, status, h, '');
          },
          data: (chunk) => {
            if (!streaming) {
              handler.onResponseData?.(control, chunk);
              return;
            }
            pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
            // One step per event: newline-delimited JSON, or length-prefixed protobuf frames.
            for (;;) {
              if (protobuf) {
                if (pending.length < 4) break;
                const n = pending.readUInt32BE(0) + 4;
                if (pending.length < n) break;
                deliver(pending.subarray(0, n), 'protobuf event', resource !== 'leases');
                pending = pending.subarray(n);
              } else {
                const nl = pending.indexOf(10);
                if (nl < 0) break;
                const line = pending.subarray(0, nl + 1);
                const trace = eventOf(line.toString('utf8'));
                deliver(line, trace, resource !== 'leases' && !trace.startsWith('BOOKMARK'));
                pending = pending.subarray(nl + 1);
              }
            }
          },
          end: () => {
            if (!streaming) {
              if (!ended) {
                ended = true;
                this.#open.delete(end);
              }
              handler.onResponseEnd?.(control, {});
              return;
            }
            // The server ended the watch (its timeout, a 410): the reader sees the end after the events before it.
            sched.post(lane, `watch end ${lane}`, () => {
              if (ended || control.aborted) return;
              sched.log(`WATCH ${caller} ${resource} closed by the server`);
              end();
              handler.onResponseEnd?.(control, {});
            });
          },
        },
      );
    });
  }

  override close(): Promise<void> {
    return Promise.resolve();
  }

  override destroy(): Promise<void> {
    return Promise.resolve();
  }
}
