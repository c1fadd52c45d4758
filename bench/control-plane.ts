/**
 * Control-plane benchmark: how fast a developer's cluster (the embedded server with the scheduler and
 * kubelet stand-ins and kube-controller-manager's controllers) starts, how long a large Deployment takes
 * to roll out with kubeloom's controllers and with the real kube-controller-manager against the same
 * embedded server, and the server's memory with many pods.
 *
 *   node --expose-gc bench/control-plane.ts [--replicas 1000] [--pods 10000] [--kcm PATH] [--only start,rollout,memory] [--skip-slow]
 *
 * - start: startApiServer() with every controller, until it resolves, and until a first Deployment of 1 is
 *   Available (the controllers' caches synced and working); median of 5.
 * - rollout: a Deployment of `replicas` created (until Available with every replica updated), then set to
 *   a new image (until the rollout completes), with (a) kubeloom's controllers in the server's process
 *   (its loopback client, no client-side limit), (b) the same as a process of their own (`kubeloom
 *   controller-manager --kube-api-qps=1000 --kube-api-burst=2000`), then — unless --skip-slow — (c) in
 *   the bench's process as a client with kube-controller-manager's default limits (--kube-api-qps 20,
 *   burst 30), (d) the real kube-controller-manager with its defaults, and always (e) the real one with
 *   --kube-api-qps=1000 --kube-api-burst=2000, when `--kcm` (default /root/realk8s/bin/kube-controller-manager)
 *   exists. The stand-ins run in every case, in the server's process.
 * - memory: a server without controllers holding `pods` pods (one container, labels, requests, an env
 *   var), heap and RSS after a full GC, against the empty server.
 * - cluster-memory (only when asked: `--only cluster-memory`): the developer cluster running a Deployment of
 *   `pods` replicas, its time to Available and the process's heap and RSS (server, stand-ins and the
 *   controllers' informer caches together).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, openSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { startApiServer, type ApiServer } from '../src/apiserver/index.ts';
import { startControllers } from '../src/controllers/index.ts';
import { newClientset, type Clientset } from '../src/kubernetes/clientset.ts';
import type { Deployment } from '../src/api/apps/v1.ts';
import { PatchType } from '../src/apimachinery/options.ts';
import { waitForItems, waitForObject } from '../test/workloads/support.ts';

const { values } = parseArgs({ options: { replicas: { type: 'string' }, pods: { type: 'string' }, kcm: { type: 'string' }, only: { type: 'string' }, 'skip-slow': { type: 'boolean' } } });
const replicas = Number(values.replicas ?? 1000);
const podCount = Number(values.pods ?? 10_000);
const kcmPath = values.kcm ?? '/root/realk8s/bin/kube-controller-manager';
const only = new Set((values.only ?? 'start,rollout,memory').split(','));
const gc = (globalThis as { gc?: () => void }).gc;

const ms = (n: number): string => `${n.toFixed(0)} ms`;
const mib = (n: number): string => `${(n / 1024 / 1024).toFixed(1)} MiB`;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function deployment(name: string, n: number, image: string): Deployment {
  return { metadata: { name }, spec: { replicas: n, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image }] } } } };
}

function complete(d: Deployment | undefined, revision: string, n: number): boolean {
  const s = d?.status;
  return d?.metadata?.annotations?.['deployment.kubernetes.io/revision'] === revision && s?.observedGeneration === d.metadata?.generation && s?.updatedReplicas === n && s.availableReplicas === n && s.replicas === n;
}

// waitForObject gives up after 20 s by default; a large rollout with a rate-limited client takes longer.
const longWait = 15 * 60_000;
async function waitLong(client: Clientset, n: number): Promise<{ createMs: number; rollMs: number }> {
  const deployments = client.appsV1().deployments('default');
  const wait = (rev: string) => waitForItems(deployments, (items) => complete(items.find((d) => d.metadata?.name === 'big'), rev, n), longWait);
  const t0 = performance.now();
  await deployments.create(deployment('big', n, 'nginx:1.25'));
  await wait('1');
  const t1 = performance.now();
  await deployments.patch('big', PatchType.StrategicMerge, { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.26' }] } } } });
  await wait('2');
  return { createMs: t1 - t0, rollMs: performance.now() - t1 };
}

async function standIns(workloads: boolean): Promise<ApiServer> {
  return startApiServer({ controllers: { scheduler: true, kubelet: true, workloads, garbageCollector: workloads, namespace: workloads, onError: () => undefined } });
}

async function benchStart(): Promise<void> {
  const resolved: number[] = [];
  const ready: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const server = await startApiServer({ controllers: { scheduler: true, kubelet: true, workloads: true, onError: () => undefined } });
    resolved.push(performance.now() - t0);
    const client = newClientset({ host: server.url });
    await client.appsV1().deployments('default').create(deployment('first', 1, 'nginx'));
    await waitForObject(client.appsV1().deployments('default'), 'first', (d) => (d?.status?.availableReplicas ?? 0) === 1);
    ready.push(performance.now() - t0);
    await client.close();
    await server.stop();
  }
  console.log(`start (median of 5): startApiServer() resolved in ${ms(median(resolved))}; first Deployment of 1 Available ${ms(median(ready))} after the start`);
}

async function withKcm<T>(server: ApiServer, extra: string[], fn: () => Promise<T>): Promise<T> {
  return withProcess(server, [kcmPath, '--secure-port=0', '--leader-elect=false', '--controllers=*,-serviceaccount-token', '--v=1', ...extra], fn);
}

const cliMain = new URL('../src/cli/main.ts', import.meta.url).pathname;

/** Runs `command --kubeconfig <the server's>` while `fn` runs. */
async function withProcess<T>(server: ApiServer, command: string[], fn: () => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'kubeloom-bench-cm-'));
  const kubeconfig = join(dir, 'kubeconfig');
  await server.writeKubeconfig(kubeconfig);
  const out = openSync(join(dir, 'cm.log'), 'a');
  const kcm: ChildProcess = spawn(command[0]!, [...command.slice(1), '--kubeconfig', kubeconfig], { stdio: ['ignore', out, out] });
  try {
    return await fn();
  } finally {
    kcm.kill('SIGTERM');
    await once(kcm, 'exit');
    await rm(dir, { recursive: true, force: true });
  }
}

