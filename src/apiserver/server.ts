/**
 * The embedded Kubernetes API server: an in-process HTTP(S) server on loopback that speaks the
 * Kubernetes REST and watch protocol closely enough for kubectl and kubeloom's own clients.
 * See docs/apiserver.md for what is and is not implemented.
 */
import type { EtcdTlsOptions } from './storage/etcd-client.ts';
import type { ResourceQuotaConfiguration } from './admission/resource-quota.ts';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { writeFile, chmod, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify as toYaml } from 'yaml';
import { randomBytes } from 'node:crypto';
import { realClock, type Clock, type Ticker } from '../util/clock/clock.ts';
import { rbacLearnFile } from '../rbac/learn-mode.ts';
import { ResourceRegistry } from './resources.ts';
import { Storage } from './storage.ts';
import { WatchCache, type WatchCacheOptions } from './watch-cache.ts';
import { Faults, type ApiServerFaults } from './faults.ts';
import { ApiHandler, formatTime } from './handler.ts';
import { StreamingHandler } from './streaming/upgrade.ts';
import { MetricsApi, type NodeMetricsInput, type PodMetricsInput } from './metrics-api.ts';
import type { PodHandler, PodHandlers } from './streaming/pod-handlers.ts';
import type { StaticUser } from './authn/authenticator.ts';
import type { RestConfig } from '../rest/config.ts';
import { ClusterRoleAggregationController } from './controllers/clusterrole-aggregation.ts';
import { ControllerManager, type ControllerOptions, type ServerControllers } from './controllers/controller-manager.ts';
import type { FeatureGates } from './sharding.ts';
import { bootstrapKubernetesService, bootstrapObjects } from './bootstrap/bootstrap.ts';
import { bootstrapSnapshot } from './bootstrap/bootstrap-snapshot.ts';
import { followSharedCustomResources, restoreDerivedState } from './bootstrap/restored-state.ts';
import { isRevisioned, StorageKind, type StorageBackend } from './storage/interface.ts';
import type { ApiServerSnapshot } from './snapshot.ts';
import { keptServiceAccountKey, type ServiceAccountSigningKey } from './authn/service-account-key.ts';

