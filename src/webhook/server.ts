/**
 * The webhook server (controller-runtime pkg/webhook/server.go, DefaultServer): one HTTPS listener
 * (port 9443, all addresses, by default) serving the registered webhooks by path, its certificate
 * taken from `<certDir>/tls.crt` and `<certDir>/tls.key` (certDir defaulting to
 * `<tmpdir>/k8s-webhook-server/serving-certs`) and reloaded by a {@link CertWatcher} when the files
 * change; TLS 1.2 at least, as Go's crypto/tls; an optional client CA (`clientCAName`) whose
 * certificates clients must present. It is a manager runnable: {@link WebhookServer.start} serves
 * until its signal aborts and then shuts down gracefully (no new connections, in-flight requests
 * finish, at most one minute as upstream, then the rest are cut), {@link WebhookServer.needLeaderElection}
 * is false (every replica serves), {@link WebhookServer.startedChecker} is the readiness check.
 *
 * Differences: Go's ServeMux is reduced to what webhooks use (exact paths, and prefixes for patterns
 * ending in `/`); `port: 0` means an ephemeral port (upstream treats 0 as "use the default"), which
 * {@link WebhookServer.whenStarted} reports; handlers are plain Node request handlers.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { connect, type SecureContextOptions, type TlsOptions } from 'node:tls';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { KubeloomError } from '../apimachinery/errors.ts';
import { defaultLogger, type Logger } from '../tools/events/logger.ts';
import { realClock, type Clock } from '../util/clock/clock.ts';
import type { PrometheusRegistry } from '../util/prometheus/registry.ts';
import { CertWatcher } from './certwatcher.ts';
import { webhookMetrics, type WebhookMetrics } from './metrics.ts';

/** webhook.DefaultPort. */
export const defaultWebhookPort = 9443;
// server.go: "Shutting down webhook server with timeout of 1 minute".
const shutdownTimeoutMs = 60_000;
// server.go StartedChecker: the dialer's timeout.
const checkerDialTimeoutMs = 10_000;

/** The certificate directory controller-runtime uses when none is given: `<tmpdir>/k8s-webhook-server/serving-certs`. */
export function defaultCertDir(): string {
  return path.join(os.tmpdir(), 'k8s-webhook-server', 'serving-certs');
}

/** A handler of one webhook path: a Node request handler (errors it throws answer 500). */
export type WebhookHandler = (req: IncomingMessage, res: ServerResponse) => unknown;

/** Something that serves HTTP requests (Go's http.Handler): admission and conversion webhooks are. */
export interface HttpServable {
  /** Serves one request. */
  serveHTTP: WebhookHandler;
}

/** A readiness or liveness check: resolves when healthy, rejects with the reason otherwise (controller-runtime's healthz.Checker). */
export type HealthChecker = () => Promise<void>;

/** Options of {@link WebhookServer} (controller-runtime webhook.Options). */
export interface WebhookServerOptions {
  /** Address to listen on (default '' — all addresses). */
  host?: string;
  /** Port (default 9443; 0 picks a free port, see {@link WebhookServer.whenStarted}). */
  port?: number;
  /** Folder of the serving certificate and key (default {@link defaultCertDir}). */
  certDir?: string;
  /** File name of the certificate in certDir (default 'tls.crt'). */
  certName?: string;
  /** File name of the key in certDir (default 'tls.key'). */
  keyName?: string;
  /** File name of a CA in certDir; when set, clients must present a certificate it signed (default none). */
  clientCAName?: string;
  /** Extra TLS options (upstream's TLSOpts), applied last; minVersion defaults to 'TLSv1.2'. */
  tlsOptions?: SecureContextOptions;
  /** How often the certificate files are re-read (default 10 000 ms). */
  certWatchIntervalMs?: number;
  /** Time source of certificate polling and shutdown (default the real clock). */
  clock?: Clock;
  /** Log sink (default: errors to stderr). */
  logger?: Logger;
  /**
   * A prom-client registry for controller-runtime's webhook metrics (`controller_runtime_webhook_latency_seconds`,
   * `_requests_total{webhook,code}`, `_requests_in_flight`); default none.
   */
  metrics?: PrometheusRegistry;
}

/** Where a webhook server listens. */
export interface ServerAddress {
  /** The host it was asked to listen on ('' for all addresses). */
  readonly host: string;
  /** The bound port (the chosen one when the options said 0). */
  readonly port: number;
}

