/**
 * Serving one request through {@link ApiHandler} without a socket: the request is given as method, path,
 * headers and body, and the response comes back through a {@link ResponseSink} (status and headers, then
 * the body's chunks, then its end). kube-apiserver has its counterpart in the loopback client of its own
 * post-start hooks (a client over an in-memory connection); here the handler is called with minimal
 * stand-ins for node:http's IncomingMessage and ServerResponse, so every stage of the pipeline —
 * authentication, admission, defaulting, validation, server-side apply, patches, selectors, pagination,
 * watches with their bookmarks and timeouts — runs exactly as for a request on the wire.
 *
 * The deterministic simulator (src/sim/transport.ts) serves every simulated REST request this way, each
 * chunk of a watch response becoming a step of its scheduler.
 */
import { Buffer } from 'node:buffer';
import { EventEmitter } from 'node:events';
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { ApiHandler } from './handler.ts';

/** A request served in-process. */
export interface InProcessRequest {
  /** HTTP method, upper case. */
  readonly method: string;
  /** Path and query, e.g. `/api/v1/namespaces/default/pods?watch=true`. */
  readonly path: string;
  /** Request headers, lower-case names. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The body, if any. */
  readonly body?: Buffer | string;
}

/** Where the response goes. `start` comes once, before any `data`; `end` once, last (never after `close`). */
export interface ResponseSink {
  /** The status line and headers (lower-case names). */
  start(status: number, headers: Record<string, string | string[]>): void;
  /** A chunk of the body. */
  data(chunk: Buffer): void;
  /** The response is complete. */
  end(): void;
}

/** One request in flight: `abort()` is the client closing the connection (an open watch stops). */
export interface InProcessExchange {
  /** Closes the connection from the client's side: the handler sees 'close', as when a socket drops. */
  abort(): void;
}

// The part of ServerResponse the handler and WatchStream use.
class ResponseStandIn extends EventEmitter {
  statusCode = 200;
  headersSent = false;
  destroyed = false;
  writableEnded = false;
  readonly #headers = new Map<string, string | string[] | number>();
  readonly #sink: ResponseSink;
  constructor(sink: ResponseSink) {
    super();
    this.#sink = sink;
  }
  setHeader(name: string, value: string | string[] | number): this {
    this.#headers.set(name.toLowerCase(), value);
    return this;
  }
  getHeader(name: string): string | string[] | number | undefined {
    return this.#headers.get(name.toLowerCase());
  }
  removeHeader(name: string): void {
    this.#headers.delete(name.toLowerCase());
  }
  writeHead(status: number, reasonOrHeaders?: string | OutgoingHttpHeaders, headers?: OutgoingHttpHeaders): this {
    this.statusCode = status;
    const h = typeof reasonOrHeaders === 'object' ? reasonOrHeaders : headers;
    for (const [k, v] of Object.entries(h ?? {})) if (v !== undefined) this.setHeader(k, v as string | string[] | number);
    this.#start();
    return this;
  }
  flushHeaders(): void {
    this.#start();
  }
  #start(): void {
    if (this.headersSent || this.destroyed) return;
    this.headersSent = true;
    const out: Record<string, string | string[]> = {};
    for (const [k, v] of this.#headers) out[k] = typeof v === 'number' ? String(v) : v;
    this.#sink.start(this.statusCode, out);
  }
  write(chunk: string | Uint8Array, cb?: () => void): boolean {
    if (this.destroyed || this.writableEnded) return false;
    this.#start();
    this.#sink.data(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    if (cb !== undefined) queueMicrotask(cb);
    return true;
  }
  end(chunk?: string | Uint8Array): this {
    if (this.destroyed || this.writableEnded) return this;
    if (chunk !== undefined && chunk.length > 0) this.write(chunk);
    this.#start();
    this.writableEnded = true;
    this.#sink.end();
    this.emit('finish');
    this.emit('close');
    return this;
  }
  destroy(): this {
    if (this.destroyed) return this;
    this.destroyed = true;
    // A destroyed response ends the client's stream too (the connection is gone).
    if (!this.writableEnded) {
      this.writableEnded = true;
      if (this.headersSent) this.#sink.end();
    }
    this.emit('close');
    return this;
  }
  /** The client went away. */
  clientClosed(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.writableEnded = true;
    this.emit('close');
  }
}

/**
 * Serves `request` through `handler`, in this process: the response's parts reach `sink` as the handler
 * writes them (a watch keeps writing until it ends or is aborted).
 *
 * @example
 * ```ts
 * serveInProcess(handler, { method: 'GET', path: '/api/v1/namespaces' }, {
 *   start: (status) => console.log(status),
 *   data: (chunk) => console.log(chunk.toString()),
 *   end: () => undefined,
 * });
 * ```
 */
export function serveInProcess(handler: ApiHandler, request: InProcessRequest, sink: ResponseSink): InProcessExchange {
  const body = request.body === undefined ? Buffer.alloc(0) : typeof request.body === 'string' ? Buffer.from(request.body) : request.body;
  const headers: IncomingHttpHeaders = { ...request.headers };
  if (body.length > 0) headers['content-length'] = String(body.length);
  const rawHeaders = Object.entries(headers).flatMap(([k, v]) => (v === undefined ? [] : [k, String(v)]));
  // The part of IncomingMessage the handler uses: an async iterable body, headers, no TLS socket.
  const req = {
    method: request.method,
    url: request.path,
    headers,
    rawHeaders,
    socket: {},
    resume: () => undefined,
    async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {
      if (body.length > 0) yield body;
    },
  };
  const res = new ResponseStandIn(sink);
  handler.handle(req as unknown as IncomingMessage, res as unknown as ServerResponse);
  return { abort: () => res.clientClosed() };
}
