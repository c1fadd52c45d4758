/**
 * One suite, two backends: the end-to-end tests run against the embedded API server (`npm test`, the
 * default) or against a real cluster (`npm run test:real`, which sets `KUBELOOM_TEST_BACKEND=real`
 * and reads the cluster from `KUBELOOM_TEST_KUBECONFIG`).
 *
 * A test declared with {@link e2eTest} gets an {@link E2eEnv}: a RestConfig and clientset for the
 * backend, a fresh namespace of its own (created before, deleted after — deletion is requested, never
 * waited for, because a cluster without kube-controller-manager keeps namespaces Terminating), a
 * kubeconfig file pointing at that namespace, CRD and compaction helpers that work on both backends,
 * and — on the embedded backend only — the {@link ApiServer} itself for fault injection.
 *
 * A test that needs what only the embedded server offers (fault injection, pod logs without a kubelet,
 * plain HTTP, ...) lists it in `needs`; on a real cluster lacking it, it is reported as skipped with
 * that reason. A test that needs what only kube-apiserver offers (API aggregation, subresources the
 * embedded server does not serve yet) lists that: it is not registered on the embedded backend at all,
 * so `npm test` skips nothing, and runs in `npm run test:real` where the cluster has it. See
 * docs/testing-real-cluster.md.
 */
import { test, type TestContext } from 'node:test';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CustomResourceDefinition } from '../../src/api/apiextensions/v1.ts';
import { startApiServer, type ApiServer, type ApiServerFaults } from '../../src/testing/index.ts';
import { loadKubeConfigFile, parseKubeConfig, restConfigFrom, writeKubeConfig, type KubeConfig } from '../../src/clientcmd/index.ts';
import { newClientset, type Clientset } from '../../src/kubernetes/index.ts';
import { RestClient, type RestConfig } from '../../src/rest/index.ts';
import { acceptDiscoveryFormats } from '../../src/discovery/index.ts';
import { DynamicClient } from '../../src/dynamic/index.ts';
import { PatchType } from '../../src/apimachinery/options.ts';
import { isAlreadyExists, isBadRequest, isExpired, isInvalid, isNotFound, StatusError } from '../../src/apimachinery/errors.ts';
import { protectRestConfig } from '../../src/clientcmd/redact.ts';
import { BackendEnvVar, CompactionTimeoutEnvVar, e2eNamespaceLabel, KubeconfigEnvVar } from './backend-env.ts';

export { BackendEnvVar, CompactionTimeoutEnvVar, KubeconfigEnvVar };

/** The backends a test can run on. */
export type BackendName = 'embedded' | 'real';

/** What a backend may lack; a test names what it needs and is skipped where it is missing. */
export const Capability = {
  /** Fault injection: failNext, delay, closeWatches, cut or malformed watch lines, listener restart. */
  Faults: 'faults',
  /** Pod logs the test writes itself (`setPodLogs`): a real cluster needs a kubelet and a running container. */
  PodLogs: 'podLogs',
  /** Serving plain HTTP. */
  PlainHttp: 'plainHttp',
  /** Authentication by bearer token (so a wrong token is refused with 401). */
  BearerToken: 'bearerToken',
  /** Streaming lists (watch-list: `sendInitialEvents=true`); a server without the WatchList feature refuses them (1.24: 422). */
  WatchList: 'watchList',
  /** Aggregated discovery (every group, version and resource in the answers of /api and /apis): Kubernetes ≥ 1.30. */
  AggregatedDiscovery: 'aggregatedDiscovery',
  /** The test runs an API server of its own (for example `kubeloom demo` without a kubeconfig starts one). */
  OwnServer: 'ownServer',
  /** The pod subresources that need no kubelet: pods/eviction, pods/ephemeralcontainers. */
  PodSubresources: 'podSubresources',
  /** CertificateSigningRequests (certificates.k8s.io/v1) and their /approval subresource. */
  CertificateApproval: 'certificateApproval',
  /** Server-side apply to a /scale subresource. */
  ScaleApply: 'scaleApply',
  // What kube-apiserver has and the embedded server does not (yet): such tests run in the real lane only.
  /** API aggregation: APIServices (apiregistration.k8s.io) whose groups the apiserver proxies to their backends. */
  ApiAggregation: 'apiAggregation',
} as const;
/** One of {@link Capability}'s values. */
export type Capability = (typeof Capability)[keyof typeof Capability];

