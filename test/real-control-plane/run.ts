/**
 * `npm run test:real:controllers`: the real kube-scheduler and kube-controller-manager (v1.24, built by
 * ../shared/realk8s/build.sh) against `kubeloom apiserver --bare --kubelet --no-garbage-collector
 * --no-namespace-controller`, to check that a control plane nobody here wrote works on the embedded
 * server:
 *
 * 1. every informer of both components syncs: their logs carry no 404 ("the server could not find the
 *    requested resource"), no failed list or watch and no decode error, and every "Waiting for caches to
 *    sync for X" is followed by "Caches are synced for X";
 * 2. pods are bound by the real scheduler (a Scheduled event from default-scheduler for each);
 * 3. a Deployment, a Job, a StatefulSet and a DaemonSet converge, the real kube-controller-manager doing
 *    the work (the embedded server runs none of those controllers), and its endpointslice controller
 *    writes the EndpointSlice of the StatefulSet's headless Service.
 *
 * While the check runs, the script renews the kubelet stand-in's node Lease in kube-node-lease every
 * 10 s, as a kubelet's heartbeat does, so that the node lifecycle controller keeps the node Ready.
 *
 * Prints a summary and exits 1 when a check fails, 2 when the binaries are missing. Environment:
 * REALK8S_BIN (default /root/realk8s/bin), REALK8S_HOME (default: a fresh directory under the system's
 * temporary directory; logs stay there), SCHEDULER_PORT (default 10459).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadKubeConfigFile, restConfigFrom } from '../../src/clientcmd/index.ts';
import { newClientset, type Clientset } from '../../src/kubernetes/index.ts';
import { isNotFound } from '../../src/apimachinery/errors.ts';

const root = path.resolve(import.meta.dirname, '..', '..');
// ../shared/realk8s next to the checkout (or to the worktree's parent), unless REALK8S_RECIPE says where.
const controllersScript = [process.env.REALK8S_RECIPE, path.resolve(root, '..', 'shared', 'realk8s'), path.resolve(root, '..', '..', 'shared', 'realk8s')]
  .filter((d): d is string => d !== undefined)
  .map((d) => path.join(d, 'controllers.sh'))
  .find((f) => existsSync(f));
const bin = process.env.REALK8S_BIN ?? '/root/realk8s/bin';
const schedulerPort = process.env.SCHEDULER_PORT ?? '10459';
const node = 'kubeloom-node';
// How long the workloads together may take to converge (the real controllers start in ~10-20 s).
const convergeTimeoutMs = 180_000;
let deadline = Number.POSITIVE_INFINITY;

type Obj = Record<string, unknown>;

interface Result {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

const results: Result[] = [];

function record(name: string, ok: boolean, detail: string): void {
  results.push({ name, ok, detail });
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail === '' ? '' : `: ${detail}`}`);
}

async function startApiServer(home: string): Promise<{ child: ChildProcess; kubeconfig: string }> {
  const kubeconfig = path.join(home, 'kubeconfig');
  const child = spawn(process.execPath, [path.join(root, 'src/cli/main.ts'), 'apiserver', '--bare', '--kubelet', '--no-garbage-collector', '--no-namespace-controller', '--write-kubeconfig', kubeconfig], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('kubeconfig written')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`kubeloom apiserver exited with ${String(code)}: ${out}`)));
  });
  return { child, kubeconfig };
}

function controllers(home: string, ...args: string[]): void {
  const r = spawnSync('bash', [controllersScript!, ...args], { env: { ...process.env, REALK8S_HOME: home, SCHEDULER_PORT: schedulerPort }, encoding: 'utf8' });
  process.stdout.write(r.stdout);
  process.stderr.write(r.stderr);
  if (r.status !== 0) throw new Error(`controllers.sh ${args.join(' ')} exited with ${String(r.status)}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * `controllers.sh stop`, then waits for both processes to exit: kube-scheduler v1.24 does not always finish
 * its graceful shutdown after SIGTERM once the API server is gone, so what is left after 15 s gets SIGKILL.
 */
async function stopControllers(home: string): Promise<void> {
  const pids = ['kcm', 'scheduler'].flatMap((name) => {
    try {
      return [Number(readFileSync(path.join(home, 'run', `${name}.pid`), 'utf8').trim())];
    } catch {
      return [];
    }
  });
  controllers(home, 'stop');
  for (let waited = 0; waited < 15_000 && pids.some(alive); waited += 250) await sleep(250);
  for (const pid of pids.filter(alive)) process.kill(pid, 'SIGKILL');
}