/** Options of {@link startApiServer}. */
export interface ApiServerOptions {
  /** Address to listen on (default '127.0.0.1'). */
  host?: string;
  /** Port to listen on (default 0: any free port). */
  port?: number;
  /**
   * Serve HTTPS with a self-signed certificate for 127.0.0.1/localhost made at start (default: true when
   * `token` or `rbac` is set, else false). A kubeconfig's credentials are sent only to an https server
   * (client-go's clientcmd, and kubectl, ignore them for http), so a server whose kubeconfig carries a
   * token serves TLS unless `tls: false` is asked for; then only clients given the token directly
   * (a RestConfig's `bearerToken`) authenticate. See docs/kubeconfig.md.
   */
  tls?: boolean;
  /**
   * Bearer token of the built-in admin user (`admin`, group system:masters), which the kubeconfig uses.
   * Without `rbac`, every request must then carry it or another user's credentials (401 otherwise).
   */
  token?: string;
  /**
   * Authorize requests with RBAC, as kube-apiserver's --authorization-mode=RBAC (default false: every
   * request is allowed, as if everyone were cluster-admin). The bootstrap ClusterRoles and bindings are
   * written at start, aggregated ClusterRoles are filled by an aggregation controller, requests without
   * credentials are `system:anonymous`, and the kubeconfig authenticates as `admin` (system:masters)
   * with `token`, or a token made at start. See docs/apiserver.md, "Authentication and authorization".
   */
  rbac?: boolean;
  /** Users authenticated by bearer token, as a --token-auth-file (name, token, optional uid and groups). */
  users?: StaticUser[];
  /**
   * Append every distinct request's authorizer attributes (user, User-Agent, verb, group, resource,
   * subresource, namespace, name) to this JSON-lines file (default: the file `kubeloom rbac learn` names
   * in KUBELOOM_RBAC_LEARN_FILE, else none). See docs/rbac.md.
   */
  recordRequestsTo?: string;
  /** Whether requests without credentials are `system:anonymous` (default: true, false when `token` is set without `rbac`). */
  anonymous?: boolean;
  /**
   * Where admission webhooks given as clientConfig.service are reached, since there is no cluster network:
   * `"<namespace>/<name>"` (or `"<namespace>/<name>:<port>"`) → base URL such as `https://127.0.0.1:9443`;
   * the service's path is appended and its certificate must name `<name>.<namespace>.svc`.
   */
  webhookServices?: Record<string, string>;
  /**
   * The ResourceQuota admission plugin's configuration, as kube-apiserver reads it from
   * `--admission-control-config-file` (`kind: ResourceQuotaConfiguration`): resources whose consumption
   * needs a covering quota (default none).
   * @example
   * await startApiServer({ resourceQuota: { limitedResources: [{ resource: 'pods', matchContains: ['requests.memory'] }] } });
   */
  resourceQuota?: ResourceQuotaConfiguration;
  /** The `iss` of ServiceAccount tokens (default https://kubernetes.default.svc; also the API audience). */
  serviceAccountIssuer?: string;
  /** Changes kept for watch resumption and paginated lists (default 100,000): etcd's history, which a compaction cuts. */
  watchHistorySize?: number;
  /**
   * The window of recent events kube-apiserver's watch cache keeps per resource (default: upstream's sizing,
   * 100 to 102,400 events, grown while they are younger than 75 s): a watch from a resourceVersion older
   * than the window gets 410 Expired (`too old resource version`), as it does from kube-apiserver even
   * without an etcd compaction, and from a revision before the server started. `false` lets a watch start
   * from any revision the history still holds. A test that resumes watches from old revisions on purpose
   * can widen it, e.g. `{ lowerBoundCapacity: 100_000 }`. See docs/apiserver.md, "The watch cache window".
   */
  watchCache?: WatchCacheOptions | false;
  /** Period of BOOKMARK events on watches that allow them (default 60,000 ms, about what kube-apiserver sends). */
  bookmarkIntervalMs?: number;
  /** Watch timeout when the client sends no timeoutSeconds (default 1800; kube picks in [1800, 3600)). */
  defaultWatchTimeoutSeconds?: number;
  /** Largest accepted request body (default 3 MiB, kube-apiserver's limit); larger bodies get 413. */
  maxRequestBodyBytes?: number;
  /** Time source for timestamps, bookmarks, watch timeouts and injected delays (default: the real clock). */
  clock?: Clock;
  /**
   * Compact the history periodically, as kube-apiserver's `--etcd-compaction-interval` does (default 0:
   * only on demand, through `faults.compact()`). Each tick compacts up to the revision the previous tick
   * saw, so the newest interval's history always stays (apiserver/pkg/storage/etcd3/compact.go).
   */
  compactionIntervalMs?: number;
  /**
   * Validate custom resources against their CRD's openAPIV3Schema and x-kubernetes-validations rules
   * (default true, as kube-apiserver). Off, objects are still pruned and defaulted but never refused by the schema.
   */
  crdSchemaValidation?: boolean;
  /**
   * The background loops running inside the server: kube-controller-manager's garbage collector and
   * namespace controller (on by default) and stand-ins for kube-scheduler and kubelets (off by default).
   * See docs/apiserver.md.
   */
  controllers?: ControllerOptions;
  /** What serves pods/exec, pods/attach and pods/portforward (see docs/remotecommand.md). */
  podHandlers?: PodHandlers;
  /**
   * Feature gates, as kube-apiserver's `--feature-gates` (default: all off). `ShardedListAndWatch`
   * honours `shardSelector` on lists and watches (KEP-5866; see docs/sharding.md).
   */
  featureGates?: FeatureGates;
  /**
   * Keep the data in a SQLite revision log under this directory (created when missing; `node:sqlite`), as
   * `kubeloom apiserver --data-dir`: every write is on disk before it is acknowledged, and a server started
   * again on the directory has the same objects, revision and retained history (default: memory only).
   * One server at a time may use a directory. The ServiceAccount token signing key is kept there too
   * (`DIR/sa.key`), so tokens issued before a restart still verify. See docs/apiserver.md, "Storage".
   */
  dataDir?: string;
  /**
   * Keep the data in etcd v3, as kube-apiserver's `--etcd-servers` (client URLs of one etcd cluster,
   * `http://`, or `https://` with `etcdTls`): kube-apiserver's key layout and encoding, so the real kube-apiserver and other
   * kubeloom servers on the same etcd serve the same cluster; resourceVersions are etcd revisions. Not with
   * `dataDir` or `from`. See docs/apiserver.md, "Storage".
   */
  etcdServers?: readonly string[];
  /** The key prefix in etcd, as kube-apiserver's `--etcd-prefix` (default `/registry`). */
  etcdPrefix?: string;
  /**
   * TLS for `https://` etcd endpoints, as kube-apiserver's `--etcd-cafile`, `--etcd-certfile` and
   * `--etcd-keyfile`: the CA that signed etcd's certificate and the client certificate and key (PEM contents).
   */
  etcdTls?: EtcdTlsOptions;
  /**
   * Start from a snapshot (`server.snapshot()`) instead of an empty cluster: its objects, revision, history
   * and served custom resources, shared rather than copied, so this costs about a millisecond per thousand
   * objects. Not with `dataDir`.
   */
  from?: ApiServerSnapshot;
  /**
   * With TLS, keep the self-signed serving certificate and the client CA in this directory, as
   * kube-apiserver's `--cert-dir`: made and written (`apiserver.crt`/`.key`, `client-ca.crt`/`.key`) on the
   * first start, read back on later ones, so kubeconfigs stay valid across restarts (default: new ones
   * at every start).
   */
  certDir?: string;
}