const capabilityReasons: Record<Capability, string> = {
  faults: 'needs fault injection, which only the embedded API server has',
  podLogs: 'needs container logs, which need a kubelet (the embedded API server serves logs set by the test)',
  plainHttp: 'the cluster serves HTTPS only (the HTTPS variant of this test runs)',
  bearerToken: 'the cluster does not authenticate with a bearer token',
  watchList: 'the cluster does not serve streaming lists (watch-list)',
  aggregatedDiscovery: 'the cluster does not serve aggregated discovery',
  ownServer: 'runs an embedded API server of its own; nothing to point at a cluster',
  apiAggregation: 'the cluster does not serve apiregistration.k8s.io/v1 APIServices',
  podSubresources: 'the cluster does not serve pods/eviction and pods/ephemeralcontainers',
  certificateApproval: 'the cluster does not serve certificatesigningrequests/approval (certificates.k8s.io/v1)',
  scaleApply: 'the cluster refuses apply patches to /scale',
};

/** The capabilities only kube-apiserver has: tests needing one are not registered on the embedded backend. */
const clusterOnly: ReadonlySet<Capability> = new Set([Capability.ApiAggregation]);

/** Options of {@link e2eTest}. */
export interface E2eTestOptions {
  /** What the test needs beyond the basics; on a backend lacking one it is skipped with the reason. */
  needs?: readonly Capability[];
  /** Embedded backend: serve HTTPS with a self-signed CA (default false). The real backend is always what its kubeconfig says. */
  tls?: boolean;
  /** Embedded backend: require a bearer token, as a real cluster does (default false); implies `tls`, since a kubeconfig's token goes only to https. */
  token?: boolean;
}

/** What a test gets from its backend. */
export interface E2eEnv {
  /** Which backend this run uses. */
  readonly backend: BackendName;
  /** The test's own namespace, created before it runs. */
  readonly namespace: string;
  /** A clientset on {@link E2eEnv.restConfig}, closed after the test. */
  readonly cs: Clientset;
  /** The embedded server, or undefined on the real backend. Prefer {@link E2eEnv.faults} and the helpers. */
  readonly embedded: ApiServer | undefined;
  /** The embedded server's fault injection; throws on the real backend (declare `needs: [Capability.Faults]`). */
  readonly faults: ApiServerFaults;
  /** The base URL of the API server. */
  readonly host: string;
  /** A fresh RestConfig for the backend (client-side rate limiting off), with `extra` on top. */
  restConfig(extra?: Partial<RestConfig>): RestConfig;
  /** Whether the backend has `capability`. */
  has(capability: Capability): boolean;
  /** A name unique to this run, for cluster-scoped objects: `<base>-<random>`. */
  uniqueName(base: string): string;
  /**
   * Six random lowercase letters, fixed for the test: a suffix for names that must not collide with
   * anyone else's on a shared cluster even where only letters are allowed (CRD kinds, plurals, short names).
   */
  readonly suffix: string;
  /** Creates another namespace (unique name from `base`), deleted after the test like the first. */
  createNamespace(base?: string): Promise<string>;
  /** Deletes after the test a namespace the test created some other way (kubectl create namespace). */
  adoptNamespace(name: string): void;
  /** A kubeconfig file for the backend whose current context uses `namespace` (default: the test's). */
  kubeconfig(namespace?: string): Promise<string>;
  /** A temporary directory, removed after the test. */
  tmpDir(): Promise<string>;
  /** Creates a CRD, waits until it is Established and served, and deletes it after the test. */
  createCrd(crd: CustomResourceDefinition): Promise<CustomResourceDefinition>;
  /**
   * For a CRD created some other way (a manifest, kubectl): waits until it is Established and served
   * and deletes it after the test. A real apiserver establishes CRDs asynchronously.
   */
  adoptCrd(name: string): Promise<CustomResourceDefinition>;
  /**
   * Creates a CRD unless it exists and waits until it is served; it is never deleted (a CRD with a
   * fixed name, such as the PodSet demo's, may be in use by other tests at the same time).
   */
  ensureSharedCrd(crd: CustomResourceDefinition): Promise<CustomResourceDefinition>;
  /**
   * Resolves once etcd history up to `resourceVersion` has been compacted: the embedded server compacts
   * on demand; on a real cluster this waits for its periodic compaction (kube-apiserver
   * `--etcd-compaction-interval`), observed as 410 Expired for an exact-resourceVersion LIST.
   */
  waitForCompaction(resourceVersion: string): Promise<void>;
  /** Runs `fn` after the test body, before the clientset closes and the namespace goes (last registered first). */
  defer(fn: () => Promise<void> | void): void;
}

