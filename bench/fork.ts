/**
 * `server.fork()` of a 1,000-object cluster (issue 31 §2: target ≤ 5 ms), alone: a parent holding 1,000
 * ConfigMaps created through the API, then `batches` batches of `perBatch` forks, each batch timed as
 * fork() alone (the forks are stopped after the batch, not counted) and as fork() + stop(). Prints the
 * median and range of the batches' CPU ms per fork (process.cpuUsage) and wall ms per fork.
 *
 * Run: node bench/fork.ts [objects=1000] [batches=7] [perBatch=50]
 */
import { loadavg } from 'node:os';
import { startApiServer, type ApiServer } from '../src/apiserver/index.ts';

const objects = Number(process.argv[2] ?? 1000);
const batches = Number(process.argv[3] ?? 7);
const perBatch = Number(process.argv[4] ?? 50);

const parent = await startApiServer();
for (let i = 0; i < objects; i++) {
  const res = await fetch(`${parent.url}/api/v1/namespaces/default/configmaps`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { key: 'value', n: String(i) } }),
  });
  if (res.status !== 201) throw new Error(`create: ${res.status}`);
  await res.arrayBuffer();
}
for (let i = 0; i < 10; i++) await (await parent.fork()).stop();

type Sample = { cpu: number; wall: number };
async function batch(fn: () => Promise<void>): Promise<Sample> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < perBatch; i++) await fn();
  const c = process.cpuUsage(c0);
  return { cpu: (c.user + c.system) / 1000 / perBatch, wall: (performance.now() - t0) / perBatch };
}

const forkOnly: Sample[] = [];
const forkStop: Sample[] = [];
for (let b = 0; b < batches; b++) {
  const forks: ApiServer[] = [];
  forkOnly.push(await batch(async () => void forks.push(await parent.fork())));
  for (const f of forks) await f.stop();
  forkStop.push(await batch(async () => (await parent.fork()).stop()));
}
await parent.stop();

const fmt = (name: string, xs: Sample[]): string => {
  const s = (k: keyof Sample): number[] => xs.map((x) => x[k]).sort((a, b) => a - b);
  const med = (v: number[]): string => v[Math.floor(v.length / 2)]!.toFixed(2);
  return `${name}: CPU ${med(s('cpu'))} ms median (${s('cpu')[0]!.toFixed(2)}–${s('cpu').at(-1)!.toFixed(2)}), wall ${med(s('wall'))} ms (${s('wall')[0]!.toFixed(2)}–${s('wall').at(-1)!.toFixed(2)})`;
};
console.log(`${objects.toLocaleString('en')} ConfigMaps, ${batches} batches of ${perBatch}; node ${process.version}`);
console.log(fmt('fork()', forkOnly));
console.log(fmt('fork() + stop()', forkStop));
console.log(`load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