/** {@link WebhookServerOptions} with their defaults applied. */
export interface ResolvedWebhookServerOptions {
  /** Address to listen on ('' for all). */
  readonly host: string;
  /** Port (0: a free one). */
  readonly port: number;
  /** Folder of the certificate and key. */
  readonly certDir: string;
  /** File name of the certificate. */
  readonly certName: string;
  /** File name of the key. */
  readonly keyName: string;
  /** How often the certificate files are re-read. */
  readonly certWatchIntervalMs: number;
  /** File name of the client CA, if clients must present certificates. */
  readonly clientCAName: string | undefined;
}

/** Errors of the webhook server (duplicate path, start failures). */
export class WebhookServerError extends KubeloomError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_WEBHOOK_SERVER', message, options);
  }
}

/**
 * The HTTPS server of admission and conversion webhooks.
 *
 * @example
 * ```ts
 * const server = new WebhookServer({ certDir: './certs' });
 * server.register('/mutate-batch-tutorial-kubebuilder-io-v1-cronjob', mutatingWebhookFor(defaulter));
 * await server.start(signal); // resolves after a graceful shutdown
 * ```
 */
export class WebhookServer {
  /** The options with their defaults applied. */
  readonly options: ResolvedWebhookServerOptions;
  readonly #hooks = new Map<string, WebhookHandler>();
  readonly #tlsOptions: SecureContextOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #metrics: WebhookMetrics | undefined;
  #address: ServerAddress | undefined;
  #starting = false;
  readonly #started: Promise<ServerAddress>;
  #resolveStarted!: (a: ServerAddress) => void;
  #rejectStarted!: (err: unknown) => void;

