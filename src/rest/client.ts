/**
 * The REST client (rest.RESTClient + rest.Request's execution): sends {@link RestRequest}s built as
 * data to the API server through one pooled connection per config, adding authentication,
 * impersonation, the User-Agent, client-side rate limiting, Retry-After retries, timeouts, Warning
 * header handling and gzip decoding, and turning every error response into a StatusError.
 */
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import { request as undiciRequest, type Dispatcher } from 'undici';
import type { IncomingHttpHeaders } from 'undici/types/header.js';
import { isUnauthorized } from '../apimachinery/errors.ts';
import type { RequestOptions } from '../apimachinery/options.ts';
import type { Watch, WatchEvent } from '../apimachinery/watch.ts';
import { realClock, type Clock, type Timer } from '../util/clock/clock.ts';
import { kubeloomVersion } from '../version.ts';
import { DefaultBurst, DefaultQPS, type RestConfig, type RequestRateLimiter } from './config.ts';
import { InsecureCredentialsError, NetworkError, ReadIdleTimeoutError, RequestTimeoutError, ResponseDecodeError, WatchDecodeError, errorFromResponse, errorFromWatchStatus } from './errors.ts';
import { requestUrl, type RestRequest } from './request.ts';
import { TokenBucketRateLimiter, unlimitedRateLimiter } from './token-bucket.ts';
import { CachedTokenFile } from './token-file.ts';
import { ConfigError, newDispatcher, parseHost, tlsOptions, type ClientCertificate, type TransportOptions } from './transport.ts';
import { WarningLogger, parseWarningHeaders, type WarningHandler } from './warnings.ts';
import { WatchEventIterator } from './watch-event-iterator.ts';

/** client-go's default ceiling on Retry-After retries per request (Request.maxRetries). */
export const DefaultMaxRetries = 10;

/**
 * How long a non-streaming request may wait without receiving a byte of its response (headers or
 * body) before its connection is taken for half-open and closed. client-go talks HTTP/2 to API
 * servers and its connection health check closes a connection after 30 s without a frame
 * (ReadIdleTimeout, apimachinery util/net) plus 15 s without an answer to a ping (PingTimeout); an
 * HTTP/1.1 connection cannot be pinged while it carries a request, so the wait for its response is
 * bounded by the same 45 s.
 */
export const defaultReadIdleTimeoutMs = 45_000;

/** The default User-Agent: `kubeloom/<version> (node/<version>)`. */
export const defaultUserAgent = `kubeloom/${kubeloomVersion} (node/${process.versions.node})`;

// One process-wide deduplicating logger, as client-go's default warning handler is process-wide.
const defaultWarningHandler = new WarningLogger();

/** Options of {@link RestClient} that are not part of the connection config. */
export interface RestClientOptions {
  /** Time source for rate limiting, Retry-After waits and timeouts (default: the real clock). */
  clock?: Clock;
  /** Receives Warning headers (default: log each distinct warning once to stderr). */
  warningHandler?: WarningHandler;
  /** Retry-After retries per request (default 10, as client-go); 0 disables them. */
  maxRetries?: number;
  /** Use HTTP/2 with servers that offer it over TLS: every request multiplexed on one connection (default false). */
  allowH2?: boolean;
  /**
   * A non-streaming request (not a watch, not {@link RestClient.stream}) that receives no byte of its
   * response for this long is abandoned and its connection closed; a GET is then retried after 1 s on
   * a new connection, as client-go retries a GET whose connection was lost (default
   * {@link defaultReadIdleTimeoutMs}, 45 s; 0 disables it). Counted on the client's clock. Without it
   * a request sent on a pooled connection that went half-open waits for undici's 300 s headers timeout.
   * With `allowH2` only the request's stream is reset: the shared session is not replaced.
   */
  readIdleTimeoutMs?: number;
}

/**
 * What a connection that leaves the pooled HTTP client needs (a WebSocket or SPDY upgrade): the
 * request headers with authentication, impersonation and User-Agent, the TLS options with the
 * client certificate in force, and the proxy, all as the config says.
 */
export interface UpgradeSettings {
  /** Absolute URL of the request (http or https). */
  url: URL;
  /** Request headers: Authorization, Impersonate-*, User-Agent. Never log them. */
  headers: Record<string, string | string[]>;
  /** Node TLS options for `tls.connect` (see transport.ts's tlsOptions). */
  tls: Record<string, unknown>;
  /** The HTTP(S) proxy to tunnel through with CONNECT, when the config has one. */
  proxyUrl?: URL;
}