async function benchRollout(): Promise<void> {
  const report = (label: string, r: { createMs: number; rollMs: number }): void => console.log(`rollout of ${replicas}, ${label}: created → Available ${ms(r.createMs)}; new image → rolled out ${ms(r.rollMs)}`);
  {
    const server = await standIns(true);
    const client = newClientset({ host: server.url });
    report("kubeloom's controllers in the server (no client-side limit)", await waitLong(client, replicas));
    await client.close();
    await server.stop();
  }
  {
    // The same controllers as a process of their own (kubeloom controller-manager), as kube-controller-manager
    // runs: the server's event loop no longer runs them.
    const server = await standIns(false);
    const client = newClientset({ host: server.url });
    report("kubeloom's controllers as a process of their own (kubeloom controller-manager, qps 1000, burst 2000)", await withProcess(server, [process.execPath, cliMain, 'controller-manager', '--kube-api-qps=1000', '--kube-api-burst=2000'], () => waitLong(client, replicas)));
    await client.close();
    await server.stop();
  }
  const slow = values['skip-slow'] !== true;
  if (slow) {
    const server = await standIns(false);
    const running = startControllers({ host: server.url, qps: 20, burst: 30 }, { onError: () => undefined });
    const client = newClientset({ host: server.url });
    report("kubeloom's controllers as a client with qps 20, burst 30", await waitLong(client, replicas));
    await running.stop();
    await client.close();
    await server.stop();
  }
  if (!existsSync(kcmPath)) {
    console.log(`rollout with the real kube-controller-manager: skipped (${kcmPath} not found)`);
    return;
  }
  const kcmCases: [string, string[]][] = [
    ['the real kube-controller-manager v1.24 (defaults: qps 20, burst 30)', []],
    ['the real kube-controller-manager v1.24 (--kube-api-qps=1000 --kube-api-burst=2000)', ['--kube-api-qps=1000', '--kube-api-burst=2000']],
  ];
  for (const [label, extra] of slow ? kcmCases : kcmCases.slice(1)) {
    const server = await standIns(false);
    const client = newClientset({ host: server.url });
    report(label, await withKcm(server, [...extra], () => waitLong(client, replicas)));
    await client.close();
    await server.stop();
  }
}

async function benchMemory(): Promise<void> {
  const measure = (): { heap: number; rss: number } => {
    gc?.();
    gc?.();
    const m = process.memoryUsage();
    return { heap: m.heapUsed, rss: m.rss };
  };
  const server = await startApiServer({ controllers: { garbageCollector: false, namespace: false } });
  const client = newClientset({ host: server.url, qps: -1 });
  const before = measure();
  const pods = client.coreV1().pods('default');
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < podCount; i = next++) {
      await pods.create({
        metadata: { name: `pod-${i}`, labels: { app: `app-${i % 50}`, tier: 'web', 'pod-template-hash': '5d8f6c7b9' } },
        spec: { containers: [{ name: 'web', image: 'nginx:1.25', ports: [{ containerPort: 8080 }], env: [{ name: 'MODE', value: 'production' }], resources: { requests: { cpu: '100m', memory: '128Mi' } } }] },
      });
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: 32 }, () => worker()));
  const created = performance.now() - t0;
  await client.close();
  const after = measure();
  console.log(
    `memory with ${podCount} pods: heap ${mib(before.heap)} → ${mib(after.heap)} (+${mib(after.heap - before.heap)}, ${((after.heap - before.heap) / podCount / 1024).toFixed(1)} KiB/pod), RSS ${mib(before.rss)} → ${mib(after.rss)}; created in ${ms(created)}${gc === undefined ? ' (run with --expose-gc for settled figures)' : ''}`,
  );
  await server.stop();
}

/** The developer cluster (stand-ins, every controller in the server's process) running a Deployment of `pods`. */
async function benchClusterMemory(): Promise<void> {
  const measure = (): { heap: number; rss: number } => {
    gc?.();
    gc?.();
    const m = process.memoryUsage();
    return { heap: m.heapUsed, rss: m.rss };
  };
  const server = await standIns(true);
  const before = measure();
  const client = newClientset({ host: server.url });
  const t0 = performance.now();
  await client.appsV1().deployments('default').create(deployment('big', podCount, 'nginx:1.25'));
  await waitForItems(client.appsV1().deployments('default'), (items) => complete(items.find((d) => d.metadata?.name === 'big'), '1', podCount), longWait);
  const ready = performance.now() - t0;
  await client.close();
  const after = measure();
  console.log(`developer cluster with a Deployment of ${podCount} (server, stand-ins and controllers with their informer caches in one process): Available in ${ms(ready)}; heap ${mib(before.heap)} → ${mib(after.heap)}, RSS ${mib(before.rss)} → ${mib(after.rss)}`);
  await server.stop();
}

if (only.has('start')) await benchStart();
if (only.has('rollout')) await benchRollout();
if (only.has('memory')) await benchMemory();
if (only.has('cluster-memory')) await benchClusterMemory();
