/**
 * The REST client (rest.RESTClient + rest.Request's execution): sends {@link RestRequest}s built as
 * data to the API server through one pooled connection per config, adding authentication,
 * impersonation, the User-Agent, client-side rate limiting, Retry-After retries, timeouts, Warning
 * header handling and gzip decoding, and turning every error response into a StatusError.
 */
import { startClientSpan } from '../tracing/http-spans.ts';
import { noteWrite, writtenResourceVersion } from '../tracing/write-context.ts';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import { request as undiciRequest, type Dispatcher } from 'undici';
import type { IncomingHttpHeaders } from 'undici/types/header.js';
import { StatusError, isStatusObject } from '../apimachinery/errors.ts';
import type { DecodeOptions, RequestOptions } from '../apimachinery/options.ts';
import type { Watch, WatchEvent } from '../apimachinery/watch.ts';
import { realClock, type Clock, type Timer } from '../util/clock/clock.ts';
import { kubeloomVersion } from '../version.ts';
import { DefaultBurst, DefaultQPS, type Credentials, type RestConfig, type RequestRateLimiter } from './config.ts';
import { ClientClosedError, GettingCredentialsError, InsecureCredentialsError, NetworkError, ReadIdleTimeoutError, RequestTimeoutError, ResponseDecodeError, WatchDecodeError, errorFromResponse, errorFromWatchStatus } from './errors.ts';
import { requestUrl, type RestRequest } from './request.ts';
import { TokenBucketRateLimiter, unlimitedRateLimiter } from './token-bucket.ts';
import { CachedTokenFile } from './token-file.ts';
import { ConfigError, newDispatcher, parseHost, tlsOptions, type ClientCertificate, type TransportOptions } from './transport.ts';
import { WarningLogger, parseWarningHeaders, type WarningHandler } from './warnings.ts';
import { ListStreamDecoder, type ListEnvelope } from './list-decoder.ts';
import { ManagedFieldsInterner } from './managed-fields-interner.ts';
import { WatchEventIterator } from './watch-event-iterator.ts';
import { Reachability, isUnreachableError } from './reachability.ts';
import { decodeBody, isProtobufContentType, negotiatedAccept, negotiatedBody } from './content-negotiation.ts';
import { ProtobufListDecoder } from './protobuf-list-decoder.ts';
import { ProtobufWatchDecoder } from './protobuf-watch-decoder.ts';

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
   * Send every request through this undici Dispatcher instead of the client's connection pools: an
   * in-process transport, such as kubeloom/sim's SimDispatcher. Default: pools per the config.
   */
  dispatcher?: Dispatcher;
  /**
   * A non-streaming request (not a watch, not {@link RestClient.stream}) that receives no byte of its
   * response for this long is abandoned and its connection closed; a GET is then retried after 1 s on
   * a new connection, as client-go retries a GET whose connection was lost (default
   * {@link defaultReadIdleTimeoutMs}, 45 s; 0 disables it). Counted on the client's clock. Without it
   * a request sent on a pooled connection that went half-open waits for ever (the transport has no
   * headers or body timeout, as client-go's has none).
   * With `allowH2` only the request's stream is reset: the shared session is not replaced.
   */
  readIdleTimeoutMs?: number;
  /**
   * Let the reflectors of this client come back together after an outage: the first request that gets
   * an answer, or a bounded-rate readiness probe, ends their backoff waits ({@link Reachability}).
   * Default true; false keeps client-go's behaviour (each reflector sits out its own backoff).
   */
  wakeOnReachable?: boolean;
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
  /**
   * The decoded body. Destroy it (or abort the request's signal) to release the connection; that is
   * safe at any time. Read it by iteration or pipeline(), which report its failures.
   */
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

function ignoreStreamError(): void {}

