/**
 * `kubeloom demo`: runs the PodSet controller. By default it brings its own cluster (the embedded API
 * server), drives a workload against the controller and prints a summary. Only when a cluster is
 * named explicitly (`--kubeconfig`, `--context` or `--in-cluster`) does it run the controller there,
 * until interrupted, after printing which cluster it writes to: a KUBECONFIG in the environment is
 * never enough to make the demo write to a cluster.
 */
import { access, mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import type { CustomResourceDefinition } from '../api/apiextensions/v1.ts';
import { isAlreadyExists, isNotFound } from '../apimachinery/errors.ts';
import { loadKubeConfig } from '../clientcmd/load.ts';
import { restConfigFrom } from '../clientcmd/rest-config.ts';
import { inClusterKubeConfig, inClusterNamespace } from '../clientcmd/in-cluster.ts';
import { kubeConfigPrecedence } from '../clientcmd/load.ts';
import { RestClient } from '../rest/client.ts';
import type { RestConfig } from '../rest/config.ts';
import { ResourceClient } from '../kubernetes/resource-client.ts';
import { customResourceClient } from '../kubernetes/clientset.ts';
import { startApiServer, type ApiServer } from '../testing/index.ts';
import { realClock, type Clock } from '../util/clock/clock.ts';
import type { PrometheusRegistry } from '../util/prometheus/registry.ts';
import { startMetricsServer, type MetricsServer } from './metrics-server.ts';
import { Progress, type ProgressOutput } from './progress.ts';
import { DemoRuntime } from './runtime.ts';
import { podSetCrd, podSetResourceSpec } from './podset.ts';
import { formatSummary, type DemoSummary } from './summary.ts';
import { runWorkload, type StepResult } from './workload.ts';

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /**
   * Run against the cluster of this kubeconfig file (its current context, or `context`). Without
   * `kubeconfig`, `context` or `inCluster` the demo runs on the embedded API server, whatever
   * KUBECONFIG or ~/.kube/config say: a cluster is written to only when named explicitly.
   */
  kubeconfig?: string;
  /** Run against this context of the kubeconfig (`kubeconfig`, else KUBECONFIG, else ~/.kube/config). */
  context?: string;
  /** Run against the cluster this pod runs in (its service account); for the Deployment in deploy/. */
  inCluster?: boolean;
  /** Embedded mode: keep running after the workload until `signal` aborts. */
  serve?: boolean;
  /** Port of /metrics, /healthz, /readyz. Default 0 (any free port) locally, 8080 in a cluster. */
  metricsPort?: number;
  /** Address of the endpoints. Default 127.0.0.1 locally, 0.0.0.0 in a cluster. */
  metricsHost?: string;
  /** PodSets the workload creates (default 3). */
  podSets?: number;
  /** Initial replicas per PodSet (default 3). */
  replicas?: number;
  /** Namespace to manage with a kubeconfig (default: all namespaces; in a cluster, the pod's own). */
  namespace?: string;
  /** Reconcile workers (default 5). */
  workers?: number;
  /** Bound on each workload step's convergence wait (default 30,000 ms). */
  stepTimeoutMs?: number;
  /** Ends serving modes (Ctrl-C). */
  signal?: AbortSignal;
  out?: ProgressOutput;
  err?: { write(text: string): unknown };
  clock?: Clock;
  /** Environment (KUBECONFIG, HOME, POD_NAMESPACE). Default: process.env. */
  env?: NodeJS.ProcessEnv;
}

// The demo namespace the embedded workload runs in.
const workloadNamespace = 'kubeloom-demo';

/**
 * Installs the CRD unless PodSets are already served. The probe lists in the managed namespace only,
 * so a namespace-scoped Role (deploy/rbac.yaml) suffices when the CRD was applied beforehand.
 */
