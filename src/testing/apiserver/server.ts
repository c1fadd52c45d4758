/**
 * The embedded Kubernetes API server: an in-process HTTP(S) server on loopback that speaks the
 * Kubernetes REST and watch protocol closely enough for kubectl and kubeloom's own clients.
 * See docs/apiserver.md for what is and is not implemented.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import { writeFile, chmod } from 'node:fs/promises';
import { stringify as toYaml } from 'yaml';
import { realClock, type Clock } from '../../util/clock/clock.ts';
import { ResourceRegistry } from './resources.ts';
import { Storage } from './storage.ts';
import { Faults, type ApiServerFaults } from './faults.ts';
import { ApiHandler } from './handler.ts';

/** Options of {@link startApiServer}. */
export interface ApiServerOptions {
  /** Address to listen on (default '127.0.0.1'). */
  host?: string;
  /** Port to listen on (default 0: any free port). */
  port?: number;
  /** Serve HTTPS with a self-signed certificate for 127.0.0.1/localhost made at start (default false). */
  tls?: boolean;
  /** When set, every request must carry `Authorization: Bearer <token>` (401 otherwise). */
  token?: string;
  /** Changes kept for watch resumption and paginated lists (default 100,000). */
  watchHistorySize?: number;
  /** Period of BOOKMARK events on watches that allow them (default 60,000 ms, about what kube-apiserver sends). */
  bookmarkIntervalMs?: number;
  /** Watch timeout when the client sends no timeoutSeconds (default 1800; kube picks in [1800, 3600)). */
  defaultWatchTimeoutSeconds?: number;
  /** Largest accepted request body (default 3 MiB, kube-apiserver's limit); larger bodies get 413. */
  maxRequestBodyBytes?: number;
  /** Time source for timestamps, bookmarks, watch timeouts and injected delays (default: the real clock). */
  clock?: Clock;
  /**
   * Validate custom resources against their CRD's openAPIV3Schema and x-kubernetes-validations rules
   * (default true, as kube-apiserver). Off, objects are still pruned and defaulted but never refused by the schema.
   */
  crdSchemaValidation?: boolean;
}

/** A running embedded API server. */
export interface ApiServer {
  /** Base URL, e.g. `http://127.0.0.1:40123`. */
  readonly url: string;
  /** A kubeconfig (YAML) for this server: cluster, user and context all named 'kubeloom', current-context set. */
  readonly kubeconfig: string;
  /** The PEM of the serving certificate (which is its own CA), when `tls` is on. */
  readonly caCertPem?: string;
  /** Writes {@link ApiServer.kubeconfig} to `path` with mode 0600. */
  writeKubeconfig(path: string): Promise<void>;
  /** Fault injection for tests. */
  readonly faults: ApiServerFaults;
  /** The current global resourceVersion counter. */
  revision(): number;
  /** Sets the log lines served at GET .../pods/{pod}/log (optionally per container). */
  setPodLogs(namespace: string, pod: string, lines: string[], container?: string): void;
  /** Appends log lines; open `follow=true` streams receive them at once. */
  appendPodLogs(namespace: string, pod: string, lines: string[], container?: string): void;
  /** Closes every connection (watches included) and the listener. */
  stop(): Promise<void>;
}

// kube-apiserver's default request body limit (3 MiB).
const defaultMaxRequestBodyBytes = 3 * 1024 * 1024;
// kube-apiserver sends bookmarks about once a minute.
const defaultBookmarkIntervalMs = 60_000;
// kube-apiserver's minimum watch timeout (it picks randomly in [1800, 3600) seconds).
const defaultWatchTimeoutSeconds = 1800;
const defaultWatchHistorySize = 100_000;