interface Backend {
  readonly name: BackendName;
  readonly capabilities: ReadonlySet<Capability>;
  /** Prepares one test's server (embedded: a new one; real: the shared cluster). */
  open(options: E2eTestOptions): Promise<Connection>;
}

interface Connection {
  readonly embedded: ApiServer | undefined;
  /** The kubeconfig (in memory) of this connection. */
  readonly kubeConfig: KubeConfig;
  readonly restConfig: RestConfig;
  close(): Promise<void>;
}

function random(): string {
  return randomBytes(4).toString('hex');
}

/** Resolves after `ms` on the real clock (used only between polls, never as an assertion). */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const embeddedBackend: Backend = {
  name: 'embedded',
  capabilities: new Set(Object.values(Capability).filter((c) => !clusterOnly.has(c))),
  async open(options) {
    const server = await startApiServer({ tls: options.tls === true || options.token === true, ...(options.token === true ? { token: `e2e-${random()}` } : {}) });
    const kubeConfig = parseKubeConfig(server.kubeconfig);
    return { embedded: server, kubeConfig, restConfig: { ...(await restConfigFrom(kubeConfig)), qps: -1 }, close: () => server.stop() };
  },
};

async function realBackend(kubeconfigPath: string): Promise<Backend> {
  const kubeConfig = await loadKubeConfigFile(kubeconfigPath);
  const restConfig: RestConfig = { ...(await restConfigFrom(kubeConfig)), qps: -1 };
  const capabilities = new Set<Capability>();
  if (restConfig.host.startsWith('http:')) capabilities.add(Capability.PlainHttp);
  if (restConfig.bearerToken !== undefined) capabilities.add(Capability.BearerToken);
  if (await servesWatchList(restConfig)) capabilities.add(Capability.WatchList);
  if (await servesAggregatedDiscovery(restConfig)) capabilities.add(Capability.AggregatedDiscovery);
  for (const c of await servedClusterCapabilities(restConfig)) capabilities.add(c);
  return {
    name: 'real',
    capabilities,
    async open() {
      return { embedded: undefined, kubeConfig, restConfig, close: async () => {} };
    },
  };
}

/**
 * Asks the cluster for a streaming list of namespaces. A server without the WatchList feature refuses
 * it with a Status (1.24: 422 Invalid, resourceVersionMatch is forbidden for watch); anything else
 * (an unreachable cluster, bad credentials) is not an answer and fails the run.
 */
async function servesWatchList(config: RestConfig): Promise<boolean> {
  const cs = newClientset(config);
  try {
    const w = await cs.coreV1().namespaces().watch({ sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true, timeoutSeconds: 1 });
    for await (const e of w) {
      if (e.type === 'ERROR') return false;
      break;
    }
    return true;
  } catch (err) {
    if (err instanceof StatusError && (isInvalid(err) || isBadRequest(err))) return false;
    throw err;
  } finally {
    await cs.close();
  }
}