  constructor(options: WebhookServerOptions = {}) {
    this.options = {
      host: options.host ?? '',
      port: options.port === undefined || options.port < 0 ? defaultWebhookPort : options.port,
      certDir: options.certDir === undefined || options.certDir === '' ? defaultCertDir() : options.certDir,
      certName: options.certName === undefined || options.certName === '' ? 'tls.crt' : options.certName,
      keyName: options.keyName === undefined || options.keyName === '' ? 'tls.key' : options.keyName,
      certWatchIntervalMs: options.certWatchIntervalMs ?? 10_000,
      clientCAName: options.clientCAName === '' ? undefined : options.clientCAName,
    };
    this.#tlsOptions = options.tlsOptions ?? {};
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? defaultLogger;
    this.#metrics = options.metrics === undefined ? undefined : webhookMetrics(options.metrics);
    this.#started = new Promise((resolve, reject) => {
      this.#resolveStarted = resolve;
      this.#rejectStarted = reject;
    });
    // Nobody may be waiting: a failed start is reported by start() itself.
    this.#started.catch(() => undefined);
  }

  /** Serves `hook` at `path`; throws when the path already has one (upstream panics). */
  register(path: string, hook: WebhookHandler | HttpServable): void {
    if (this.#hooks.has(path)) throw new WebhookServerError(`can't register duplicate path: ${path}`);
    const handler: WebhookHandler = typeof hook === 'function' ? hook : (req, res) => hook.serveHTTP(req, res);
    this.#hooks.set(path, this.#metrics === undefined ? handler : this.#instrumented(path, handler, this.#metrics));
    this.#logger.info('Registering webhook', { path });
  }

  /** The registered paths, in registration order. */
  paths(): string[] {
    return [...this.#hooks.keys()];
  }

  /** Always false: the webhook server runs on every replica, leader or not. */
  needLeaderElection(): false {
    return false;
  }

  /** The address the server listens on, or undefined when it is not serving. */
  address(): ServerAddress | undefined {
    return this.#address;
  }

  /** Resolves with the bound address once the server listens; rejects when {@link WebhookServer.start} failed. */
  whenStarted(): Promise<ServerAddress> {
    return this.#started;
  }

  /**
   * A readiness check for /readyz: fails with "webhook server has not been started yet" before the
   * server listens, then succeeds when a TLS connection to it can be opened (upstream dials it too).
   */
  startedChecker(): HealthChecker {
    return async () => {
      const a = this.#address;
      if (a === undefined) throw new Error('webhook server has not been started yet');
      await new Promise<void>((resolve, reject) => {
        const socket = connect({ host: a.host === '' ? '127.0.0.1' : a.host, port: a.port, rejectUnauthorized: false });
        const timer = this.#clock.afterFunc(checkerDialTimeoutMs, () => socket.destroy(new Error('i/o timeout')));
        socket.once('secureConnect', () => {
          timer.stop();
          socket.end();
          resolve();
        });
        socket.once('error', (err: Error) => {
          timer.stop();
          reject(new Error(`webhook server is not reachable: ${err.message}`, { cause: err }));
        });
      });
    };
  }

  /**
   * Listens and serves until `signal` aborts, then shuts down gracefully; resolves once stopped.
   * Rejects when the certificate cannot be read or the address cannot be bound.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.#starting) throw new WebhookServerError('webhook server already started');
    this.#starting = true;
    const o = this.options;
    const watcher = new CertWatcher({
      certPath: path.join(o.certDir, o.certName),
      keyPath: path.join(o.certDir, o.keyName),
      watchIntervalMs: o.certWatchIntervalMs,
      clock: this.#clock,
      logger: this.#logger,
    });
    let server: Server;
    try {
      await watcher.readCertificate();
      const pair = watcher.current()!;
      const tls: TlsOptions = { minVersion: 'TLSv1.2', cert: pair.cert, key: pair.key };
      if (o.clientCAName !== undefined) {
        const caFile = path.join(o.certDir, o.clientCAName);
        try {
          tls.ca = await readFile(caFile, 'utf8');
        } catch (err) {
          throw new WebhookServerError(`failed to read client CA cert: ${(err as Error).message}`, { cause: err });
        }
        tls.requestCert = true;
        tls.rejectUnauthorized = true;
      }
      Object.assign(tls, this.#tlsOptions);
      server = createServer(tls, (req, res) => void this.#serve(req, res));
      // The first callback call repeats the current pair; later ones swap the serving context.
      watcher.registerCallback((p) => {
        if (p !== pair) server.setSecureContext({ ...tls, cert: p.cert, key: p.key });
      });
      await new Promise<void>((resolve, reject) => {
        // Named like the manager's other servers' ("health probe server could not listen on …").
        server.once('error', (err: Error) => reject(new WebhookServerError(`webhook server could not listen on ${o.host}:${o.port}: ${err.message}`, { cause: err })));
        server.listen({ port: o.port, ...(o.host === '' ? {} : { host: o.host }) }, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } catch (err) {
      this.#rejectStarted(err);
      throw err;
    }
    const bound = server.address() as AddressInfo;
    this.#address = { host: o.host, port: bound.port };
    this.#logger.info('Serving webhook server', { host: o.host, port: bound.port });
    this.#resolveStarted(this.#address);
    const watching = watcher.start(signal);
    if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    this.#logger.info('Shutting down webhook server with timeout of 1 minute');
    await new Promise<void>((resolve) => {
      const timer = this.#clock.afterFunc(shutdownTimeoutMs, () => server.closeAllConnections());
      server.close(() => {
        timer.stop();
        resolve();
      });
      server.closeIdleConnections();
    });
    this.#address = undefined;
    await watching;
  }

  // metrics.InstrumentedHook: in flight until the response is done, then its latency and status code.
  #instrumented(path: string, handler: WebhookHandler, m: WebhookMetrics): WebhookHandler {
    return (req, res) => {
      const start = this.#clock.now();
      m.inFlight.inc({ webhook: path });
      res.once('close', () => {
        m.inFlight.dec({ webhook: path });
        m.latency.observe({ webhook: path }, (this.#clock.now() - start) / 1000);
        m.total.inc({ webhook: path, code: String(res.statusCode) });
      });
      return handler(req, res);
    };
  }

  async #serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const pathname = new URL(req.url ?? '/', 'https://webhook.invalid').pathname;
    const handler = this.#route(pathname);
    if (handler === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' });
      res.end('404 page not found\n');
      return;
    }
    try {
      await handler(req, res);
    } catch (err) {
      this.#logger.error('webhook handler failed', { path: pathname, error: (err as Error).message });
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end();
    }
  }

  // net/http ServeMux: an exact pattern, else the longest registered prefix ending in '/'.
  #route(pathname: string): WebhookHandler | undefined {
    const exact = this.#hooks.get(pathname);
    if (exact !== undefined) return exact;
    let best: string | undefined;
    for (const p of this.#hooks.keys()) if (p.endsWith('/') && pathname.startsWith(p) && (best === undefined || p.length > best.length)) best = p;
    return best === undefined ? undefined : this.#hooks.get(best);
  }
}
