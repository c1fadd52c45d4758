/**
 * The embedded API server's protobuf watch path: `watchers` clients watch ConfigMaps in
 * `application/vnd.kubernetes.protobuf;stream=watch` over raw HTTP (counting length-delimited frames,
 * nothing decoded), then `events` updates of one ConfigMap (~5.5 KB of data, the size of a typical Pod)
 * are sent one after the other; measured until every watcher has received every event. Reports
 * events/s delivered to all watchers, and the process CPU (server + the cheap frame counting) per event.
 * A JSON round (`application/json;stream=watch`, lines counted) runs alongside for reference; rounds
 * interleave.
 *
 * Run: node bench/apiserver-protobuf-watch.ts [watchers=100] [events=300] [rounds=3]
 */
import { request, Agent } from 'node:http';
import { startApiServer } from '../src/apiserver/index.ts';
import { newClientset } from '../src/kubernetes/index.ts';
import os from 'node:os';

const watchers = Number(process.argv[2] ?? 100);
const events = Number(process.argv[3] ?? 300);
const rounds = Number(process.argv[4] ?? 3);

type Format = 'protobuf' | 'json';

async function round(format: Format): Promise<{ eps: number; cpuMsPerEvent: number }> {
  const server = await startApiServer();
  const cs = newClientset({ host: server.url, qps: -1 });
  const payload = 'x'.repeat(5_500);
  const created = await cs.coreV1().configMaps('default').create({ metadata: { name: 'hot' }, data: { v: '0', payload } });
  const rv = created.metadata!.resourceVersion!;
  const agent = new Agent({ keepAlive: true, maxSockets: watchers + 10 });
  const counts = new Array<number>(watchers).fill(0);
  let done!: () => void;
  const allDone = new Promise<void>((r) => (done = r));
  let finished = 0;
  const url = new URL(`${server.url}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}&timeoutSeconds=600`);
  const accept = format === 'protobuf' ? 'application/vnd.kubernetes.protobuf;stream=watch' : 'application/json;stream=watch';
  const opened: Promise<void>[] = [];
  const requests: ReturnType<typeof request>[] = [];
  for (let w = 0; w < watchers; w++) {
    opened.push(
      new Promise<void>((resolve) => {
        const req = request(url, { agent, headers: { accept } }, (res) => {
          resolve();
          let pending: Buffer = Buffer.alloc(0);
          res.on('data', (chunk: Buffer) => {
            if (format === 'json') {
              for (let i = chunk.indexOf(0x0a); i >= 0; i = chunk.indexOf(0x0a, i + 1)) counts[w]!++;
            } else {
              pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
              let off = 0;
              while (pending.length - off >= 4) {
                const len = pending.readUInt32BE(off);
                if (pending.length - off - 4 < len) break;
                off += 4 + len;
                counts[w]!++;
              }
              pending = pending.subarray(off);
            }
            if (counts[w] === events) {
              finished++;
              if (finished === watchers) done();
            }
          });
        });
        req.end();
        requests.push(req);
      }),
    );
  }
  await Promise.all(opened);
  const start = performance.now();
  const cpu0 = process.cpuUsage();
  for (let i = 1; i <= events; i++) {
    await cs.coreV1().configMaps('default').patch('hot', 'application/merge-patch+json', { data: { v: String(i) } });
  }
  await allDone;
  const wallMs = performance.now() - start;
  const cpu = process.cpuUsage(cpu0);
  for (const r of requests) r.destroy();
  agent.destroy();
  await server.stop();
  return { eps: events / (wallMs / 1000), cpuMsPerEvent: (cpu.user + cpu.system) / 1000 / events };
}

const results: Record<Format, Array<{ eps: number; cpuMsPerEvent: number }>> = { protobuf: [], json: [] };
for (let r = 1; r <= rounds; r++) {
  for (const f of ['protobuf', 'json'] as const) {
    const out = await round(f);
    results[f].push(out);
    console.log(`round ${r} ${f}: ${out.eps.toFixed(0)} events/s to ${watchers} watchers, ${out.cpuMsPerEvent.toFixed(2)} ms CPU per event (load ${os.loadavg()[0]!.toFixed(2)})`);
  }
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
for (const f of ['protobuf', 'json'] as const) {
  console.log(`${f}: median ${median(results[f].map((x) => x.eps)).toFixed(0)} events/s, ${median(results[f].map((x) => x.cpuMsPerEvent)).toFixed(2)} ms CPU per event`);
}