/** Asks /apis for aggregated discovery; a server without it answers the legacy APIGroupList instead. */
async function servesAggregatedDiscovery(config: RestConfig): Promise<boolean> {
  const rest = new RestClient(config);
  try {
    const res = await rest.do({ verb: 'GET', path: '/apis', query: [], headers: { accept: acceptDiscoveryFormats } });
    return String(res.headers['content-type'] ?? '').includes('as=APIGroupDiscoveryList');
  } finally {
    await rest.close();
  }
}

/**
 * Which of the {@link clusterOnly} capabilities the cluster has: the subresources from discovery, apply
 * to /scale from the answer to an apply for a Deployment that does not exist (404 where apply is
 * accepted, 415 where it is not; nothing is written either way).
 */
async function servedClusterCapabilities(config: RestConfig): Promise<Capability[]> {
  const rest = new RestClient(config);
  try {
    const names = async (groupVersion: string): Promise<Set<string>> => {
      const path = groupVersion === 'v1' ? '/api/v1' : `/apis/${groupVersion}`;
      try {
        const list = await rest.json<{ resources?: Array<{ name: string }> }>({ verb: 'GET', path, query: [], headers: { accept: 'application/json' } });
        return new Set((list.resources ?? []).map((r) => r.name));
      } catch (err) {
        if (isNotFound(err)) return new Set();
        throw err;
      }
    };
    const core = await names('v1');
    const out: Capability[] = [];
    if ((await names('apiregistration.k8s.io/v1')).has('apiservices')) out.push(Capability.ApiAggregation);
    if (['pods/eviction', 'pods/ephemeralcontainers'].every((n) => core.has(n))) out.push(Capability.PodSubresources);
    if ((await names('certificates.k8s.io/v1')).has('certificatesigningrequests/approval')) out.push(Capability.CertificateApproval);
    const scaleApply = await rest
      .json({ verb: 'PATCH', path: `/apis/apps/v1/namespaces/kl-e2e-probe-${random()}/deployments/none/scale`, query: [['fieldManager', 'kubeloom-e2e-probe']], headers: { 'content-type': 'application/apply-patch+yaml' }, body: '{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"none"}}' })
      .then(() => true, (err: unknown) => isNotFound(err));
    if (scaleApply) out.push(Capability.ScaleApply);
    return out;
  } finally {
    await rest.close();
  }
}

async function selectBackend(): Promise<Backend> {
  if (process.env[BackendEnvVar] !== 'real') return embeddedBackend;
  const file = process.env[KubeconfigEnvVar];
  if (file === undefined || file === '') throw new Error(`${BackendEnvVar}=real needs ${KubeconfigEnvVar} (a kubeconfig of the cluster to test against); see docs/testing-real-cluster.md`);
  return realBackend(file);
}

/** The backend of this test process. */
const backend: Backend = await selectBackend();

/** Why `needs` cannot run on this backend, or undefined when it can. */
function missing(needs: readonly Capability[] | undefined, options: E2eTestOptions): string | undefined {
  const wanted = [...(needs ?? [])];
  if (backend.name === 'real' && options.tls === false) wanted.push(Capability.PlainHttp);
  if (options.token === true) wanted.push(Capability.BearerToken);
  const absent = wanted.filter((c) => !backend.capabilities.has(c));
  if (absent.length === 0) return undefined;
  return `${backend.name} backend: ${absent.map((c) => capabilityReasons[c]).join('; ')}`;
}

class Env implements E2eEnv {
  readonly backend: BackendName;
  namespace = '';
  readonly cs: Clientset;
  readonly suffix = Array.from(randomBytes(6), (b) => String.fromCharCode(97 + (b % 26))).join('');
  readonly #conn: Connection;
  readonly #deferred: Array<() => Promise<void> | void> = [];
  readonly #namespaces: string[] = [];
  /** Namespaces created outside {@link Env.createNamespace}: labelled before deletion so that purges find them. */
  readonly #adopted = new Set<string>();
  readonly #crds: string[] = [];
  readonly #dirs: string[] = [];

