/**
 * kwok-grade scale of the embedded API server: `nodes` kwok-style nodes (kubelet stand-in with
 * `nodeCount`, Leases renewed every 10 s), the scheduler stand-in and kube-controller-manager's Deployment
 * and ReplicaSet controllers, all in this one process. Deployments of `replicas` pods are created one
 * after the other until `pods` pods exist or `budget` seconds have passed; each is measured from its
 * creation to status.availableReplicas == replicas (pods created per second end to end: ReplicaSet
 * controller → scheduler → kubelet, all through the registry). After each, RSS and V8 heap (after a GC)
 * are sampled and divided by the pods held. Also reports the CPU one round of the nodes' Lease renewals
 * costs (a second server on a FakeClock, stepped 10 s at a time).
 *
 * Run: node --expose-gc bench/scale.ts [nodes=1000] [replicas=10000] [pods=100000] [budgetSeconds=600] [maxRssGiB=16]
 * (no further Deployment is created once the process holds more than maxRssGiB of RSS: the machine is shared).
 * With SCALE_DATA_DIR=DIR the server keeps its data in SQLite under DIR (`--data-dir`); with
 * SCALE_ETCD_SERVERS=URL[,URL…] in etcd (`--etcd-servers`; use a throwaway etcd, never a shared one).
 */
import os from 'node:os';
import { startApiServer } from '../src/apiserver/index.ts';
import { newClientset } from '../src/kubernetes/index.ts';
import { FakeClock } from '../src/util/clock/index.ts';

const nodes = Number(process.argv[2] ?? 1000);
const replicas = Number(process.argv[3] ?? 10_000);
const target = Number(process.argv[4] ?? 100_000);
const budgetMs = Number(process.argv[5] ?? 600) * 1000;
const maxRss = Number(process.argv[6] ?? 16) * 1024 ** 3;

const gc = (globalThis as { gc?: () => void }).gc;
const mib = (b: number): string => (b / 1024 / 1024).toFixed(0);
function memory(): { rss: number; heap: number } {
  gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const started = Date.now();
console.log(`load before: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} (${os.cpus().length} cores)`);
const base = memory();
const dataDir = process.env.SCALE_DATA_DIR;
const etcdServers = process.env.SCALE_ETCD_SERVERS?.split(',').filter((u) => u !== '');
const storage = { ...(dataDir === undefined ? {} : { dataDir }), ...(etcdServers === undefined ? {} : { etcdServers }) };
const server = await startApiServer({ ...storage, controllers: { scheduler: true, kubelet: { nodeCount: nodes }, workloads: ['deployment', 'replicaset'], onError: () => undefined } });
const cs = newClientset({ host: server.url, qps: -1 });
const withNodes = memory();
console.log(`storage: ${server.storage.description}`);
console.log(`${nodes} nodes registered in ${((Date.now() - started) / 1000).toFixed(1)} s; RSS ${mib(withNodes.rss)} MiB, heap ${mib(withNodes.heap)} MiB (before the server: RSS ${mib(base.rss)}, heap ${mib(base.heap)})`);

// One round of 1,000 Lease renewals, as the kubelet stand-in's ticker does every 10 s: a second server on a
// FakeClock, stepped 10 s at a time; CPU per round.
{
  const clock = new FakeClock();
  const leaseServer = await startApiServer({ clock, controllers: { kubelet: { nodeCount: nodes }, onError: () => undefined } });
  const rounds = 5;
  const t = process.cpuUsage();
  for (let r = 0; r < rounds; r++) await clock.step(10_000);
  const used = process.cpuUsage(t);
  console.log(`Lease renewal: ${((used.user + used.system) / 1000 / rounds).toFixed(0)} ms CPU per round of ${nodes} Leases (${((used.user + used.system) / rounds / nodes).toFixed(0)} µs per Lease)`);
  await leaseServer.stop();
}

let held = 0;
let i = 0;
while (held + replicas <= target && Date.now() - started < budgetMs && process.memoryUsage().rss < maxRss) {
  const name = `scale-${i++}`;
  const cpu0 = process.cpuUsage();
  const t0 = Date.now();
  await cs.appsV1().deployments('default').create({
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '1m', memory: '1Mi' } } }] } },
    },
  });
  for (;;) {
    const d = await cs.appsV1().deployments('default').get(name);
    if ((d.status?.availableReplicas ?? 0) >= replicas) break;
    await sleep(250);
  }
  const wallMs = Date.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  held += replicas;
  const m = memory();
  const stats = server.controllers.stats();
  console.log(
    `deployment ${name}: ${replicas} pods Available in ${(wallMs / 1000).toFixed(1)} s = ${((replicas / wallMs) * 1000).toFixed(0)} pods/s end to end ` +
      `(CPU ${((cpu.user + cpu.system) / 1000 / replicas).toFixed(2)} ms/pod); holding ${held} pods: RSS ${mib(m.rss)} MiB, heap ${mib(m.heap)} MiB, ` +
      `per pod ${((m.rss - withNodes.rss) / held / 1024).toFixed(1)} KiB RSS, ${((m.heap - withNodes.heap) / held / 1024).toFixed(1)} KiB heap; bound ${stats.podsBound}, started ${stats.podsStarted}; load ${os.loadavg()[0]!.toFixed(2)}; ${new Date().toISOString()}`,
  );
}
console.log(`held ${held} pods on ${nodes} nodes after ${((Date.now() - started) / 1000).toFixed(0)} s; load after: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
await cs.close();
await server.stop();
