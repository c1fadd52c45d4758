/**
 * How long the kubelet stand-in's periodic rounds hold the server's event loop with N kwok-style nodes
 * (src/apiserver/controllers/fake-kubelet.ts): every 10 s it renews all N node Leases in one synchronous
 * loop, and every 5 minutes (nodeStatusReportFrequency) it also refreshes all N nodes' status. A server on
 * a FakeClock with one watcher of nodes (as kube-controller-manager and kube-scheduler each have) is
 * stepped 10 s at a time to the 5-minute mark and past it; each step's CPU (process.cpuUsage) is the time
 * no other request could be served.
 *
 * Run: node bench/kubelet-rounds.ts [nodes=1000]
 */
import os from 'node:os';
import { startApiServer } from '../src/apiserver/index.ts';
import { FakeClock } from '../src/util/clock/index.ts';

const nodes = Number(process.argv[2] ?? 1000);
const clock = new FakeClock();
const server = await startApiServer({ clock, controllers: { kubelet: { nodeCount: nodes }, onError: () => undefined } });
const ctl = new AbortController();
const watch = await fetch(`${server.url}/api/v1/nodes?watch=1`, { signal: ctl.signal });
const reader = watch.body!.getReader();
const draining = (async (): Promise<void> => {
  for (;;) if ((await reader.read()).done) return;
})().catch(() => undefined);
for (let tick = 1; tick <= 31; tick++) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await clock.step(10_000);
  const c = process.cpuUsage(c0);
  if (tick >= 28) {
    const what = (tick * 10) % 300 === 0 ? `${nodes} Lease renewals + ${nodes} node status reports` : `${nodes} Lease renewals`;
    console.log(`t=${tick * 10} s: ${what}: ${((c.user + c.system) / 1000).toFixed(0)} ms CPU, ${(performance.now() - t0).toFixed(0)} ms wall; load ${os.loadavg()[0]!.toFixed(1)}`);
  }
}
ctl.abort();
await draining;
await server.stop();
