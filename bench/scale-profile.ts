/**
 * CPU profile of one Deployment rollout on the in-process control plane of bench/scale.ts (server, kubelet
 * and scheduler stand-ins, Deployment and ReplicaSet controllers), recorded through node:inspector from the
 * Deployment's creation to Available only (start-up and module loading left out). Prints CPU per pod and
 * writes the profile for `node --cpu-prof`-style tools (Chrome DevTools, speedscope).
 *
 * Run: node bench/scale-profile.ts [nodes=200] [replicas=2000] [out=scale.cpuprofile]
 */
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import { startApiServer } from '../src/apiserver/index.ts';
import { newClientset } from '../src/kubernetes/index.ts';

const nodes = Number(process.argv[2] ?? 200);
const replicas = Number(process.argv[3] ?? 2000);
const out = process.argv[4] ?? 'scale.cpuprofile';

const server = await startApiServer({ controllers: { scheduler: true, kubelet: { nodeCount: nodes }, workloads: ['deployment', 'replicaset'], onError: () => undefined } });
const cs = newClientset({ host: server.url, qps: -1 });
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 200 });
await session.post('Profiler.start');
const cpu0 = process.cpuUsage();
const t0 = performance.now();
await cs.appsV1().deployments('default').create({
  metadata: { name: 'prof' },
  spec: {
    replicas,
    selector: { matchLabels: { app: 'prof' } },
    template: { metadata: { labels: { app: 'prof' } }, spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '1m', memory: '1Mi' } } }] } },
  },
});
for (;;) {
  const d = await cs.appsV1().deployments('default').get('prof');
  if ((d.status?.availableReplicas ?? 0) >= replicas) break;
  await sleep(100);
}
const wall = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const { profile } = await session.post('Profiler.stop');
await writeFile(out, JSON.stringify(profile));
console.log(`${replicas} pods on ${nodes} nodes Available in ${(wall / 1000).toFixed(1)} s = ${((replicas / wall) * 1000).toFixed(0)} pods/s; CPU ${((cpu.user + cpu.system) / 1000 / replicas).toFixed(3)} ms/pod (profiler on); load ${os.loadavg()[0]!.toFixed(2)}; profile in ${out}`);
session.disconnect();
await cs.close();
await server.stop();