// The certificate generator (and its crypto dependencies) loads only when TLS is asked for.
async function selfSignedCertificate(): Promise<{ key: string; cert: string }> {
  const { generate } = await import('selfsigned');
  const pems = await generate([{ name: 'commonName', value: 'kubeloom' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}

function kubeconfigYaml(url: string, caPem: string | undefined, token: string | undefined): string {
  const cluster: Record<string, unknown> = { server: url };
  if (caPem !== undefined) cluster['certificate-authority-data'] = Buffer.from(caPem).toString('base64');
  return toYaml({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'kubeloom', cluster }],
    users: [{ name: 'kubeloom', user: token === undefined ? {} : { token } }],
    contexts: [{ name: 'kubeloom', context: { cluster: 'kubeloom', user: 'kubeloom', namespace: 'default' } }],
    'current-context': 'kubeloom',
    preferences: {},
  });
}

class EmbeddedApiServer implements ApiServer {
  url = '';
  kubeconfig = '';
  caCertPem?: string;
  readonly faults: Faults;
  readonly #handler: ApiHandler;
  readonly #storage: Storage;
  readonly #server: Server;
  readonly #host: string;
  readonly #token: string | undefined;
  readonly #sockets = new Set<Socket>();
  #port: number;
  #listening = false;

  constructor(options: ApiServerOptions, tls: { key: string; cert: string } | undefined) {
    const clock = options.clock ?? realClock;
    this.#host = options.host ?? '127.0.0.1';
    this.#token = options.token;
    this.#port = options.port ?? 0;
    this.#storage = new Storage(options.watchHistorySize ?? defaultWatchHistorySize);
    this.faults = new Faults({
      closeWatches: (r) => this.#handler.closeWatches(r),
      injectMalformedLine: (r) => this.#handler.injectMalformedLine(r),
      compact: (rv) => this.#storage.compact(rv),
      restart: () => this.#restart(),
    });
    this.#handler = new ApiHandler(new ResourceRegistry(), this.#storage, this.faults, {
      token: options.token,
      schemaValidation: options.crdSchemaValidation ?? true,
      bookmarkIntervalMs: options.bookmarkIntervalMs ?? defaultBookmarkIntervalMs,
      defaultWatchTimeoutSeconds: options.defaultWatchTimeoutSeconds ?? defaultWatchTimeoutSeconds,
      maxRequestBodyBytes: options.maxRequestBodyBytes ?? defaultMaxRequestBodyBytes,
      clock,
    });
    for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      this.#handler.seed('', 'v1', 'namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name } } });
    }
    const listener = (req: IncomingMessage, res: ServerResponse): void => this.#handler.handle(req, res);
    if (tls !== undefined) {
      this.caCertPem = tls.cert;
      this.#server = createHttpsServer({ key: tls.key, cert: tls.cert }, listener);
    } else {
      this.#server = createHttpServer(listener);
    }
    // Watches and log streams stay open for as long as the client wants; no server-side socket timeout.
    this.#server.timeout = 0;
    this.#server.requestTimeout = 0;
    this.#server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
    this.#server.on('clientError', (_err, socket) => {
      if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
      else socket.destroy();
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error): void => reject(err);
      this.#server.once('error', onError);
      this.#server.listen(this.#port, this.#host, () => {
        this.#server.off('error', onError);
        resolve();
      });
    });
    this.#listening = true;
    const address = this.#server.address();
    if (address === null || typeof address === 'string') throw new Error('the API server did not get a TCP address');
    this.#port = address.port;
    const host = this.#host.includes(':') ? `[${this.#host}]` : this.#host;
    this.url = `${this.caCertPem === undefined ? 'http' : 'https'}://${host}:${this.#port}`;
    this.#handler.setServerAddress(`${host}:${this.#port}`);
    this.kubeconfig = kubeconfigYaml(this.url, this.caCertPem, this.#token);
  }

  async writeKubeconfig(path: string): Promise<void> {
    await writeFile(path, this.kubeconfig, { mode: 0o600 });
    await chmod(path, 0o600);
  }

  revision(): number {
    return this.#storage.revision;
  }

  setPodLogs(namespace: string, pod: string, lines: string[], container?: string): void {
    this.#handler.logs.set(namespace, pod, lines, container);
  }

  appendPodLogs(namespace: string, pod: string, lines: string[], container?: string): void {
    this.#handler.logs.append(namespace, pod, lines, container);
  }

  async #close(): Promise<void> {
    if (!this.#listening) return;
    this.#listening = false;
    this.#handler.destroyStreams();
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    for (const s of this.#sockets) s.destroy();
    this.#sockets.clear();
    await closed;
  }

  async #restart(): Promise<void> {
    await this.#close();
    await this.listen();
  }

  stop(): Promise<void> {
    return this.#close();
  }
}

/**
 * Starts an embedded Kubernetes API server on loopback. Namespaces default, kube-system, kube-public and
 * kube-node-lease exist at start; every built-in resource listed in docs/apiserver.md is served, and
 * CustomResourceDefinitions add their resources.
 *
 * @example
 * const server = await startApiServer();
 * await server.writeKubeconfig('/tmp/kubeconfig'); // then: KUBECONFIG=/tmp/kubeconfig kubectl get ns
 * await server.stop();
 */
export async function startApiServer(options: ApiServerOptions = {}): Promise<ApiServer> {
  const tls = options.tls === true ? await selfSignedCertificate() : undefined;
  const server = new EmbeddedApiServer(options, tls);
  await server.listen();
  return server;
}