/** Renews the node's Lease every 10 s (the kubelet's nodeLeaseDurationSeconds is 40) until aborted. */
async function heartbeat(cs: Clientset, signal: AbortSignal): Promise<void> {
  const leases = cs.coordinationV1().leases('kube-node-lease');
  while (!signal.aborted) {
    const renewTime = new Date().toISOString().replace('Z', '000Z');
    try {
      const lease = await leases.get(node);
      await leases.update({ ...lease, spec: { ...lease.spec, holderIdentity: node, leaseDurationSeconds: 40, renewTime } });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await leases.create({ metadata: { name: node, namespace: 'kube-node-lease' }, spec: { holderIdentity: node, leaseDurationSeconds: 40, renewTime } });
    }
    await sleep(10_000, undefined, { signal }).catch(() => undefined);
  }
}

async function waitUntil(what: string, check: () => Promise<string | true>): Promise<void> {
  let last = '';
  for (;;) {
    const r = await check();
    if (r === true) {
      record(what, true, '');
      return;
    }
    last = r;
    if (Date.now() > deadline) {
      record(what, false, `not within ${convergeTimeoutMs / 1000} s of creating the workloads: ${last}`);
      return;
    }
    await sleep(1000);
  }
}

const labels = (app: string): Obj => ({ app });
const podTemplate = (app: string): Obj => ({ metadata: { labels: labels(app) }, spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.9' }] } });

async function workloads(cs: Clientset, ns: string): Promise<void> {
  await cs.coreV1().namespaces().create({ metadata: { name: ns } });
  const apps = cs.appsV1();
  await apps.deployments(ns).create({ metadata: { name: 'web' }, spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: podTemplate('web') } } as never);
  await cs.batchV1().jobs(ns).create({ metadata: { name: 'batch' }, spec: { completions: 2, parallelism: 2, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', command: ['true'] }] } } } } as never);
  await cs.coreV1().services(ns).create({ metadata: { name: 'db' }, spec: { clusterIP: 'None', selector: { app: 'db' }, ports: [{ port: 5432 }] } } as never);
  await apps.statefulSets(ns).create({ metadata: { name: 'db' }, spec: { replicas: 2, serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: podTemplate('db') } } as never);
  await apps.daemonSets(ns).create({ metadata: { name: 'agent' }, spec: { selector: { matchLabels: { app: 'agent' } }, template: podTemplate('agent') } } as never);

  const status = (o: unknown): Obj => ((o as Obj).status as Obj | undefined) ?? {};
  deadline = Date.now() + convergeTimeoutMs;
  await waitUntil('Deployment web: 2 available, observed', async () => {
    const d = await apps.deployments(ns).get('web');
    const s = status(d);
    return s.availableReplicas === 2 && s.updatedReplicas === 2 && s.observedGeneration === d.metadata?.generation ? true : JSON.stringify(s);
  });
  await waitUntil('Job batch: Complete with 2 succeeded', async () => {
    const s = status(await cs.batchV1().jobs(ns).get('batch'));
    const complete = ((s.conditions as Obj[] | undefined) ?? []).some((c) => c.type === 'Complete' && c.status === 'True');
    return complete && s.succeeded === 2 ? true : JSON.stringify(s);
  });
  await waitUntil('StatefulSet db: 2 ready, db-0 and db-1', async () => {
    const s = status(await apps.statefulSets(ns).get('db'));
    const pods = (await cs.coreV1().pods(ns).list({ labelSelector: 'app=db' })).items.map((p) => p.metadata?.name).sort();
    return s.readyReplicas === 2 && JSON.stringify(pods) === '["db-0","db-1"]' ? true : `${JSON.stringify(s)} pods ${JSON.stringify(pods)}`;
  });
  await waitUntil('DaemonSet agent: 1 of 1 ready', async () => {
    const s = status(await apps.daemonSets(ns).get('agent'));
    return s.desiredNumberScheduled === 1 && s.numberReady === 1 ? true : JSON.stringify(s);
  });
  // The endpointslice controller writes EndpointSlices (in protobuf) for the headless Service's pods.
  await waitUntil('EndpointSlice of Service db: 2 ready endpoints, written by the real endpointslice controller', async () => {
    const found = (await cs.discoveryV1().endpointSlices(ns).list({ labelSelector: 'kubernetes.io/service-name=db' })).items;
    const ready = found.flatMap((sl) => (sl.endpoints ?? []).filter((e) => e.conditions?.ready === true));
    const managers = found.map((sl) => sl.metadata?.labels?.['endpointslice.kubernetes.io/managed-by']);
    return ready.length === 2 && managers.every((m) => m === 'endpointslice-controller.k8s.io') ? true : `${found.length} slices, ${ready.length} ready endpoints, managed by ${JSON.stringify(managers)}`;
  });
  const pods = (await cs.coreV1().pods(ns).list()).items;
  const events = (await cs.eventsV1().events(ns).list()).items as unknown as Obj[];
  const scheduled = new Set(events.filter((e) => e.reason === 'Scheduled' && e.reportingController === 'default-scheduler').map((e) => String((e.regarding as Obj | undefined)?.name)));
  const unscheduled = pods.filter((p) => !scheduled.has(p.metadata?.name ?? '')).map((p) => p.metadata?.name);
  record('every pod bound by the real kube-scheduler (Scheduled event from default-scheduler)', pods.length > 0 && unscheduled.length === 0, `${pods.length} pods${unscheduled.length > 0 ? `, without: ${unscheduled.join(', ')}` : ''}`);
}

// Log lines that say a request failed or an informer could not sync.
const failurePatterns: readonly RegExp[] = [/could not find the requested resource/, /failed to list/i, /Failed to watch/, /unable to decode|failed to decode|decode error|no kind .* is registered/i, /unable to sync caches|timed out waiting for caches/i];

async function checkLog(file: string, component: string): Promise<void> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const lines = text.split('\n');
  const failures = lines.filter((l) => failurePatterns.some((p) => p.test(l)));
  const waiting = new Set<string>();
  const synced = new Set<string>();
  for (const l of lines) {
    const w = /Waiting for caches to sync for ([^\n"]+)/.exec(l);
    if (w !== null) waiting.add(w[1]!.trim());
    const s = /Caches are synced for ([^\n"]+)/.exec(l);
    if (s !== null) synced.add(s[1]!.trim());
  }
  const unsynced = [...waiting].filter((w) => !synced.has(w));
  record(`${component}: no 404, failed list/watch or decode error in its log`, failures.length === 0, failures.length === 0 ? '' : `${failures.length} lines, first: ${failures[0]}`);
  record(`${component}: every informer synced`, unsynced.length === 0 && synced.size > 0, `${synced.size} synced${unsynced.length > 0 ? `, still waiting: ${unsynced.join(', ')}` : ''}`);
  // Other errors are listed for the reader, not counted as failures (e.g. a CA bundle the server does not publish).
  const errors = new Map<string, number>();
  for (const l of lines) {
    if (!l.startsWith('E')) continue;
    const key = l.replace(/^E\d{4} [\d:.]+\s+\d+ /, '');
    errors.set(key, (errors.get(key) ?? 0) + 1);
  }
  for (const [line, n] of errors) console.log(`     ${component} logged ${n}× ${line.slice(0, 220)}`);
}

async function main(): Promise<number> {
  if (controllersScript === undefined) {
    console.error('no ../shared/realk8s/controllers.sh next to the checkout (set REALK8S_RECIPE to its directory)');
    return 2;
  }
  if (!existsSync(path.join(bin, 'kube-controller-manager')) || !existsSync(path.join(bin, 'kube-scheduler'))) {
    console.error(`no kube-controller-manager and kube-scheduler in ${bin} (build them with ../shared/realk8s/build.sh, or set REALK8S_BIN)`);
    return 2;
  }
  const home = process.env.REALK8S_HOME ?? (await mkdtemp(path.join(tmpdir(), 'kubeloom-real-control-plane-')));
  await mkdir(home, { recursive: true });
  if (!existsSync(path.join(home, 'bin'))) await symlink(bin, path.join(home, 'bin'));
  const { child, kubeconfig } = await startApiServer(home);
  const cs = newClientset({ ...(await restConfigFrom(await loadKubeConfigFile(kubeconfig))), qps: -1 });
  const beats = new AbortController();
  const beating = heartbeat(cs, beats.signal);
  // Interrupted: the real controllers must not outlive the run.
  const onSignal = (): void => {
    void stopControllers(home).finally(() => {
      child.kill('SIGTERM');
      process.exit(130);
    });
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    controllers(home, 'start', kubeconfig);
    await workloads(cs, `rcp-${Math.random().toString(36).slice(2, 8)}`);
    // Informers started on demand (e.g. by the garbage collector's discovery) get a moment to sync.
    await sleep(5000);
  } catch (err) {
    record('run', false, err instanceof Error ? err.message : String(err));
  } finally {
    beats.abort();
    await beating.catch(() => undefined);
    await stopControllers(home);
    child.kill('SIGTERM');
  }
  await checkLog(path.join(home, 'logs', 'kube-scheduler.log'), 'kube-scheduler');
  await checkLog(path.join(home, 'logs', 'kube-controller-manager.log'), 'kube-controller-manager');
  const failed = results.filter((r) => !r.ok);
  console.log(`\n${results.length - failed.length}/${results.length} checks passed; logs in ${path.join(home, 'logs')}`);
  return failed.length === 0 ? 0 : 1;
}

process.exitCode = await main();