/** A completed response with its whole body. */
export interface RestResponse {
  /** HTTP status code. */
  statusCode: number;
  /** Response headers. */
  headers: IncomingHttpHeaders;
  /** The decoded (gunzipped) body. */
  body: Buffer;
}

/** A response whose body is being streamed (watches, followed logs). */
export interface StreamResponse {
  /** HTTP status code. */
  statusCode: number;
  /** Response headers. */
  headers: IncomingHttpHeaders;
  /** The decoded body. Destroy it (or abort the request's signal) to release the connection. */
  body: Readable;
}

/**
 * A watch in progress: an async iterable of events that may be iterated once. Breaking out of the
 * loop, calling {@link WatchStream.stop} or aborting the signal passed to `watch()` closes the
 * connection. When the server ends the stream, iteration ends; a transport failure mid-event or a
 * malformed line throws ({@link WatchDecodeError}); an abort throws the signal's reason.
 */
export interface WatchStream<T> extends Watch<T> {
  /** Closes the stream; a pending or later iteration ends. */
  stop(): void;
}

function headerValues(headers: IncomingHttpHeaders, name: string): string[] {
  const v = headers[name];
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

function firstHeader(headers: IncomingHttpHeaders, name: string): string | undefined {
  return headerValues(headers, name)[0];
}

/** Retry-After as whole seconds, when it is a valid integer (retryAfterSeconds upstream). */
function retryAfterSeconds(headers: IncomingHttpHeaders): number | undefined {
  const h = firstHeader(headers, 'retry-after');
  if (h === undefined || !/^\s*\d+\s*$/.test(h)) return undefined;
  return Number(h);
}

const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

function isLoopback(hostname: string): boolean {
  return loopbackHosts.has(hostname) || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

// Errors meaning the peer dropped the connection (net.IsConnectionReset / IsProbableEOF upstream).
const resetCodes = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

function isConnectionReset(err: unknown): boolean {
  for (let e: unknown = err, i = 0; e !== undefined && e !== null && i < 5; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && resetCodes.has(code)) return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && /other side closed|socket hang up|terminated/.test(message)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

function encodeExtraKey(key: string): string {
  // Header names cannot carry every character, so extra keys are percent-encoded (as client-go does).
  return encodeURIComponent(key).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Combines an optional caller signal with an internal controller (for timeouts and stop()). */
function linkSignals(outer: AbortSignal | undefined, inner: AbortController): () => void {
  if (outer === undefined) return () => undefined;
  if (outer.aborted) {
    inner.abort(outer.reason);
    return () => undefined;
  }
  const onAbort = (): void => inner.abort(outer.reason);
  outer.addEventListener('abort', onAbort, { once: true });
  return () => outer.removeEventListener('abort', onAbort);
}

function decodedBody(body: Readable, headers: IncomingHttpHeaders): Readable {
  const encoding = firstHeader(headers, 'content-encoding')?.toLowerCase();
  if (encoding !== 'gzip') return body;
  const gunzip = createGunzip();
  body.on('error', (err) => gunzip.destroy(err));
  gunzip.on('close', () => body.destroy());
  return body.pipe(gunzip);
}

async function readAll(body: Readable, onChunk?: () => void): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of body) {
    const buf = chunk as Buffer;
    onChunk?.();
    chunks.push(buf);
    length += buf.length;
  }
  return Buffer.concat(chunks, length);
}

/**
 * Aborts one attempt whose response stays silent for `ms` (no headers, then no body bytes). One
 * timer per attempt, re-armed for the remaining time rather than reset on every chunk.
 */
class ReadIdleGuard {
  readonly #clock: Clock;
  readonly #ms: number;
  readonly #describe: string;
  readonly #controller = new AbortController();
  #last: number;
  #timer: Timer | undefined;
  /** Set once the guard fired. */
  error: ReadIdleTimeoutError | undefined;

  constructor(clock: Clock, ms: number, describe: string) {
    this.#clock = clock;
    this.#ms = ms;
    this.#describe = describe;
    this.#last = clock.now();
    this.#timer = clock.afterFunc(ms, this.#check);
  }

  /** Aborted (with a {@link ReadIdleTimeoutError}) when the guard fires. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  readonly #check = (): void => {
    const idle = this.#clock.since(this.#last);
    if (idle < this.#ms) {
      this.#timer = this.#clock.afterFunc(this.#ms - idle, this.#check);
      return;
    }
    this.#timer = undefined;
    this.error = new ReadIdleTimeoutError(this.#describe, this.#ms);
    this.#controller.abort(this.error);
  };

  /** Response bytes arrived. */
  touch(): void {
    this.#last = this.#clock.now();
  }

  stop(): void {
    this.#timer?.stop();
    this.#timer = undefined;
  }
}

/** A 2xx response from {@link RestClient}'s send loop, with the idle guard still watching its body. */
interface SentResponse extends StreamResponse {
  idle: ReadIdleGuard | undefined;
}

/**
 * Talks to one API server. Create one per {@link RestConfig} and share it: it owns the connection
 * pool and the rate limiter. {@link RestClient.close} releases the connections.
 *
 * @example
 * const client = new RestClient({ host: 'https://127.0.0.1:6443', bearerToken, tls: { caData } });
 * const pod = await client.json<Pod>(buildGet({ group: '', version: 'v1', namespace: 'default', resource: 'pods', name: 'web' }));
 */
export class RestClient {
  /** The configuration the client was built from. */
  readonly config: RestConfig;
  readonly #base: URL;
  readonly #clock: Clock;
  readonly #limiter: RequestRateLimiter;
  readonly #warnings: WarningHandler;
  readonly #maxRetries: number;
  readonly #readIdleTimeoutMs: number;
  readonly #tokenFile: CachedTokenFile | undefined;
  readonly #dispatcher: Dispatcher;
  readonly #transport: TransportOptions;
  // A second pool for a client certificate supplied by the credential provider (replaced on rotation).
  #certDispatcher: { key: string; dispatcher: Dispatcher } | undefined;
  #closed = false;

  constructor(config: RestConfig, options: RestClientOptions = {}) {
    this.config = config;
    this.#base = parseHost(config);
    this.#clock = options.clock ?? realClock;
    this.#warnings = options.warningHandler ?? defaultWarningHandler;
    this.#maxRetries = Math.max(0, options.maxRetries ?? DefaultMaxRetries);
    this.#readIdleTimeoutMs = Math.max(0, options.readIdleTimeoutMs ?? defaultReadIdleTimeoutMs);
    const qps = config.qps ?? DefaultQPS;
    this.#limiter = config.rateLimiter ?? (qps < 0 ? unlimitedRateLimiter : new TokenBucketRateLimiter({ qps: qps === 0 ? DefaultQPS : qps, burst: config.burst || DefaultBurst, clock: this.#clock }));
    this.#tokenFile = config.bearerTokenFile !== undefined && config.bearerTokenFile !== '' ? new CachedTokenFile(config.bearerTokenFile, this.#clock) : undefined;
    this.#transport = options.allowH2 === true ? { allowH2: true } : {};
    this.#dispatcher = newDispatcher(config, undefined, this.#transport);
  }

  /** Inspection shows where the client points, never its credentials. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `RestClient { host: '${this.baseUrl}' }`;
  }

  /** JSON form without credentials (for logs). */
  toJSON(): {
    /** The base URL. */
    host: string;
  } {
    return { host: this.baseUrl };
  }

  /** The clock this client waits on. */
  get clock(): Clock {
    return this.#clock;
  }

  /** The base URL requests are sent to (scheme, host and optional path prefix). */
  get baseUrl(): string {
    return this.#base.toString().replace(/\/$/, '');
  }

  /** Closes the pooled connections. Requests in flight are allowed to finish. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all([this.#dispatcher.close(), this.#certDispatcher?.dispatcher.close()]);
  }

  /**
   * Sends `req` and reads the whole response. Resolves for 2xx responses; rejects with a
   * {@link apimachinery!StatusError} for any other status, {@link NetworkError} when no response arrived,
   * {@link RequestTimeoutError} on timeout, {@link ReadIdleTimeoutError} when the response stayed
   * silent past the read idle timeout (GETs are first retried), or the signal's reason when aborted.
   */
  async do(req: RestRequest, options: RequestOptions = {}): Promise<RestResponse> {
    const timeoutMs = options.timeoutMs || this.config.timeoutMs || 0;
    const controller = new AbortController();
    const unlink = linkSignals(options.signal, controller);
    // As client-go, the first throttle happens before the timeout starts: a throttled client does not
    // time out before it sends anything.
    try {
      if (!req.watch) await this.#limiter.wait(controller.signal);
    } catch (err) {
      unlink();
      throw err;
    }
    let timedOut: RequestTimeoutError | undefined;
    const timer =
      timeoutMs > 0
        ? this.#clock.afterFunc(timeoutMs, () => {
            timedOut = new RequestTimeoutError(this.#describe(req), timeoutMs);
            controller.abort(timedOut);
          })
        : undefined;
    let idle: ReadIdleGuard | undefined;
    try {
      const resp = await this.#send(req, controller.signal, req.watch ? 0 : this.#readIdleTimeoutMs);
      idle = resp.idle;
      const guard = idle;
      const body = await readAll(resp.body, guard === undefined ? undefined : () => guard.touch()).catch((err: unknown) => {
        if (controller.signal.aborted) throw controller.signal.reason;
        throw guard?.error ?? new NetworkError(this.#describe(req), err);
      });
      return { statusCode: resp.statusCode, headers: resp.headers, body };
    } catch (err) {
      if (timedOut !== undefined) throw timedOut;
      throw err;
    } finally {
      idle?.stop();
      timer?.stop();
      unlink();
    }
  }

  /** Sends `req` and parses the JSON response body (see {@link RestClient.do} for errors). */
  async json<T>(req: RestRequest, options?: RequestOptions): Promise<T> {
    const resp = await this.do(req, options);
    if (resp.body.length === 0) throw new ResponseDecodeError(`${this.#describe(req)}: empty response body (status ${resp.statusCode})`);
    try {
      return JSON.parse(resp.body.toString('utf8')) as T;
    } catch (err) {
      throw new ResponseDecodeError(`${this.#describe(req)}: response is not valid JSON`, { cause: err });
    }
  }

  /**
   * Sends `req` and resolves once a 2xx response's headers arrived, handing over the streaming body.
   * Aborting `options.signal` ends the body with the signal's reason.
   */
  async stream(req: RestRequest, options: RequestOptions = {}): Promise<StreamResponse> {
    if (!req.watch) await this.#limiter.wait(options.signal);
    const controller = new AbortController();
    const unlink = linkSignals(options.signal, controller);
    try {
      const { statusCode, headers, body } = await this.#send(req, controller.signal);
      body.once('close', unlink);
      return { statusCode, headers, body };
    } catch (err) {
      unlink();
      throw err;
    }
  }

  /**
   * The settings for an upgraded connection to `req`'s URL (client-go's transport.HTTPWrappersForConfig
   * around a WebSocket or SPDY round tripper): the same authentication, impersonation, TLS and proxy
   * as every other request, after waiting for the client-side rate limiter.
   */
  async upgradeSettings(req: RestRequest, signal?: AbortSignal): Promise<UpgradeSettings> {
    await this.#limiter.wait(signal);
    const headers: Record<string, string | string[]> = { ...req.headers, 'user-agent': this.config.userAgent ?? defaultUserAgent };
    const cert = await this.#credentials(headers, signal ?? new AbortController().signal);
    const settings: UpgradeSettings = { url: new URL(requestUrl(this.baseUrl, req)), headers, tls: tlsOptions(this.config.tls, cert ?? this.#configCertificate()) };
    const proxy = this.config.proxyUrl;
    if (proxy !== undefined && proxy !== '') {
      try {
        settings.proxyUrl = new URL(proxy);
      } catch {
        throw new ConfigError(`proxyUrl "${proxy}" is not a valid URL`);
      }
    }
    return settings;
  }

  #configCertificate(): ClientCertificate | undefined {
    const tls = this.config.tls;
    if ((tls?.certData ?? '') === '' || (tls?.keyData ?? '') === '') return undefined;
    return { certData: tls!.certData!, keyData: tls!.keyData! };
  }

  /**
   * Opens a watch (`req` from buildWatch). Resolves once the server answered 200; rejects with a
   * StatusError otherwise. ERROR events are yielded as `{ type: 'ERROR', object: Status }`; wrap the
   * stream with {@link raiseWatchErrors} to have them thrown as StatusErrors instead.
   */
  async watch<T>(req: RestRequest, options: RequestOptions = {}): Promise<WatchStream<T>> {
    const controller = new AbortController();
    const unlink = linkSignals(options.signal, controller);
    let resp: StreamResponse;
    try {
      resp = await this.#send({ ...req, watch: true, stream: true }, controller.signal);
    } catch (err) {
      unlink();
      throw err;
    }
    const describe = this.#describe(req);
    const body = resp.body;
    let stopped = false;
    const stop = (): void => {
      stopped = true;
      body.destroy();
    };
    const iterable = new WatchEventIterator<T>({
      chunks: (body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator](),
      readError: (err, midEvent) => {
        if (controller.signal.aborted) return controller.signal.reason as unknown;
        if (stopped) return undefined;
        // The connection dropped: fine between events (the caller re-watches), an error mid-event.
        if (midEvent) return new WatchDecodeError(`${describe}: watch stream cut in the middle of an event`, { cause: err });
        if (isConnectionReset(err)) return undefined;
        return new NetworkError(describe, err);
      },
      stopped: () => stopped,
      cleanup: () => {
        unlink();
        body.destroy();
      },
    });
    return {
      stop,
      [Symbol.asyncIterator]: () => iterable,
    };
  }

  #describe(req: RestRequest): string {
    return `${req.verb} ${requestUrl(this.baseUrl, req)}`;
  }

  async #dispatcherFor(cert: ClientCertificate | undefined): Promise<Dispatcher> {
    if (cert === undefined) return this.#dispatcher;
    const key = `${cert.certData}\u0000${cert.keyData}`;
    if (this.#certDispatcher?.key === key) return this.#certDispatcher.dispatcher;
    const previous = this.#certDispatcher?.dispatcher;
    this.#certDispatcher = { key, dispatcher: newDispatcher(this.config, cert, this.#transport) };
    // Requests already on the old pool finish; the pool then closes.
    if (previous !== undefined) void previous.close().catch(() => undefined);
    return this.#certDispatcher.dispatcher;
  }

  /** Authentication and identity headers for one attempt; also picks the pool (client certificates). */
  async #authenticate(headers: Record<string, string | string[]>, signal: AbortSignal): Promise<Dispatcher> {
    return this.#dispatcherFor(await this.#credentials(headers, signal));
  }

  /** Adds authentication and impersonation headers; returns the provider's client certificate, if any. */
  async #credentials(headers: Record<string, string | string[]>, signal: AbortSignal): Promise<ClientCertificate | undefined> {
    const c = this.config;
    let cert: ClientCertificate | undefined;
    let authorization: string | undefined;
    if (c.credentialProvider !== undefined) {
      const creds = await c.credentialProvider.getCredentials(signal);
      if (creds.token !== undefined && creds.token !== '') authorization = `Bearer ${creds.token}`;
      if (creds.clientCertificateData !== undefined && creds.clientKeyData !== undefined && creds.clientCertificateData !== '') {
        cert = { certData: creds.clientCertificateData, keyData: creds.clientKeyData };
      }
    }
    if (authorization === undefined) {
      if (this.#tokenFile !== undefined) authorization = `Bearer ${await this.#tokenFile.token()}`;
      else if (c.bearerToken !== undefined && c.bearerToken !== '') authorization = `Bearer ${c.bearerToken}`;
      else if (c.username !== undefined && c.username !== '') {
        authorization = `Basic ${Buffer.from(`${c.username}:${c.password ?? ''}`).toString('base64')}`;
      }
    }
    if (authorization !== undefined) {
      if (this.#base.protocol === 'http:' && !isLoopback(this.#base.hostname) && c.allowInsecureCredentials !== true) {
        throw new InsecureCredentialsError(this.#base.host);
      }
      headers['authorization'] = authorization;
    }
    const imp = c.impersonate;
    if (imp !== undefined) {
      if (imp.userName !== undefined && imp.userName !== '') headers['impersonate-user'] = imp.userName;
      if (imp.uid !== undefined && imp.uid !== '') headers['impersonate-uid'] = imp.uid;
      if (imp.groups !== undefined && imp.groups.length > 0) headers['impersonate-group'] = [...imp.groups];
      for (const [k, values] of Object.entries(imp.extra ?? {})) headers[`impersonate-extra-${encodeExtraKey(k)}`] = [...values];
    }
    return cert;
  }

  /**
   * One logical request: attempts with Retry-After retries (429 and 5xx with a valid header, up to
   * maxRetries, any verb since bodies are replayable), connection-reset retries for GETs (an implied
   * Retry-After of 1 s), and one retry with fresh credentials after a 401 when a credential provider
   * is configured. Resolves with a 2xx response whose body is still unread.
   *
   * With `readIdleMs` > 0 each attempt is abandoned when no byte of its response arrives for that
   * long (aborting an undici request destroys its socket, so the half-open connection leaves the
   * pool); a GET is then retried like one whose connection was reset. The returned guard keeps
   * watching the body until the caller stops it.
   */
  async #send(req: RestRequest, signal: AbortSignal, readIdleMs = 0): Promise<SentResponse> {
    const url = requestUrl(this.baseUrl, req);
    const describe = `${req.verb} ${url}`;
    let attempts = 0;
    let reauthenticated = false;
    for (;;) {
      if (signal.aborted) throw signal.reason;
      const headers: Record<string, string | string[]> = {
        ...req.headers,
        'user-agent': this.config.userAgent ?? defaultUserAgent,
        'accept-encoding': 'gzip',
      };
      const dispatcher = await this.#authenticate(headers, signal);
      const idle = readIdleMs > 0 ? new ReadIdleGuard(this.#clock, readIdleMs, describe) : undefined;
      let resp: Dispatcher.ResponseData;
      try {
        const attemptSignal = idle === undefined ? signal : AbortSignal.any([signal, idle.signal]);
        resp = await undiciRequest(url, { dispatcher, method: req.verb, headers, body: req.body ?? null, signal: attemptSignal });
      } catch (err) {
        idle?.stop();
        if (signal.aborted) throw signal.reason;
        const lost = idle?.error;
        // A GET whose connection was reset or went silent is safe to send again (on a new connection).
        if (req.verb === 'GET' && (lost !== undefined || isConnectionReset(err)) && attempts < this.#maxRetries) {
          attempts++;
          await this.#retryWait(1, signal);
          continue;
        }
        throw lost ?? new NetworkError(describe, err);
      }
      idle?.touch();
      const code = resp.statusCode;
      const body = decodedBody(resp.body, resp.headers);
      for (const w of parseWarningHeaders(headerValues(resp.headers, 'warning'))) this.#warnings.handleWarning(w);
      if (code >= 200 && code < 300) return { statusCode: code, headers: resp.headers, body, idle };

      let raw: Buffer;
      try {
        raw = await readAll(body, idle === undefined ? undefined : () => idle.touch());
      } catch {
        // A truncated error body still yields an error built from the status code.
        if (signal.aborted) throw signal.reason;
        raw = Buffer.alloc(0);
      } finally {
        idle?.stop();
      }
      if (code === 401 && this.config.credentialProvider !== undefined && !reauthenticated) {
        reauthenticated = true;
        this.config.credentialProvider.invalidate();
        continue;
      }
      const wait = retryAfterSeconds(resp.headers);
      if ((code === 429 || (code >= 500 && code < 600)) && wait !== undefined && attempts < this.#maxRetries) {
        attempts++;
        await this.#retryWait(wait, signal);
        continue;
      }
      const ct = firstHeader(resp.headers, 'content-type');
      const error = errorFromResponse({ statusCode: code, body: raw, ...(ct !== undefined ? { contentType: ct } : {}), ...(wait !== undefined ? { retryAfterSeconds: wait } : {}) });
      if (isUnauthorized(error) && this.#tokenFile !== undefined) this.#tokenFile.invalidate();
      throw error;
    }
  }

  async #retryWait(seconds: number, signal: AbortSignal): Promise<void> {
    if (seconds > 0) await this.#clock.sleep(seconds * 1000, signal);
    // A retry is a new request as far as the client-side limiter is concerned (withRetry.Before).
    await this.#limiter.wait(signal);
  }
}

/**
 * Re-yields a watch's events, throwing an ERROR event's Status as a {@link apimachinery!StatusError}
 * (410 Gone → `isExpired(err)`) instead of yielding it. Breaking out closes the underlying watch.
 */
export async function* raiseWatchErrors<T>(watch: Watch<T>): AsyncGenerator<Exclude<WatchEvent<T>, { type: 'ERROR' }>, void, undefined> {
  for await (const event of watch) {
    if (event.type === 'ERROR') throw errorFromWatchStatus(event.object);
    yield event;
  }
}