  constructor(conn: Connection) {
    this.backend = backend.name;
    this.#conn = conn;
    this.cs = newClientset(this.restConfig());
  }

  get embedded(): ApiServer | undefined {
    return this.#conn.embedded;
  }

  get faults(): ApiServerFaults {
    if (this.#conn.embedded === undefined) throw new Error('fault injection exists only on the embedded API server: declare needs: [Capability.Faults]');
    return this.#conn.embedded.faults;
  }

  get host(): string {
    return this.#conn.restConfig.host;
  }

  restConfig(extra: Partial<RestConfig> = {}): RestConfig {
    const base = this.#conn.restConfig;
    return protectRestConfig({ ...base, ...(base.tls !== undefined ? { tls: { ...base.tls } } : {}), ...extra });
  }

  has(capability: Capability): boolean {
    return backend.capabilities.has(capability);
  }

  uniqueName(base: string): string {
    return `${base}-${random()}`;
  }

  async createNamespace(base = 'kl-e2e'): Promise<string> {
    const name = this.uniqueName(base);
    await this.cs.coreV1().namespaces().create({ metadata: { name, labels: { [e2eNamespaceLabel]: 'true' } } });
    this.#namespaces.push(name);
    return name;
  }

  adoptNamespace(name: string): void {
    if (!this.#namespaces.includes(name)) this.#namespaces.push(name);
    this.#adopted.add(name);
  }

  async kubeconfig(namespace = this.namespace): Promise<string> {
    const config = structuredClone(this.#conn.kubeConfig);
    const context = config.contexts[config.currentContext];
    if (context === undefined) throw new Error(`the kubeconfig has no context "${config.currentContext}"`);
    context.namespace = namespace;
    const file = path.join(await this.tmpDir(), 'kubeconfig');
    await writeKubeConfig(file, config);
    return file;
  }

  async tmpDir(): Promise<string> {
    const dir = await mkdtemp(path.join(tmpdir(), 'kubeloom-e2e-'));
    this.#dirs.push(dir);
    return dir;
  }

  async createCrd(crd: CustomResourceDefinition): Promise<CustomResourceDefinition> {
    const created = await this.cs.apiextensionsV1().customResourceDefinitions().create(crd);
    return this.adoptCrd(created.metadata?.name ?? '');
  }

  async adoptCrd(name: string): Promise<CustomResourceDefinition> {
    if (!this.#crds.includes(name)) this.#crds.push(name);
    return this.#waitServed(name);
  }

  async ensureSharedCrd(crd: CustomResourceDefinition): Promise<CustomResourceDefinition> {
    try {
      await this.cs.apiextensionsV1().customResourceDefinitions().create(structuredClone(crd));
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    return this.#waitServed(crd.metadata?.name ?? '');
  }

  async #waitServed(name: string): Promise<CustomResourceDefinition> {
    const crds = this.cs.apiextensionsV1().customResourceDefinitions();
    const established = (c: CustomResourceDefinition): boolean => c.status?.conditions?.some((x) => x.type === 'Established' && x.status === 'True') === true;
    let current = await crds.get(name);
    for (let i = 0; !established(current); i++) {
      if (i > 600) throw new Error(`CRD ${name} was not Established within a minute`);
      await pause(100);
      current = await crds.get(name);
    }
    // Established is set before every apiserver handler serves the new resource; wait until a list answers.
    const { group, versions, names } = current.spec;
    const served = versions.find((v) => v.served)?.name ?? versions[0]!.name;
    for (let i = 0; ; i++) {
      try {
        await new DynamicClient(this.cs.restClient).resource({ group, version: served, resource: names.plural }).list({ limit: 1 });
        break;
      } catch (err) {
        if (!isNotFound(err) || i > 600) throw err;
        await pause(100);
      }
    }
    return current;
  }

  async waitForCompaction(resourceVersion: string): Promise<void> {
    if (this.#conn.embedded !== undefined) {
      this.#conn.embedded.faults.compact();
      return;
    }
    const timeoutMs = Number(process.env[CompactionTimeoutEnvVar] ?? 60_000);
    const cms = this.cs.coreV1().configMaps(this.namespace);
    const started = performance.now();
    for (;;) {
      try {
        await cms.list({ resourceVersion, resourceVersionMatch: 'Exact', limit: 1 });
      } catch (err) {
        if (isExpired(err)) return;
        throw err;
      }
      if (performance.now() - started > timeoutMs) {
        throw new Error(`the cluster did not compact past resourceVersion ${resourceVersion} within ${timeoutMs} ms: start kube-apiserver with a short --etcd-compaction-interval (../shared/realk8s: COMPACTION_INTERVAL=10s) or raise ${CompactionTimeoutEnvVar}`);
      }
      await pause(500);
    }
  }

  defer(fn: () => Promise<void> | void): void {
    this.#deferred.push(fn);
  }

  /** Runs the deferred functions, then removes what the test created; the first error wins. */
  async cleanup(): Promise<void> {
    const errors: unknown[] = [];
    const attempt = async (fn: () => unknown): Promise<void> => {
      try {
        await fn();
      } catch (err) {
        errors.push(err);
      }
    };
    for (const fn of this.#deferred.reverse()) await attempt(fn);
    if (this.backend === 'real') {
      // Requested, not awaited: without kube-controller-manager a namespace stays Terminating.
      const namespaces = this.cs.coreV1().namespaces();
      for (const ns of this.#namespaces) {
        await attempt(async () => {
          try {
            if (this.#adopted.has(ns)) await namespaces.patch(ns, PatchType.Merge, { metadata: { labels: { [e2eNamespaceLabel]: 'true' } } });
            await namespaces.delete(ns);
          } catch (err) {
            if (!isNotFound(err)) throw err;
          }
        });
      }
      for (const crd of this.#crds) await attempt(() => this.cs.apiextensionsV1().customResourceDefinitions().delete(crd).catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e))));
    }
    await attempt(() => this.cs.close());
    await attempt(() => this.#conn.close());
    for (const dir of this.#dirs) await attempt(() => rm(dir, { recursive: true, force: true }));
    if (errors.length > 0) throw errors[0];
  }
}

/**
 * Declares an end-to-end test that runs on the selected backend, in a namespace of its own.
 *
 * @example
 * e2eTest('typed create and get', async (env) => {
 *   const cms = env.cs.coreV1().configMaps(env.namespace);
 *   await cms.create({ metadata: { name: 'a' } });
 * });
 * e2eTest('a 429 is retried', { needs: [Capability.Faults] }, async (env) => {
 *   env.faults.failNext({ verb: 'get', status: 429 });
 * });
 */
export function e2eTest(name: string, fn: (env: E2eEnv, t: TestContext) => Promise<void>): void;
export function e2eTest(name: string, options: E2eTestOptions, fn: (env: E2eEnv, t: TestContext) => Promise<void>): void;
export function e2eTest(name: string, a: E2eTestOptions | ((env: E2eEnv, t: TestContext) => Promise<void>), b?: (env: E2eEnv, t: TestContext) => Promise<void>): void {
  const options = typeof a === 'function' ? {} : a;
  const fn = typeof a === 'function' ? a : b!;
  const skip = missing(options.needs, options);
  if (skip !== undefined) {
    // What only kube-apiserver has is not registered on the embedded backend: `npm test` lists only
    // what it runs, and the real lane runs these (or reports them skipped where the cluster lacks them).
    if (backend.name === 'embedded' && (options.needs ?? []).some((c) => clusterOnly.has(c))) return;
    test(name, { skip }, () => {});
    return;
  }
  test(name, async (t) => {
    const env = new Env(await backend.open(options));
    let failed = true;
    try {
      env.namespace = await env.createNamespace();
      await fn(env, t);
      failed = false;
    } finally {
      // A failing body's error wins over a cleanup error.
      await env.cleanup().catch((err: unknown) => {
        if (!failed) throw err;
      });
    }
  });
}