async function ensureCrd(rest: RestClient, namespace: string, signal: AbortSignal | undefined): Promise<'present' | 'installed'> {
  const probe = customResourceClient(rest, podSetResourceSpec, namespace);
  try {
    await probe.list({ limit: 1, ...(signal !== undefined ? { signal } : {}) });
    return 'present';
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  const crds = new ResourceClient<CustomResourceDefinition>(rest, {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    resource: 'customresourcedefinitions',
    kind: 'CustomResourceDefinition',
    namespaced: false,
  });
  try {
    await crds.create(structuredClone(podSetCrd), signal !== undefined ? { signal } : {});
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
  // A real API server serves the new resource only once the CRD is Established.
  for (let i = 0; i < 100; i++) {
    const crd = await crds.get(podSetCrd.metadata?.name ?? '', signal !== undefined ? { signal } : {});
    if (crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') === true) return 'installed';
    await realClock.sleep(100, signal);
  }
  throw new Error(`CustomResourceDefinition ${podSetCrd.metadata?.name ?? ''} did not become Established`);
}

/**
 * The kubeconfig the demo would once have picked up on its own (KUBECONFIG, else ~/.kube/config), to
 * say that it is not used; undefined when there is none.
 */
async function ignoredKubeconfig(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (kubeConfigPrecedence(env).length > 0) return `KUBECONFIG (${env['KUBECONFIG'] ?? ''})`;
  const file = path.join(env['HOME'] ?? homedir(), '.kube', 'config');
  try {
    await access(file);
    return file;
  } catch {
    return undefined;
  }
}

/**
 * A registry with the process metrics, or undefined when prom-client (a dependency of kubeloom)
 * is not installed: the demo then runs without /metrics.
 */
async function processMetricsRegistry(): Promise<PrometheusRegistry | undefined> {
  let prom: typeof import('prom-client');
  try {
    prom = await import('prom-client');
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw err;
  }
  const registry = new prom.Registry();
  prom.collectDefaultMetrics({ register: registry });
  return registry;
}

function fmtMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** Runs the demo; resolves with the process exit code. */
export async function runDemo(options: DemoOptions = {}): Promise<number> {
  const out = options.out ?? process.stdout;
  const errOut = options.err ?? process.stderr;
  const clock = options.clock ?? realClock;
  const env = options.env ?? process.env;
  const started = clock.now();

  let config: RestConfig;
  let server: ApiServer | undefined;
  const inCluster = options.inCluster === true;
  const embedded = options.kubeconfig === undefined && options.context === undefined && !inCluster;
  let target: string;
  if (embedded) {
    // The server's scheduler and kubelet stand-ins put the pods on a node and mark them Running/Ready.
    server = await startApiServer({ controllers: { scheduler: true, kubelet: true } });
    // Our own loopback server: no client-side throttling.
    config = { host: server.url, qps: -1 };
    target = `the embedded API server at ${server.url}`;
    const found = await ignoredKubeconfig(env);
    target += found === undefined ? '' : ` (${found} is not used: pass --kubeconfig or --context to run against a cluster)`;
  } else {
    const kubeconfig = inCluster
      ? await inClusterKubeConfig({ env })
      : await loadKubeConfig({ ...(options.kubeconfig !== undefined ? { path: options.kubeconfig } : {}), ...(options.context !== undefined ? { context: options.context } : {}), env });
    config = await restConfigFrom(kubeconfig);
    // kube-controller-manager's client defaults (--kube-api-qps 20, --kube-api-burst 30).
    if (config.qps === undefined) config = { ...config, qps: 20, burst: 30 };
    const from = kubeconfig.source?.kind === 'files' ? `, from ${kubeconfig.source.files.join(path.delimiter)}` : '';
    target = `the cluster at ${config.host} (context ${kubeconfig.currentContext || '(none)'}${from})`;
  }
  const rest = new RestClient(config);
  const registry = await processMetricsRegistry();

  const namespace = embedded ? workloadNamespace : (options.namespace ?? (inCluster ? (env['POD_NAMESPACE'] ?? (await inClusterNamespace())) : ''));
  const leaseNamespace = embedded ? 'kube-system' : namespace !== '' ? namespace : (env['POD_NAMESPACE'] ?? 'default');
  // Say where the demo writes before its first write.
  out.write(`kubeloom demo: PodSet controller against ${target}\n`);
  if (!embedded) {
    out.write(
      `  writes there: CustomResourceDefinition ${podSetCrd.metadata?.name ?? ''} (if missing), pods and Events of PodSets in ${namespace === '' ? 'all namespaces' : `namespace ${namespace}`}, Lease ${leaseNamespace}/podset-controller\n`,
    );
  }

  let metrics: MetricsServer | undefined;
  let runtime: DemoRuntime | undefined;
  let progress: Progress | undefined;
  const errors: string[] = [];
  // Holds the kubeconfig written for kubectl in --serve mode; removed on exit.
  let kubeconfigDir: string | undefined;
  try {
    const crd = await ensureCrd(rest, namespace, options.signal);
    runtime = new DemoRuntime({
      rest,
      namespace,
      leaseNamespace,
      registry,
      ...(options.workers !== undefined ? { workers: options.workers } : {}),
      clock,
      onError: (error, key) => {
        const message = `${key}: ${error instanceof Error ? error.message : String(error)}`;
        if (errors.length < 1000) errors.push(message);
        if (!embedded) errOut.write(`reconcile error ${message}\n`);
      },
    });
    metrics = await startMetricsServer({
      port: options.metricsPort ?? (inCluster ? 8080 : 0),
      host: options.metricsHost ?? (inCluster ? '0.0.0.0' : '127.0.0.1'),
      registry,
      healthz: () => runtime?.health(),
      readyz: () => runtime?.ready() === true,
    });
    progress = new Progress({ out, runtime, clock });

    out.write(`  CRD ${podSetCrd.metadata?.name ?? ''}: ${crd}\n`);
    out.write(
      registry !== undefined
        ? `  endpoints: ${metrics.url}/metrics ${metrics.url}/healthz ${metrics.url}/readyz\n`
        : `  endpoints: ${metrics.url}/healthz ${metrics.url}/readyz (no /metrics: prom-client is not installed)\n`,
    );
    out.write(`  leader election: Lease ${leaseNamespace}/${runtime.leaseName}, identity ${runtime.identity}\n`);
    if (embedded) out.write('  no kubelet runs here: the scheduler and kubelet stand-ins of the embedded server bind new pods to a node and mark them Running/Ready through pods/status\n');

    runtime.start();
    progress.start();

    if (!embedded) {
      progress.setStep('running');
      await waitForStop(options.signal, runtime);
      progress.stop();
      const lost = runtime.lostLeadership();
      await runtime.stop();
      out.write(lost ? 'leadership lost: exiting so a restart can compete again\n' : 'stopped\n');
      return lost ? 1 : 0;
    }

    const workloadStart = clock.now();
    const results: StepResult[] = await runWorkload({
      rest,
      runtime,
      clock,
      namespace,
      podSets: options.podSets ?? 3,
      replicas: options.replicas ?? 3,
      ...(options.stepTimeoutMs !== undefined ? { stepTimeoutMs: options.stepTimeoutMs } : {}),
      signal: options.signal ?? new AbortController().signal,
      onStep: (e) => {
        if (e.phase === 'start') {
          progress?.setStep(`step ${e.index}/${e.total}`);
          progress?.log(`step ${e.index}/${e.total}: ${e.name}`);
        } else if (e.result !== undefined) {
          progress?.log(e.result.converged ? `  converged in ${fmtMs(e.result.convergenceMs)}` : `  did NOT converge within ${fmtMs(e.result.convergenceMs)}: ${e.result.reason}`);
        }
      },
      onWaiting: (c) => progress?.setConvergence(c),
    });
    const workloadEnd = clock.now();
    // Let the recorder flush its events before counting what reached the server.
    await waitForEvents(runtime, clock);
    const summary: DemoSummary = await collectSummary(runtime, server, rest, results, errors, workloadEnd - started, workloadEnd - workloadStart);
    progress.stop();
    out.write(formatSummary(summary));
    const ok = results.length > 0 && results.every((r) => r.converged) && results.length === 6;
    if (options.serve === true && ok) {
      let hint = '';
      if (server !== undefined) {
        const dir = await mkdtemp(path.join(tmpdir(), 'kubeloom-demo-'));
        kubeconfigDir = dir;
        const file = path.join(dir, 'kubeconfig');
        await server.writeKubeconfig(file);
        hint = `; try: KUBECONFIG=${file} kubectl get podsets,pods -n ${workloadNamespace}`;
      }
      out.write(`serving until Ctrl-C (the controller keeps reconciling)${hint}\n`);
      progress.setStep('serving');
      progress.setConvergence(undefined);
      progress.start();
      await waitForStop(options.signal, runtime);
      progress.stop();
    }
    return ok ? 0 : 1;
  } finally {
    progress?.stop();
    await runtime?.stop();
    await metrics?.stop();
    await rest.close();
    await server?.stop();
    if (kubeconfigDir !== undefined) await rm(kubeconfigDir, { recursive: true, force: true });
  }
}

async function waitForStop(signal: AbortSignal | undefined, runtime: DemoRuntime): Promise<void> {
  const stopped = new Promise<void>((resolve) => {
    if (signal === undefined) return;
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await Promise.race([stopped, runtime.electionEnded()]);
}

async function waitForEvents(runtime: DemoRuntime, clock: Clock): Promise<void> {
  for (let i = 0; i < 200 && runtime.broadcaster.pending() > 0; i++) await clock.sleep(10);
}

async function collectSummary(runtime: DemoRuntime, server: ApiServer | undefined, rest: RestClient, steps: StepResult[], errors: string[], totalMs: number, workloadMs: number): Promise<DemoSummary> {
  const events = new ResourceClient<{ reason?: string }>(rest, { group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', namespaced: true, namespace: workloadNamespace });
  const stored = await events.list();
  const stats = runtime.podSetController.controller.stats();
  return {
    steps,
    counts: { ...runtime.podSetController.counts },
    podsMarkedReady: server?.controllers.stats().podsStarted ?? runtime.kubelet?.marked() ?? 0,
    eventsByReason: new Map(runtime.eventsByReason),
    eventsStored: stored.items.length,
    reconciles: { success: stats.success, requeueAfter: stats.requeueAfter, error: stats.error },
    errorSamples: errors.slice(0, 3),
    totalMs,
    workloadMs,
  };
}