/** Which storage backs a server, and what survives what. */
export interface ApiServerStorage {
  /** `memory` or `sqlite`. */
  readonly kind: StorageKind;
  /** One line for humans, e.g. `memory (data is lost when the server stops)`. */
  readonly description: string;
}

/** A client certificate and its private key, in PEM. */
export interface ClientCertificate {
  /** The certificate, signed by the server's client CA. */
  certPem: string;
  /** Its private key. */
  keyPem: string;
}

/** A running embedded API server. */
export interface ApiServer {
  /** Base URL, e.g. `http://127.0.0.1:40123`. */
  readonly url: string;
  /** A kubeconfig (YAML) for this server: cluster, user and context all named 'kubeloom', current-context set. */
  readonly kubeconfig: string;
  /** A client config with the server's own loopback credentials (what its built-in controllers use; the CLI's dashboard too). */
  loopbackConfig(): RestConfig;
  /** The PEM of the serving certificate (which is its own CA), when `tls` is on. */
  readonly caCertPem?: string;
  /** The PEM of the client CA whose certificates authenticate users (CN = name, O = groups), when `tls` is on. */
  readonly clientCaCertPem?: string;
  /**
   * Issues a client certificate for a user (CN = name, O = each group) signed by the client CA; `tls` only.
   * @example
   * const cert = await server.issueClientCertificate({ name: 'alice', groups: ['dev'] });
   * await writeFile(path, server.userKubeconfig({ certificate: cert }));
   */
  issueClientCertificate(user: { name: string; groups?: readonly string[] }): Promise<ClientCertificate>;
  /** A kubeconfig for this server that authenticates with a bearer token or a client certificate. */
  userKubeconfig(credentials: { token: string } | { certificate: ClientCertificate }): string;
  /** Writes {@link ApiServer.kubeconfig} to `path` with mode 0600. */
  writeKubeconfig(path: string): Promise<void>;
  /** Fault injection for tests. */
  readonly faults: ApiServerFaults;
  /** The background loops (garbage collector, namespace controller, scheduler and kubelet stand-ins): stop, start, wait until idle. */
  readonly controllers: ServerControllers;
  /** The current global resourceVersion counter. */
  revision(): number;
  /** Which storage backs the server (memory, or SQLite with `dataDir`). */
  readonly storage: ApiServerStorage;
  /**
   * An immutable image of the server's data (objects, history, served custom resources), taken in about a
   * millisecond per thousand objects; `startApiServer({ from })` starts a server from it.
   * @example
   * const fixture = await startApiServer();
   * await installFixture(fixture); // expensive, once per suite
   * const snapshot = fixture.snapshot();
   * // in each test:
   * const server = await startApiServer({ from: snapshot });
   */
  snapshot(): ApiServerSnapshot;
  /**
   * A new server on a free port starting from this one's data ({@link ApiServer.snapshot}), with the same
   * options (certificates and token included) unless overridden. The two are isolated: writes to one are
   * not seen by the other, watches are independent, and both continue from the same resourceVersion.
   */
  fork(options?: Omit<ApiServerOptions, 'from' | 'dataDir' | 'etcdServers'>): Promise<ApiServer>;
  /** Sets the log lines served at GET .../pods/{pod}/log (optionally per container). */
  setPodLogs(namespace: string, pod: string, lines: string[], container?: string): void;
  /** Appends log lines; open `follow=true` streams receive them at once. */
  appendPodLogs(namespace: string, pod: string, lines: string[], container?: string): void;
  /** Replaces the handlers serving pods/exec, attach and portforward for every pod. */
  setPodHandlers(handlers: PodHandlers | undefined): void;
  /** Sets (undefined: removes) the handler of one pod; it wins over {@link ApiServer.setPodHandlers}'. */
  setPodHandler(namespace: string, pod: string, handler: PodHandler | undefined): void;
  /** Replaces the metrics.k8s.io NodeMetrics; the first metrics set makes the server serve that API. */
  setNodeMetrics(nodes: readonly NodeMetricsInput[]): void;
  /** Replaces the metrics.k8s.io PodMetrics; the first metrics set makes the server serve that API. */
  setPodMetrics(pods: readonly PodMetricsInput[]): void;
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
// kube-apiserver's http.Server IdleTimeout (k8s.io/apiserver pkg/server/secure_serving.go): 90 s.
const serverIdleTimeoutMs = 90_000;

// The certificate generator (and its crypto dependencies) loads only when TLS is asked for.
async function generate(...args: Parameters<typeof import('selfsigned').generate>): ReturnType<typeof import('selfsigned').generate> {
  return (await import('selfsigned')).generate(...args);
}

async function selfSignedCertificate(): Promise<{ key: string; cert: string }> {
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

// The CA of client certificates (kube-apiserver's --client-ca-file), made at start.
async function clientCertificateAuthority(): Promise<{ key: string; cert: string }> {
  const pems = await generate([{ name: 'commonName', value: 'kubeloom-client-ca' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true, critical: true },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}

function kubeconfigYaml(url: string, caPem: string | undefined, token: string | undefined, certificate?: ClientCertificate): string {
  const cluster: Record<string, unknown> = { server: url };
  if (caPem !== undefined) cluster['certificate-authority-data'] = Buffer.from(caPem).toString('base64');
  return toYaml({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'kubeloom', cluster }],
    users: [
      {
        name: 'kubeloom',
        user:
          certificate !== undefined
            ? { 'client-certificate-data': Buffer.from(certificate.certPem).toString('base64'), 'client-key-data': Buffer.from(certificate.keyPem).toString('base64') }
            : token === undefined
              ? {}
              : { token },
      },
    ],
    contexts: [{ name: 'kubeloom', context: { cluster: 'kubeloom', user: 'kubeloom', namespace: 'default' } }],
    'current-context': 'kubeloom',
    preferences: {},
  });
}

class EmbeddedApiServer implements ApiServer {
  url = '';
  kubeconfig = '';
  caCertPem?: string;
  clientCaCertPem?: string;
  readonly faults: Faults;
  readonly controllers: ControllerManager;
  readonly #clientCa: { key: string; cert: string } | undefined;
  readonly #aggregation: ClusterRoleAggregationController | undefined;
  readonly #handler: ApiHandler;
  readonly #streaming: StreamingHandler;
  readonly #metrics: MetricsApi;
  readonly #storage: Storage;
  readonly #server: Server;
  readonly #host: string;
  readonly #token: string | undefined;
  readonly #sockets = new Set<Socket>();
  readonly #loopbackToken = randomBytes(24).toString('hex');
  readonly #options: ApiServerOptions;
  readonly #tls: { key: string; cert: string } | undefined;
  readonly storage: ApiServerStorage;
  #compactor: Ticker | undefined;
  #port: number;
  #listening = false;

  constructor(
    options: ApiServerOptions,
    tls: { key: string; cert: string } | undefined,
    clientCa: { key: string; cert: string } | undefined,
    backend: StorageBackend | undefined,
    serviceAccountKey: ServiceAccountSigningKey | undefined,
  ) {
    const clock = options.clock ?? realClock;
    this.#host = options.host ?? '127.0.0.1';
    const rbac = options.rbac === true;
    // With RBAC the kubeconfig must name a user: the admin, with the given token or one made now.
    this.#token = options.token ?? (rbac ? randomBytes(24).toString('hex') : undefined);
    this.#clientCa = clientCa;
    this.#port = options.port ?? 0;
    this.#options = options;
    this.#tls = tls;
    this.#storage = new Storage(options.watchHistorySize ?? defaultWatchHistorySize, 0, backend);
    this.storage = backend === undefined ? { kind: StorageKind.Memory, description: 'memory (data is lost when the server stops)' } : { kind: backend.kind, description: backend.describe() };
    if (options.watchCache !== false) this.#storage.watchCache = new WatchCache(options.watchCache ?? {}, () => clock.now());
    this.faults = new Faults({
      closeWatches: (r) => this.#handler.closeWatches(r),
      stallWatches: (r) => this.#handler.stallWatches(r),
      injectMalformedLine: (r) => this.#handler.injectMalformedLine(r),
      compact: (rv) => this.#storage.compact(rv),
      restart: () => this.#restart(),
    });
    // A shared backend that listed everything again (its watch fell behind etcd's compaction): the watches
    // end, and their clients' next watch from an older resourceVersion is 410 (relist), as with the cacher.
    this.#storage.onRelist(() => this.#handler.closeWatches());
    this.#handler = new ApiHandler(new ResourceRegistry(), this.#storage, this.faults, {
      token: this.#token,
      schemaValidation: options.crdSchemaValidation ?? true,
      rbac,
      // The loopback credential of the controllers running as clients of this server (kube-apiserver's
      // loopback token: a privileged user known only to this process).
      users: [...(options.users ?? []), { name: 'system:kube-controller-manager', token: this.#loopbackToken, groups: ['system:masters'] }],
      ...(options.anonymous === undefined ? {} : { anonymous: options.anonymous }),
      serviceAccountIssuer: options.serviceAccountIssuer,
      serviceAccountSigningKey: serviceAccountKey,
      ...(options.resourceQuota === undefined ? {} : { resourceQuota: options.resourceQuota }),
      webhookServices: (namespace, name, port) => options.webhookServices?.[`${namespace}/${name}:${port}`] ?? options.webhookServices?.[`${namespace}/${name}`],
      bookmarkIntervalMs: options.bookmarkIntervalMs ?? defaultBookmarkIntervalMs,
      defaultWatchTimeoutSeconds: options.defaultWatchTimeoutSeconds ?? defaultWatchTimeoutSeconds,
      maxRequestBodyBytes: options.maxRequestBodyBytes ?? defaultMaxRequestBodyBytes,
      clock,
      ...(options.featureGates === undefined ? {} : { featureGates: options.featureGates }),
      recordRequestsTo: options.recordRequestsTo ?? rbacLearnFile(),
    });
    const compactionIntervalMs = options.compactionIntervalMs ?? 0;
    if (compactionIntervalMs > 0) {
      let seen = 0;
      this.#compactor = clock.newTicker(compactionIntervalMs, () => {
        if (seen > 0) this.#storage.compact(seen);
        seen = this.#storage.revision;
      });
    }
    const scope = this.#handler.internalScope();
    if (options.from !== undefined) {
      this.#storage.restore(options.from.storage);
      restoreDerivedState(scope, { customResources: options.from.customResources, clientCaPem: clientCa?.cert });
    } else if (this.#storage.revision > 0 && this.#storage.count('namespaces') > 0) {
      // Data from a data directory or etcd: rebuild what is derived from it; the bootstrap objects are there.
      restoreDerivedState(scope, { clientCaPem: clientCa?.cert });
    } else if (backend === undefined) {
      // The objects kube-apiserver's bootstrap controllers write (the kubernetes Service once it listens),
      // from the process's copy written once (bootstrap-snapshot.ts).
      this.#storage.restore(bootstrapSnapshot(scope.now(), { rbac, clientCaPem: clientCa?.cert }));
    } else {
      bootstrapObjects(scope, clientCa === undefined ? {} : { clientCaPem: clientCa.cert });
      if (rbac) this.#handler.seedBootstrapPolicy();
    }
    if (isRevisioned(backend)) followSharedCustomResources(scope);
    // A server that starts with RBAC on data written without it gets the bootstrap policy now.
    if (rbac && this.#storage.get('clusterroles.rbac.authorization.k8s.io', 'cluster-admin') === undefined) this.#handler.seedBootstrapPolicy();
    if (rbac) {
      this.#aggregation = new ClusterRoleAggregationController(this.#storage, () => formatTime(clock.now()));
    }
    // The watch caches start once the bootstrap objects are written (upstream's list when the server starts).
    this.#storage.watchCache?.begin(this.#storage.revision);
    this.controllers = new ControllerManager(this.#handler.internalScope(), clock, options.controllers, () => this.loopbackConfig());
    this.#metrics = new MetricsApi(this.#handler.registry, this.#storage, () => formatTime(clock.now()));
    this.#streaming = new StreamingHandler({ storage: this.#storage, access: this.#handler.access, ...(options.podHandlers === undefined ? {} : { handlers: options.podHandlers }) });
    const listener = (req: IncomingMessage, res: ServerResponse): void => {
      if (!this.#streaming.handleRequest(req, res)) this.#handler.handle(req, res);
    };
    // Only the streaming subresources are upgraded; any other request asking for an upgrade (h2c from
    // curl --http2) is served as a plain request (Node >= 24.9; older versions send them all to 'upgrade').
    const upgrades = { shouldUpgradeCallback: (req: IncomingMessage): boolean => this.#streaming.wantsUpgrade(req) };
    if (tls !== undefined) {
      this.caCertPem = tls.cert;
      this.clientCaCertPem = clientCa?.cert;
      // Client certificates are asked for and checked against the client CA; one that does not verify
      // is refused by the authenticator (401), not by the handshake, as kube-apiserver does.
      this.#server = createHttpsServer({ key: tls.key, cert: tls.cert, requestCert: true, rejectUnauthorized: false, ...(clientCa === undefined ? {} : { ca: clientCa.cert }), ...upgrades }, listener);
    } else {
      this.#server = createHttpServer(upgrades, listener);
    }
    // Watches and log streams stay open for as long as the client wants; no server-side socket timeout.
    this.#server.timeout = 0;
    this.#server.requestTimeout = 0;
    // An idle keep-alive connection stays open 90 s, as kube-apiserver's (IdleTimeout in k8s.io/apiserver
    // pkg/server/secure_serving.go, matching Go's http.DefaultTransport IdleConnTimeout). Node's 5 s default
    // closes connections Go clients still hold as reusable: a POST sent on one as it closes fails with
    // "connection reset by peer" and is not retried (the real kube-scheduler lost pod bindings that way).
    this.#server.keepAliveTimeout = serverIdleTimeoutMs;
    this.#server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
    this.#server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.#streaming.handleUpgrade(req, socket, head));
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
    bootstrapKubernetesService(this.#handler.internalScope(), this.#host, this.#port);
    this.kubeconfig = kubeconfigYaml(this.url, this.caCertPem, this.#token);
  }

  async issueClientCertificate(user: { name: string; groups?: readonly string[] }): Promise<ClientCertificate> {
    if (this.#clientCa === undefined) throw new Error('client certificates need a server started with tls: true');
    const escape = (v: string): string => v.replace(/([,+"\\<>;=])/g, '\\$1');
    const attrs = [{ name: 'commonName', value: escape(user.name) }, ...(user.groups ?? []).map((g) => ({ name: 'organizationName', value: escape(g) }))];
    const pems = await generate(attrs, {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      ca: this.#clientCa,
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, critical: true },
        { name: 'extKeyUsage', clientAuth: true },
      ],
    });
    return { certPem: pems.cert, keyPem: pems.private };
  }

  /** The client config of the controllers running inside the server: its own address, the loopback token. */
  loopbackConfig(): RestConfig {
    return {
      host: this.url,
      bearerToken: this.#loopbackToken,
      ...(this.caCertPem === undefined ? {} : { tls: { caData: this.caCertPem } }),
      // No client-side limit, as kube-apiserver's own loopback clients (they share the process).
      qps: -1,
    };
  }

  userKubeconfig(credentials: { token: string } | { certificate: ClientCertificate }): string {
    return 'token' in credentials ? kubeconfigYaml(this.url, this.caCertPem, credentials.token) : kubeconfigYaml(this.url, this.caCertPem, undefined, credentials.certificate);
  }

  async writeKubeconfig(path: string): Promise<void> {
    await writeFile(path, this.kubeconfig, { mode: 0o600 });
    await chmod(path, 0o600);
  }

  revision(): number {
    return this.#storage.revision;
  }

  snapshot(): ApiServerSnapshot {
    return { storage: this.#storage.snapshot(), customResources: this.#handler.registry.customResources() };
  }

  async fork(options: Omit<ApiServerOptions, 'from' | 'dataDir' | 'etcdServers'> = {}): Promise<ApiServer> {
    const { dataDir: _dataDir, etcdServers: _etcdServers, ...inherited } = this.#options;
    // The same certificates and credentials, so the parent's kubeconfig works against the fork; the same
    // ServiceAccount signing key, so tokens issued by either verify on both.
    return launch({ ...inherited, port: 0, token: this.#token, ...options, from: this.snapshot() }, this.#tls, this.#clientCa, this.#handler.access.tokens.signingKey);
  }

  setPodLogs(namespace: string, pod: string, lines: string[], container?: string): void {
    this.#handler.logs.set(namespace, pod, lines, container);
  }

  appendPodLogs(namespace: string, pod: string, lines: string[], container?: string): void {
    this.#handler.logs.append(namespace, pod, lines, container);
  }

  setNodeMetrics(nodes: readonly NodeMetricsInput[]): void {
    this.#metrics.setNodeMetrics(nodes);
  }

  setPodMetrics(pods: readonly PodMetricsInput[]): void {
    this.#metrics.setPodMetrics(pods);
  }

  setPodHandlers(handlers: PodHandlers | undefined): void {
    this.#streaming.setPodHandlers(handlers);
  }

  setPodHandler(namespace: string, pod: string, handler: PodHandler | undefined): void {
    this.#streaming.setPodHandler(namespace, pod, handler);
  }

  async #close(): Promise<void> {
    if (!this.#listening) return;
    this.#listening = false;
    this.#handler.destroyStreams();
    this.#streaming.destroyAll();
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    for (const s of this.#sockets) s.destroy();
    this.#sockets.clear();
    await closed;
  }

  async #restart(): Promise<void> {
    await this.#close();
    // A restarted kube-apiserver's watch caches list afresh at the current revision.
    this.#storage.watchCache?.restart(this.#storage.revision);
    await this.listen();
  }

  async stop(): Promise<void> {
    this.#compactor?.stop();
    this.#aggregation?.stop();
    await this.controllers.stopAll();
    await this.#close();
    this.#storage.backend?.close();
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
  const secure = options.tls ?? (options.token !== undefined || options.rbac === true);
  if (!secure) return launch(options, undefined, undefined);
  if (options.certDir === undefined) return launch(options, await selfSignedCertificate(), await clientCertificateAuthority());
  return launch(options, await keptCertificate(options.certDir, 'apiserver', selfSignedCertificate), await keptCertificate(options.certDir, 'client-ca', clientCertificateAuthority));
}

// kube-apiserver's --cert-dir: a self-signed pair made on the first start, the same one read back afterwards.
async function keptCertificate(dir: string, name: string, make: () => Promise<{ key: string; cert: string }>): Promise<{ key: string; cert: string }> {
  const certFile = path.join(dir, `${name}.crt`);
  const keyFile = path.join(dir, `${name}.key`);
  try {
    return { cert: await readFile(certFile, 'utf8'), key: await readFile(keyFile, 'utf8') };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const pair = await make();
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(keyFile, pair.key, { mode: 0o600 });
  await writeFile(certFile, pair.cert, { mode: 0o644 });
  return pair;
}

async function launch(
  options: ApiServerOptions,
  tls: { key: string; cert: string } | undefined,
  clientCa: { key: string; cert: string } | undefined,
  serviceAccountKey?: ServiceAccountSigningKey,
): Promise<ApiServer> {
  if (options.dataDir !== undefined && options.from !== undefined) throw new Error('startApiServer: `from` and `dataDir` cannot be combined');
  if (options.etcdServers !== undefined && (options.dataDir !== undefined || options.from !== undefined)) throw new Error('startApiServer: `etcdServers` cannot be combined with `dataDir` or `from`');
  // node:sqlite loads only for a data directory (Node 22 warns that it is experimental when it loads).
  const backend =
    options.etcdServers !== undefined && options.etcdServers.length > 0
      ? (await import('./storage/etcd-backend.ts')).EtcdBackend.open(options.etcdServers, { ...(options.etcdPrefix === undefined ? {} : { prefix: options.etcdPrefix }), ...(options.etcdTls === undefined ? {} : { tls: options.etcdTls }) })
      : options.dataDir === undefined
        ? undefined
        : (await import('./storage/sqlite-backend.ts')).SqliteBackend.open(options.dataDir);
  let server: EmbeddedApiServer;
  try {
    // Tokens issued before a restart must still verify: the signing key lives beside the data (read after
    // the backend holds the directory's lock, so two servers never race to make it).
    const saKey = serviceAccountKey ?? (options.dataDir === undefined ? undefined : await keptServiceAccountKey(options.dataDir));
    server = new EmbeddedApiServer(options, tls, clientCa, backend, saKey);
  } catch (err) {
    backend?.close();
    throw err;
  }
  try {
    await server.listen();
  } catch (err) {
    await server.stop();
    throw err;
  }
  server.controllers.startEnabled();
  return server;
}