function decodedBody(body: Readable, headers: IncomingHttpHeaders): Readable {
  const encoding = firstHeader(headers, 'content-encoding')?.toLowerCase();
  if (encoding !== 'gzip') return body;
  // 64 KiB output chunks (zlib's default is 16 KiB): a quarter of the callbacks and decoder calls for a large LIST.
  const gunzip = createGunzip({ chunkSize: 64 * 1024 });
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
 * Refuses configs client-go refuses: a bearer token together with basic auth
 * (transport.HTTPWrappersForConfig), and a positive QPS without a positive burst when no limiter is
 * given (kubernetes.NewForConfigAndClient: a token bucket with no burst never lets a request through).
 */
function validateConfig(config: RestConfig): void {
  const hasToken = (config.bearerToken ?? '') !== '' || (config.bearerTokenFile ?? '') !== '';
  if (hasToken && (config.username ?? '') !== '') throw new ConfigError('username/password or bearer token may be set, but not both');
  if (config.rateLimiter === undefined && (config.qps ?? 0) > 0 && (config.burst ?? 0) <= 0) {
    throw new ConfigError('burst is required to be greater than 0 when rateLimiter is not set and qps is set to greater than 0');
  }
}

/** The default limiter of a config (rest.RESTClientForConfigAndClient): qps 0 means 5, burst 0 means 10, negative qps none. */
export function newRateLimiter(config: Pick<RestConfig, 'qps' | 'burst'>, clock: Clock): RequestRateLimiter {
  const qps = config.qps || DefaultQPS;
  if (qps < 0) return unlimitedRateLimiter;
  return new TokenBucketRateLimiter({ qps, burst: config.burst || DefaultBurst, clock });
}

/**
 * A duration as Go's time.Duration.String() writes it (`500ms`, `30s`, `1m30s`, `1h0m0s`): the
 * form client-go sends in the `timeout` query parameter, which the API server parses with
 * time.ParseDuration.
 */
export function formatGoDuration(ms: number): string {
  let ns = Math.round(ms * 1e6);
  if (ns === 0) return '0s';
  const sign = ns < 0 ? '-' : '';
  ns = Math.abs(ns);
  const fraction = (value: number, digits: number): string => {
    const whole = Math.floor(value / 10 ** digits);
    const rest = String(value % 10 ** digits).padStart(digits, '0').replace(/0+$/, '');
    return rest === '' ? String(whole) : `${whole}.${rest}`;
  };
  if (ns < 1e3) return `${sign}${ns}ns`;
  if (ns < 1e6) return `${sign}${fraction(ns, 3)}µs`;
  if (ns < 1e9) return `${sign}${fraction(ns, 6)}ms`;
  const hours = Math.floor(ns / 3.6e12);
  const minutes = Math.floor((ns % 3.6e12) / 6e10);
  const seconds = fraction(ns % 6e10, 9);
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

/** The smaller of two timeouts, ignoring those that are not positive (0: none). */
function minPositive(a: number, b: number): number {
  if (a <= 0) return Math.max(b, 0);
  if (b <= 0) return a;
  return Math.min(a, b);
}

/** `req` with the `timeout` query parameter set to `ms` (rest.Request.URL: query.Set, replacing any). */
function withTimeoutParam(req: RestRequest, ms: number): RestRequest {
  const query = req.query.filter(([k]) => k !== 'timeout');
  query.push(['timeout', formatGoDuration(ms)]);
  query.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return { ...req, query };
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
 * The connections and token file one RestClient owns and the clients derived from it
 * ({@link RestClient.withConfig}) share, as client-go's clients built from one rest.Config share one
 * http.Client.
 */
class ConnectionPool {
  readonly dispatcher: Dispatcher;
  /** Set by the RestClient that created the pool (it holds the probe). */
  reachability!: Reachability;
  readonly tokenFile: CachedTokenFile | undefined;
  readonly #config: RestConfig;
  readonly #transport: TransportOptions;
  // A second pool for a client certificate supplied by the credential provider (replaced on rotation).
  #certDispatcher: { key: string; dispatcher: Dispatcher } | undefined;
  #closed = false;
  // What close() ends: one entry per request, stream, watch or upgraded connection still open.
  readonly #open = new Set<() => void>();

  constructor(config: RestConfig, transport: TransportOptions, clock: Clock) {
    this.#config = config;
    this.#transport = transport;
    this.dispatcher = newDispatcher(config, undefined, transport);
    this.tokenFile = config.bearerTokenFile !== undefined && config.bearerTokenFile !== '' ? new CachedTokenFile(config.bearerTokenFile, clock) : undefined;
  }

  dispatcherFor(cert: ClientCertificate | undefined): Dispatcher {
    if (cert === undefined) return this.dispatcher;
    const key = `${cert.certData}\u0000${cert.keyData}`;
    if (this.#certDispatcher?.key === key) return this.#certDispatcher.dispatcher;
    const previous = this.#certDispatcher?.dispatcher;
    this.#certDispatcher = { key, dispatcher: newDispatcher(this.#config, cert, this.#transport) };
    // Requests already on the old pool finish; the pool then closes.
    if (previous !== undefined) void previous.close().catch(() => undefined);
    return this.#certDispatcher.dispatcher;
  }

  /** True once close() was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Registers something close() must end (`end` gets the error to end it with); returns the
   * unregistration, to call once it ended by itself. Throws a ClientClosedError after close().
   */
  track(describe: string, end: (reason: ClientClosedError) => void): () => void {
    if (this.#closed) throw new ClientClosedError(describe);
    const entry = (): void => end(new ClientClosedError(describe));
    this.#open.add(entry);
    return () => void this.#open.delete(entry);
  }

  /**
   * Ends everything still open, then closes the connections. Without the first step undici's close()
   * would wait for every response to end, so one open watch kept it pending until a timeout cut it.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.reachability.close();
    const open = [...this.#open];
    this.#open.clear();
    for (const end of open) end();
    await Promise.all([this.dispatcher.close(), this.#certDispatcher?.dispatcher.close()]);
  }
}

/** The settings a derived client ({@link RestClient.withConfig}) may change: everything but the connection. */
export type RestClientOverrides = Pick<RestConfig, 'qps' | 'burst' | 'rateLimiter' | 'timeoutMs' | 'userAgent' | 'acceptContentTypes' | 'contentType'>;

// Set while withConfig() constructs a derived client, which then shares this pool instead of opening its own.
let inheritedPool: ConnectionPool | undefined;
// Set alongside: the client it is derived from, whose request observers it inherits.
let inheritedParent: RestClient | undefined;

/** One HTTP attempt, as {@link RestClient.observeRequests} reports it. */
export interface RequestObservation {
  /** The HTTP method. */
  readonly method: string;
  /** The status code, or '<error>' when no response came (client-go's convention). */
  readonly code: string;
  /** The server's host:port. */
  readonly host: string;
  /** Seconds until the response headers arrived (or the attempt failed). */
  readonly seconds: number;
  /**
   * The bytes of the request body sent: client-go's `RequestSize`, 0 for a request without a body;
   * undefined for an empty body (Go's request then carries http.NoBody, whose length client-go
   * counts as unknown).
   */
  readonly requestBytes: number | undefined;
  /**
   * The response's Content-Length, when it has one and the body is not compressed (client-go's
   * `ResponseSize`: Go's http.Response.ContentLength is unknown, -1, for a chunked response and for
   * one the transport decompressed); undefined otherwise, and when no response came.
   */
  readonly responseBytes: number | undefined;
}

/** One wait for the client-side rate limiter, as {@link RestClient.observeRateLimiter} reports it. */
export interface RateLimiterObservation {
  /** The HTTP method of the request that waited. */
  readonly verb: string;
  /** The server's host:port. */
  readonly host: string;
  /** Seconds spent waiting for the limiter (client-go's `RateLimiterLatency`). */
  readonly seconds: number;
}

/** Called after every wait for the client-side rate limiter of a {@link RestClient}. */
export type RateLimiterObserver = (observation: RateLimiterObservation) => void;

/** Called after every HTTP attempt of a {@link RestClient}. */
export type RequestObserver = (observation: RequestObservation) => void;

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
  readonly #options: RestClientOptions;
  readonly #base: URL;
  /** Observers of every HTTP attempt added to this client (see {@link RestClient.observeRequests}). */
  #requestObservers: RequestObserver[] = [];
  /** Observers of every rate limiter wait added to this client (see {@link RestClient.observeRateLimiter}). */
  #limiterObservers: RateLimiterObserver[] = [];
  /** The client this one was derived from with withConfig: its observers see this client's requests too. */
  readonly #parent: RestClient | undefined;
  readonly #clock: Clock;
  readonly #limiter: RequestRateLimiter;
  readonly #warnings: WarningHandler;
  readonly #maxRetries: number;
  readonly #readIdleTimeoutMs: number;
  readonly #tokenFile: CachedTokenFile | undefined;
  /**
   * Whether the credential provider is consulted: only when the config has no token, basic auth or
   * client certificate of its own (exec.Authenticator.UpdateTransportConfig steps aside for those).
   */
  readonly #useCredentialProvider: boolean;
  readonly #pool: ConnectionPool;
  /** False for a client derived with withConfig: the pool belongs to the client it came from. */
  readonly #ownsPool: boolean;
  /** Shared fieldsV1 values of the lists and watches decoded with `internManagedFields`. */
  #interner: ManagedFieldsInterner | undefined;

  constructor(config: RestConfig, options: RestClientOptions = {}) {
    this.config = config;
    this.#options = options;
    this.#base = parseHost(config);
    this.#clock = options.clock ?? realClock;
    this.#warnings = options.warningHandler ?? defaultWarningHandler;
    this.#maxRetries = Math.max(0, options.maxRetries ?? DefaultMaxRetries);
    this.#readIdleTimeoutMs = Math.max(0, options.readIdleTimeoutMs ?? defaultReadIdleTimeoutMs);
    validateConfig(config);
    this.#limiter = config.rateLimiter ?? newRateLimiter(config, this.#clock);
    const hasStaticCredentials =
      (config.bearerToken ?? '') !== '' || (config.bearerTokenFile ?? '') !== '' || (config.username ?? '') !== '' || ((config.tls?.certData ?? '') !== '' && (config.tls?.keyData ?? '') !== '');
    this.#useCredentialProvider = config.credentialProvider !== undefined && !hasStaticCredentials;
    this.#ownsPool = inheritedPool === undefined;
    this.#parent = inheritedPool === undefined ? undefined : inheritedParent;
    this.#pool = inheritedPool ?? new ConnectionPool(config, { ...(options.allowH2 === true ? { allowH2: true } : {}), ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }) }, this.#clock);
    if (inheritedPool === undefined) {
      const proxied = config.proxyUrl !== undefined && config.proxyUrl !== '';
      // A custom dispatcher (e.g. the simulator's in-process transport) has no TCP endpoint to probe.
      const direct = !proxied && options.dispatcher === undefined;
      const port = this.#base.port !== '' ? Number(this.#base.port) : this.#base.protocol === 'https:' ? 443 : 80;
      this.#pool.reachability = new Reachability({
        clock: this.#clock,
        ...(direct ? { tcpTarget: { host: this.#base.hostname.replace(/^\[(.*)\]$/, '$1'), port } } : {}),
        httpProbe: (signal) => this.#probeReadyz(signal),
        wake: options.wakeOnReachable ?? true,
      });
    }
    this.#tokenFile = this.#pool.tokenFile;
  }

  /**
   * A client for the same server over the same connections, with other rate limiting, default
   * timeout or User-Agent (what client-go gets from a copied rest.Config and a shared http.Client;
   * the discovery client uses it for its own limiter). Its {@link RestClient.close} does nothing:
   * the connections stay this client's.
   */
  withConfig(overrides: RestClientOverrides): RestClient {
    inheritedPool = this.#pool;
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- handed to the constructor, as the pool is
    inheritedParent = this;
    try {
      // A subclass (one that records or decorates requests) derives clients of its own kind.
      const Derived = this.constructor as new (config: RestConfig, options: RestClientOptions) => RestClient;
      return new Derived({ ...this.config, ...overrides }, this.#options);
    } finally {
      inheritedPool = undefined;
      inheritedParent = undefined;
    }
  }

  /**
   * Whether the server answers, as this client's requests (and those of the clients derived from it)
   * last saw it; reflectors wait on it to come back together after an outage (see {@link Reachability}).
   */
  get reachability(): Reachability {
    return this.#pool.reachability;
  }

  /** The readiness probe of {@link Reachability}: `GET /readyz`, its status code (rejects without an answer). */
  async #probeReadyz(signal: AbortSignal): Promise<number> {
    try {
      const resp = await this.#send({ verb: 'GET', path: '/readyz', query: [], headers: {} }, signal, { readIdleMs: 10_000, retryTransportErrors: false });
      resp.idle?.stop();
      resp.body.resume();
      return resp.statusCode;
    } catch (err) {
      if (err instanceof StatusError) return err.statusCode;
      throw err;
    }
  }

  /** The client-side rate limiter every request of this client waits for. */
  get rateLimiter(): RequestRateLimiter {
    return this.#limiter;
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

  /**
   * Closes the client (unless it was derived with withConfig: the connections then belong to the
   * client it came from) and resolves once its connections are closed, without waiting for anything
   * the server still holds open:
   * - every open watch ends as {@link WatchStream.stop} ends it (a pending or later iteration is
   *   done), iterated or not;
   * - every request and stream still in flight (a followed log, a LIST being read, a retry being
   *   waited for) fails with a {@link ClientClosedError}; an upgraded connection (exec, attach,
   *   port-forward) still being opened fails with it too, and an open one is closed;
   * - every later call, on this client or one derived from it, fails with a ClientClosedError,
   *   which nothing retries.
   *
   * Closing twice is harmless.
   */
  async close(): Promise<void> {
    if (this.#ownsPool) await this.#pool.close();
  }

  /**
   * Ties a connection that left the pool (an upgraded WebSocket, see dialWebSocket) to the client's
   * lifetime: `end` runs with a {@link ClientClosedError} when the client is closed. Returns the
   * release to call once the connection ended by itself. Throws a ClientClosedError when the client
   * is already closed.
   */
  trackConnection(describe: string, end: (reason: ClientClosedError) => void): () => void {
    return this.#pool.track(describe, end);
  }

  /**
   * Sends `req` and reads the whole response. Resolves for 2xx responses; rejects with a
   * {@link apimachinery!StatusError} for any other status, {@link NetworkError} when no response arrived,
   * {@link RequestTimeoutError} on timeout, {@link ReadIdleTimeoutError} when the response stayed
   * silent past the read idle timeout (GETs are first retried), or the signal's reason when aborted.
   */
  async do(request: RestRequest, options: RequestOptions = {}): Promise<RestResponse> {
    return this.#exchange(request, options, async (resp, touch, readError) => {
      const body = await readAll(resp.body, touch).catch((err: unknown) => {
        throw readError(err);
      });
      return { statusCode: resp.statusCode, headers: resp.headers, body };
    });
  }

  /**
   * Sends a LIST (`req` from buildList) and decodes its body as it arrives: the items of every
   * network chunk go to `onItems` as soon as they are parsed, in the server's order, while the
   * rest of the body is still on the wire; the body is never held whole. Resolves with what the
   * list holds besides its items (kind, apiVersion, metadata) once the body ended.
   *
   * `onItems` gets a new array each time, and the members decoded so far (an API server writes
   * kind, apiVersion and metadata before the items). When it returns a promise, reading pauses
   * until the promise settles; when it throws or rejects, the request is abandoned and the error
   * surfaces unchanged. Errors are those of {@link RestClient.do}, plus a {@link ResponseDecodeError}
   * when the body is not a complete JSON list and a {@link StatusError} when it is (or ends with)
   * an error Status. With `internManagedFields` the items' managedFields fieldsV1 values are
   * shared and frozen (ManagedFieldsInterner; one per client, shared with its watches).
   *
   * @example
   * const cache = new Map<string, Pod>();
   * const { metadata } = await client.list<Pod>(buildList({ group: '', version: 'v1', resource: 'pods' }), (pods) => {
   *   for (const pod of pods) cache.set(pod.metadata!.name!, pod);
   * });
   */
  async list<T>(req: RestRequest, onItems: (items: T[], envelope: Readonly<ListEnvelope>) => void | PromiseLike<void>, options: RequestOptions & DecodeOptions = {}): Promise<ListEnvelope> {
    const interner = options.internManagedFields === true ? this.#sharedInterner() : undefined;
    return this.#exchange(req, options, async (resp, touch, readError) => {
      const decoderOptions = interner === undefined ? {} : { interner };
      const decoder = isProtobufContentType(firstHeader(resp.headers, 'content-type')) ? new ProtobufListDecoder<T>(decoderOptions) : new ListStreamDecoder<T>(decoderOptions);
      const chunks = (resp.body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
      let finished = false;
      try {
        for (;;) {
          let step: IteratorResult<Uint8Array>;
          try {
            step = await chunks.next();
          } catch (err) {
            throw readError(err);
          }
          if (step.done === true) break;
          touch?.();
          const items: T[] = [];
          try {
            decoder.write(step.value, items);
          } catch (err) {
            throw this.#decodeError(req, err);
          }
          if (items.length > 0) {
            const pending = onItems(items, decoder.envelope);
            if (pending !== undefined) await pending;
          }
        }
        finished = true;
        try {
          return decoder.end();
        } catch (err) {
          throw this.#decodeError(req, err);
        }
      } finally {
        // Leaving early (a decode error, a throwing onItems) releases the connection.
        if (!finished) {
          resp.body.on('error', ignoreStreamError);
          resp.body.destroy();
        }
      }
    });
  }

  #sharedInterner(): ManagedFieldsInterner {
    this.#interner ??= new ManagedFieldsInterner();
    return this.#interner;
  }

  /** A decoder's error with the request named in its message; a StatusError from the server stays as it is. */
  #decodeError(req: RestRequest, err: unknown): unknown {
    if (!(err instanceof ResponseDecodeError)) return err;
    return new ResponseDecodeError(`${this.#describe(req)}: ${err.message.replace(/^list response: /, '')}`, { cause: err.cause ?? err });
  }

  /**
   * One request whose 2xx response `consume` reads: rate limiting, the timeout (sent to the server
   * too, and covering the reading of the body), the read idle guard and abort handling shared by
   * {@link RestClient.do} and {@link RestClient.list}. `touch` marks arriving body bytes for the idle
   * guard; `readError` maps a failure to read the body to the error to raise.
   */
  async #exchange<R>(
    request: RestRequest,
    options: RequestOptions,
    consume: (resp: StreamResponse, touch: (() => void) | undefined, readError: (err: unknown) => unknown) => Promise<R>,
  ): Promise<R> {
    const configMs = this.config.timeoutMs || 0;
    // r.timeout (client-go rest/request.go): the request's own (Request.Timeout, e.g. a typed List's
    // timeoutSeconds, 0 when unset), else the config's (NewRequest starts from c.Client.Timeout).
    const own = request.timeoutMs ?? configMs;
    // The server is told r.timeout (Request.URL: `timeout` only when r.timeout != 0), so it stops
    // working on a request the client gave up on; a per-call timeoutMs replaces it.
    const sentMs = options.timeoutMs || own;
    // The client gives up at r.timeout (context.WithTimeout when > 0) or at the config's timeout,
    // which upstream is also the http.Client's Timeout (rest.HTTPClientFor), whichever comes first.
    const timeoutMs = options.timeoutMs || minPositive(own, configMs);
    const req = sentMs !== 0 && request.watch !== true ? withTimeoutParam(request, sentMs) : request;
    const controller = new AbortController();
    const untrack = this.#pool.track(this.#describe(req), (reason) => controller.abort(reason));
    const unlink = linkSignals(options.signal, controller);
    // As client-go, the first throttle happens before the timeout starts: a throttled client does not
    // time out before it sends anything.
    try {
      if (!req.watch) await this.#throttle(req.verb, controller.signal);
    } catch (err) {
      unlink();
      untrack();
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
      const resp = await this.#send(req, controller.signal, { readIdleMs: req.watch === true ? 0 : this.#readIdleTimeoutMs, retryTransportErrors: true });
      idle = resp.idle;
      const guard = idle;
      const readError = (err: unknown): unknown => {
        if (controller.signal.aborted) return controller.signal.reason;
        return guard?.error ?? new NetworkError(this.#describe(req), err);
      };
      return await consume(resp, guard === undefined ? undefined : () => guard.touch(), readError);
    } catch (err) {
      if (timedOut !== undefined) throw timedOut;
      throw err;
    } finally {
      idle?.stop();
      timer?.stop();
      unlink();
      untrack();
    }
  }

  /**
   * Calls `observer` after every HTTP attempt of this client (each retry counts), with the status code
   * ('<error>' when no response came), the method, the host and the time to the response headers: what
   * client-go reports to `tools/metrics` (RequestResult, RequestLatency). Returns a function that removes it.
   */
  observeRequests(observer: RequestObserver): () => void {
    this.#requestObservers = [...this.#requestObservers, observer];
    return () => {
      this.#requestObservers = this.#requestObservers.filter((o) => o !== observer);
    };
  }

  /**
   * Calls `observer` after every wait for this client's rate limiter (each attempt waits), with the
   * method and host of the request and the time waited: client-go's `RateLimiterLatency` (its
   * tryThrottle). A client without a limiter (`qps` < 0; client-go's nil rateLimiter) reports nothing,
   * nor do watches, which are never throttled. Clients derived with {@link RestClient.withConfig}
   * report to it too. Returns a function that removes it.
   */
  observeRateLimiter(observer: RateLimiterObserver): () => void {
    this.#limiterObservers = [...this.#limiterObservers, observer];
    return () => {
      this.#limiterObservers = this.#limiterObservers.filter((o) => o !== observer);
    };
  }

  /** This client's request observers after those of the clients it was derived from. */
  #allRequestObservers(): readonly RequestObserver[] {
    const parent = this.#parent;
    const inherited = parent === undefined ? [] : parent.#allRequestObservers();
    if (inherited.length === 0) return this.#requestObservers;
    return this.#requestObservers.length === 0 ? inherited : [...inherited, ...this.#requestObservers];
  }

  #allLimiterObservers(): readonly RateLimiterObserver[] {
    const parent = this.#parent;
    const inherited = parent === undefined ? [] : parent.#allLimiterObservers();
    if (inherited.length === 0) return this.#limiterObservers;
    return this.#limiterObservers.length === 0 ? inherited : [...inherited, ...this.#limiterObservers];
  }

  #observed(observers: readonly RequestObserver[], method: string, code: string, start: number, requestBody: string | Uint8Array | undefined, headers: IncomingHttpHeaders | undefined): void {
    if (observers.length === 0) return;
    const seconds = this.#clock.since(start) / 1000;
    const host = this.#base.host;
    const requestBytes = requestBody === undefined ? 0 : (typeof requestBody === 'string' ? Buffer.byteLength(requestBody) : requestBody.byteLength) || undefined;
    const responseBytes = headers === undefined ? undefined : knownContentLength(headers);
    for (const o of observers) o({ method, code, host, seconds, requestBytes, responseBytes });
  }

  /** Waits for the rate limiter (client-go's tryThrottle), reporting the wait to the limiter observers. */
  async #throttle(verb: string, signal: AbortSignal | undefined): Promise<void> {
    if (this.#limiter === unlimitedRateLimiter) return;
    const observers = this.#allLimiterObservers();
    if (observers.length === 0) return this.#limiter.wait(signal);
    const start = this.#clock.now();
    await this.#limiter.wait(signal);
    const seconds = this.#clock.since(start) / 1000;
    const host = this.#base.host;
    for (const o of observers) o({ verb, host, seconds });
  }

  /** Sends `req` and parses the JSON response body (see {@link RestClient.do} for errors). */
  async json<T>(req: RestRequest, options?: RequestOptions): Promise<T> {
    const resp = await this.do(req, options);
    if (resp.body.length === 0) throw new ResponseDecodeError(`${this.#describe(req)}: empty response body (status ${resp.statusCode})`);
    let parsed: unknown;
    const contentType = firstHeader(resp.headers, 'content-type');
    try {
      parsed = decodeBody(resp.body, contentType);
    } catch (err) {
      throw new ResponseDecodeError(`${this.#describe(req)}: response is not valid ${isProtobufContentType(contentType) ? 'Kubernetes protobuf' : 'JSON'}`, { cause: err });
    }
    // A Status that is not a success is an error whatever the HTTP code (rest.Result.Get).
    if (isStatusObject(parsed) && parsed.status !== 'Success') throw new StatusError(parsed);
    if (req.verb !== 'GET') noteWrite(writtenResourceVersion(parsed));
    return parsed as T;
  }

  /**
   * Sends `req` and resolves once a 2xx response's headers arrived, handing over the streaming body.
   * Aborting `options.signal` ends the body with the signal's reason.
   */
  async stream(req: RestRequest, options: RequestOptions = {}): Promise<StreamResponse> {
    const controller = new AbortController();
    // Aborting a request whose response arrived destroys its body with the reason.
    const untrack = this.#pool.track(this.#describe(req), (reason) => controller.abort(reason));
    const unlink = linkSignals(options.signal, controller);
    try {
      if (!req.watch) await this.#throttle(req.verb, controller.signal);
      // As upstream's Stream(), only Retry-After answers are retried, never a failed connection.
      const { statusCode, headers, body } = await this.#send(req, controller.signal, { readIdleMs: 0, retryTransportErrors: false });
      body.once('close', () => {
        unlink();
        untrack();
      });
      // Destroying a body before its end makes undici emit an abort 'error'; releasing the
      // connection that way is documented, so it must not crash the process. Read failures still
      // reach the consumer through iteration, pipeline() or its own 'error' listener.
      body.on('error', ignoreStreamError);
      return { statusCode, headers, body };
    } catch (err) {
      unlink();
      untrack();
      throw err;
    }
  }

  /**
   * The settings for an upgraded connection to `req`'s URL (client-go's transport.HTTPWrappersForConfig
   * around a WebSocket or SPDY round tripper): the same authentication, impersonation, TLS and proxy
   * as every other request, after waiting for the client-side rate limiter.
   */
  async upgradeSettings(req: RestRequest, signal?: AbortSignal): Promise<UpgradeSettings> {
    if (this.#pool.closed) throw new ClientClosedError(this.#describe(req));
    await this.#throttle(req.verb, signal);
    const headers: Record<string, string | string[]> = { 'user-agent': this.config.userAgent ?? defaultUserAgent, ...req.headers };
    const { cert } = await this.#credentials(headers, signal ?? new AbortController().signal);
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
   * StatusError otherwise. A connection dropped before the answer (EOF, reset) is retried as for
   * any GET; once those retries are used up the watch resolves empty (its iteration ends at once),
   * as upstream's Watch returns watch.NewEmptyWatch(), so the caller simply watches again. ERROR events are yielded as `{ type: 'ERROR', object: Status }`; wrap the
   * stream with {@link raiseWatchErrors} to have them thrown as StatusErrors instead. With
   * `internManagedFields` the objects' managedFields fieldsV1 values are shared and frozen.
   */
  async watch<T>(req: RestRequest, options: RequestOptions & DecodeOptions = {}): Promise<WatchStream<T>> {
    const describe = this.#describe(req);
    const controller = new AbortController();
    // Closing the client stops the watch once it is open, and fails it while it is being opened.
    let stopOnClose: (() => void) | undefined = undefined;
    const untrack = this.#pool.track(describe, (reason) => (stopOnClose !== undefined ? stopOnClose() : controller.abort(reason)));
    const unlink = linkSignals(options.signal, controller);
    // A watch's own timeout (a typed Watch's timeoutSeconds, Request.Timeout) is sent as the `timeout`
    // query parameter, as Request.URL does; upstream's Watch sets no deadline from it. The config's
    // timeout is neither sent nor applied to watches: upstream's http.Client.Timeout would cut every
    // watch after it (kubeloom keeps watches long-running, see RestConfig.timeoutMs).
    const sent = req.timeoutMs !== undefined && req.timeoutMs !== 0 ? withTimeoutParam(req, req.timeoutMs) : req;
    let resp: StreamResponse;
    try {
      resp = await this.#send({ ...sent, watch: true, stream: true }, controller.signal, { readIdleMs: 0, retryTransportErrors: true });
    } catch (err) {
      unlink();
      untrack();
      // As upstream's Watch: once the retries of a dropped connection are used up, the caller gets
      // an empty watch (it ends at once) rather than an error, and simply watches again.
      if (err instanceof NetworkError && isConnectionReset(err.cause)) return emptyWatch<T>();
      throw err;
    }
    const body = resp.body;
    // Destroying a body that was not read to its end makes undici emit an abort 'error'; the stream
    // is read only through the iterator, which reports failures itself, so that event needs a
    // listener or stop() after the server ended the response would crash the process.
    body.on('error', ignoreStreamError);
    let stopped = false;
    const interner = options.internManagedFields === true ? this.#sharedInterner() : undefined;
    const iterable = new WatchEventIterator<T>({
      ...(interner !== undefined ? { interner } : {}),
      ...(isProtobufContentType(firstHeader(resp.headers, 'content-type')) ? { decoder: new ProtobufWatchDecoder<T>(interner === undefined ? {} : { interner }) } : {}),
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
        untrack();
        body.destroy();
      },
    });
    // Safe in any state and any number of times: ending the iterator is idempotent.
    const stop = (): void => {
      stopped = true;
      void iterable.return();
    };
    stopOnClose = stop;
    return {
      stop,
      [Symbol.asyncIterator]: () => iterable,
    };
  }

  #describe(req: RestRequest): string {
    return `${req.verb} ${requestUrl(this.baseUrl, req)}`;
  }

  /**
   * Authentication and identity headers for one attempt; also picks the pool (client certificates).
   * Returns the credentials taken from the provider, if any, so a 401 can refresh exactly those.
   *
   * As client-go's round trippers, a header the request already carries wins: its own
   * Authorization skips every credential (the credential provider is not even asked), its own
   * Impersonate-User skips the configured impersonation, its own User-Agent is kept.
   */
  async #authenticate(headers: Record<string, string | string[]>, signal: AbortSignal): Promise<{ dispatcher: Dispatcher; used: Credentials | undefined }> {
    const { cert, used } = await this.#credentials(headers, signal);
    return { dispatcher: this.#pool.dispatcherFor(cert), used };
  }

  /**
   * Adds authentication and impersonation headers; returns the provider's client certificate and
   * credentials, if any (also used for upgraded connections, see upgradeSettings).
   */
  async #credentials(headers: Record<string, string | string[]>, signal: AbortSignal): Promise<{ cert: ClientCertificate | undefined; used: Credentials | undefined }> {
    const c = this.config;
    let cert: ClientCertificate | undefined;
    let used: Credentials | undefined;
    if (headers['authorization'] === undefined) {
      let authorization: string | undefined;
      if (this.#useCredentialProvider) {
        try {
          used = await c.credentialProvider!.getCredentials(signal);
        } catch (err) {
          if (signal.aborted) throw signal.reason;
          throw new GettingCredentialsError(err);
        }
        if (used.token !== undefined && used.token !== '') authorization = `Bearer ${used.token}`;
        if (used.clientCertificateData !== undefined && used.clientKeyData !== undefined && used.clientCertificateData !== '') {
          cert = { certData: used.clientCertificateData, keyData: used.clientKeyData };
        }
      } else if (this.#tokenFile !== undefined) {
        authorization = `Bearer ${await this.#fileToken()}`;
      } else if (c.bearerToken !== undefined && c.bearerToken !== '') {
        authorization = `Bearer ${c.bearerToken}`;
      } else if (c.username !== undefined && c.username !== '') {
        authorization = `Basic ${Buffer.from(`${c.username}:${c.password ?? ''}`).toString('base64')}`;
      }
      if (authorization !== undefined) headers['authorization'] = authorization;
    }
    if (headers['authorization'] !== undefined && this.#base.protocol === 'http:' && !isLoopback(this.#base.hostname) && c.allowInsecureCredentials !== true) {
      throw new InsecureCredentialsError(this.#base.host);
    }
    const imp = c.impersonate;
    if (imp !== undefined && headers['impersonate-user'] === undefined) {
      if (imp.userName !== undefined && imp.userName !== '') headers['impersonate-user'] = imp.userName;
      if (imp.uid !== undefined && imp.uid !== '') headers['impersonate-uid'] = imp.uid;
      if (imp.groups !== undefined && imp.groups.length > 0) headers['impersonate-group'] = [...imp.groups];
      for (const [k, values] of Object.entries(imp.extra ?? {})) headers[`impersonate-extra-${encodeExtraKey(k)}`] = [...values];
    }
    return { cert, used };
  }

  /** The token file's token; while the file cannot be read, the static bearerToken if there is one (as upstream). */
  async #fileToken(): Promise<string> {
    try {
      return await this.#tokenFile!.token();
    } catch (err) {
      const fallback = this.config.bearerToken;
      if (fallback !== undefined && fallback !== '') return fallback;
      throw err;
    }
  }

  /**
   * One logical request: attempts with Retry-After retries (429 and 5xx with a valid header, up to
   * maxRetries, any verb since bodies are replayable), and, with `retryTransportErrors`, retries of
   * a GET whose connection was reset (an implied Retry-After of 1 s, as upstream's request() and
   * Watch(); Stream() retries only Retry-After answers). After a 401 with credentials from the
   * credential provider, those credentials are refreshed (the plugin runs again) and the 401 is
   * returned, as client-go's exec round tripper does: the next request carries the new ones.
   * Resolves with a 2xx response whose body is still unread.
   *
   * With `readIdleMs` > 0 each attempt is abandoned when no byte of its response arrives for that
   * long (aborting an undici request destroys its socket, so the half-open connection leaves the
   * pool) and fails with {@link ReadIdleTimeoutError}; like every timeout it is not retried, so a
   * server that accepts connections but never answers costs one idle timeout, not eleven. The
   * returned guard keeps watching the body until the caller stops it.
   */
  async #send(req: RestRequest, signal: AbortSignal, options: { readIdleMs: number; retryTransportErrors: boolean }): Promise<SentResponse> {
    const url = requestUrl(this.baseUrl, req);
    const describe = `${req.verb} ${url}`;
    const readIdleMs = options.readIdleMs;
    let attempts = 0;
    for (;;) {
      if (signal.aborted) throw signal.reason;
      if (this.#pool.closed) throw new ClientClosedError(describe);
      const headers: Record<string, string | string[]> = {
        'user-agent': this.config.userAgent ?? defaultUserAgent,
        ...req.headers,
      };
      const accept = negotiatedAccept(this.config, req);
      if (accept !== undefined) headers['accept'] = accept;
      const sent = negotiatedBody(this.config, req);
      if (sent.contentType !== undefined) headers['content-type'] = sent.contentType;
      if (this.config.disableCompression !== true) headers['accept-encoding'] = 'gzip';
      const { dispatcher, used } = await this.#authenticate(headers, signal);
      const idle = readIdleMs > 0 ? new ReadIdleGuard(this.#clock, readIdleMs, describe) : undefined;
      let resp: Dispatcher.ResponseData;
      const span = startClientSpan(req.verb, url, headers);
      const observers = this.#allRequestObservers();
      const start = observers.length > 0 ? this.#clock.now() : 0;
      try {
        const attemptSignal = idle === undefined ? signal : AbortSignal.any([signal, idle.signal]);
        resp = await undiciRequest(url, { dispatcher, method: req.verb, headers, body: sent.body ?? null, signal: attemptSignal });
        span?.end(resp.statusCode);
        this.#observed(observers, req.verb, String(resp.statusCode), start, sent.body, resp.headers);
      } catch (err) {
        span?.fail(err);
        this.#observed(observers, req.verb, '<error>', start, sent.body, undefined);
        idle?.stop();
        if (signal.aborted) throw signal.reason;
        if (idle?.error !== undefined) throw idle.error;
        // undici refuses requests on a closed pool with an error that reads like a dropped connection.
        if (this.#pool.closed) throw new ClientClosedError(describe);
        if (isUnreachableError(err)) this.#pool.reachability.reportUnreachable();
        // A GET whose connection was reset is safe to send again (on a new connection).
        if (options.retryTransportErrors && req.verb === 'GET' && isConnectionReset(err) && attempts < this.#maxRetries) {
          attempts++;
          await this.#retryWait(req.verb, 1, signal);
          continue;
        }
        throw new NetworkError(describe, err, this.#pool.reachability);
      }
      idle?.touch();
      const code = resp.statusCode;
      this.#pool.reachability.reportResponse(code);
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
      if (code === 401 && used !== undefined) {
        // exec.roundTripper + maybeRefreshCreds: only the credentials this attempt used are dropped (a
        // concurrent request may have refreshed them already) and fresh ones fetched at once; a
        // failure to refresh is not this request's error (upstream logs it). The 401 goes back.
        const provider = this.config.credentialProvider!;
        provider.invalidate(used);
        await provider.getCredentials(signal).catch(() => undefined);
      }
      const wait = retryAfterSeconds(resp.headers);
      if ((code === 429 || code >= 500) && wait !== undefined && attempts < this.#maxRetries) {
        attempts++;
        await this.#retryWait(req.verb, wait, signal);
        continue;
      }
      const ct = firstHeader(resp.headers, 'content-type');
      const target = req.target;
      throw errorFromResponse({
        statusCode: code,
        body: raw,
        verb: req.verb,
        ...(ct !== undefined ? { contentType: ct } : {}),
        ...(wait !== undefined ? { retryAfterSeconds: wait } : {}),
        ...(target !== undefined ? { group: target.group, resource: target.resource, ...(target.name !== undefined ? { name: target.name } : {}) } : {}),
      });
    }
  }

  async #retryWait(verb: string, seconds: number, signal: AbortSignal): Promise<void> {
    if (seconds > 0) await this.#clock.sleep(seconds * 1000, signal);
    // A retry is a new request as far as the client-side limiter is concerned (withRetry.Before).
    await this.#throttle(verb, signal);
  }
}

/** A watch that has already ended (watch.NewEmptyWatch). */
function emptyWatch<T>(): WatchStream<T> {
  const done: AsyncIterableIterator<WatchEvent<T>> = {
    next: () => Promise.resolve({ done: true, value: undefined }),
    return: () => Promise.resolve({ done: true, value: undefined }),
    [Symbol.asyncIterator]: () => done,
  };
  return { stop: () => undefined, [Symbol.asyncIterator]: () => done };
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

/**
 * The body length a response declares, when client-go would observe it: a non-zero Content-Length on
 * a body that is not content-encoded (Go's transport decompresses gzip itself and then reports -1).
 */
function knownContentLength(headers: IncomingHttpHeaders): number | undefined {
  const encoding = headers['content-encoding'];
  if (encoding !== undefined && encoding !== '' && encoding !== 'identity') return undefined;
  const raw = headers['content-length'];
  const v = Array.isArray(raw) ? raw[0] : raw;
  if (v === undefined || !/^\d+$/.test(v)) return undefined;
  // 0 with a body (Go's responses always have one) counts as unknown in client-go too.
  return Number(v) || undefined;
}
