/**
 * Restart time of `kubeloom apiserver --data-dir DIR` holding 100,000 objects (issue 31): the CLI in a child
 * process, from spawn to its "listening on" line and to the first LIST of all the objects answered, with
 * the child's CPU time (utime + stime, /proc/PID/stat) and RSS at that moment.
 *
 * The data directory is filled the fastest honest way: one object of each kind is made through the API by a
 * server with the kubelet and scheduler stand-ins (so a Pod carries the metadata, managedFields, spec
 * defaults and Running status a real one has), then `count` copies of it, each with its own name and uid,
 * are appended to the SQLite revision log through the server's own Storage (synchronous=normal while
 * filling; the restarted server opens it as the CLI always does, synchronous=full). What a restart reads is
 * then what it would read after `count` creates through the API.
 *
 * Run: node bench/restart-data-dir.ts [kind=pods|configmaps] [count=100000] [restarts=5] [flags…]
 * (flags go to `kubeloom apiserver`, default `--bare`). KUBELOOM_BENCH_DIR: where the data directory goes
 * (default: the OS temp dir; it is deleted at the end).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startApiServer } from '../src/apiserver/index.ts';
import { Storage } from '../src/apiserver/storage.ts';
import { SqliteBackend } from '../src/apiserver/storage/sqlite-backend.ts';

const kind = (process.argv[2] ?? 'pods') as 'pods' | 'configmaps';
const count = Number(process.argv[3] ?? 100_000);
const restarts = Number(process.argv[4] ?? 5);
const flags = process.argv.length > 5 ? process.argv.slice(5) : ['--bare'];
const root = path.resolve(import.meta.dirname, '..');
// Clock ticks per second of /proc/PID/stat's utime and stime (USER_HZ).
const userHz = 100;
const load = (): string => os.loadavg()[0]!.toFixed(2);

function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / userHz;
}
function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m === null ? 0 : Number(m[1]) / 1024;
}

const dir = mkdtempSync(path.join(process.env.KUBELOOM_BENCH_DIR ?? os.tmpdir(), 'kubeloom-restart-'));
const url = (kind === 'pods' ? '/api/v1/namespaces/default/pods' : '/api/v1/namespaces/default/configmaps');

// 1. One object through the API, on the data directory, as a cluster makes it.
let template: Record<string, unknown>;
{
  const server = await startApiServer({ dataDir: dir, controllers: { scheduler: true, kubelet: true, onError: () => undefined } });
  const body =
    kind === 'pods'
      ? { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'template', labels: { app: 'restart' } }, spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '1m', memory: '1Mi' } } }] } }
      : { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'template', labels: { app: 'restart' } }, data: { key: 'value', other: 'a somewhat longer value of a configuration entry' } };
  const res = await fetch(server.url + url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
  for (;;) {
    template = (await (await fetch(`${server.url}${url}/template`)).json()) as Record<string, unknown>;
    const status = template.status as { conditions?: { type: string; status: string }[] } | undefined;
    if (kind !== 'pods' || status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  await server.stop();
}

// 2. `count` copies of it appended to the revision log.
{
  const t0 = performance.now();
  const storage = new Storage(1, 0, SqliteBackend.open(dir, { synchronous: 'normal' }));
  const meta = template.metadata as Record<string, unknown>;
  for (let i = 0; i < count; i++) {
    const name = `${kind === 'pods' ? 'pod' : 'cm'}-${i}`;
    storage.write(kind, `default/${name}`, 'ADDED', { ...template, metadata: { ...meta, name, uid: randomUUID() } });
  }
  storage.backend?.close();
  const size = statSync(path.join(dir, 'kubeloom.db')).size;
  console.log(`filled ${dir}: ${count.toLocaleString('en')} ${kind} (${(JSON.stringify(template).length / 1024).toFixed(1)} KiB JSON each) in ${((performance.now() - t0) / 1000).toFixed(1)} s; kubeloom.db ${(size / 1024 / 1024).toFixed(0)} MiB`);
}

// 3. Restarts of the CLI.
interface Sample {
  listeningS: number;
  listedS: number;
  cpuListeningS: number;
  cpuListedS: number;
  rss: number;
  load: string;
}
const samples: Sample[] = [];
for (let r = 0; r < restarts; r++) {
  const t0 = performance.now();
  const child = spawn(process.execPath, [path.join(root, 'src/cli/main.ts'), 'apiserver', '--data-dir', dir, ...flags], { stdio: ['ignore', 'pipe', 'inherit'] });
  const pid = child.pid!;
  const [serverUrl, listeningS, cpuListeningS] = await new Promise<[string, number, number]>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening on (\S+)\n/.exec(out);
      if (m !== null) resolve([m[1]!, (performance.now() - t0) / 1000, cpuSeconds(pid)]);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${String(code)}: ${out}`)));
  });
  const list = (await (await fetch(`${serverUrl}${url}`, { headers: { 'user-agent': 'restart-bench' } })).json()) as { items: unknown[] };
  const listedS = (performance.now() - t0) / 1000;
  const sample = { listeningS, listedS, cpuListeningS, cpuListedS: cpuSeconds(pid), rss: rssMiB(pid), load: load() };
  if (list.items.length !== count + 1) throw new Error(`restart ${r}: LIST returned ${list.items.length} ${kind}, want ${count + 1}`);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await exited;
  samples.push(sample);
  console.log(
    `restart ${r + 1}: listening after ${sample.listeningS.toFixed(2)} s (${sample.cpuListeningS.toFixed(2)} s CPU), LIST of ${(count + 1).toLocaleString('en')} ${kind} answered after ${sample.listedS.toFixed(2)} s (${sample.cpuListedS.toFixed(2)} s CPU); RSS ${sample.rss.toFixed(0)} MiB; load ${sample.load}`,
  );
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  `median of ${restarts}: \`kubeloom apiserver --data-dir ${flags.join(' ')}\` on ${count.toLocaleString('en')} ${kind}: listening ${median(samples.map((s) => s.listeningS)).toFixed(2)} s wall / ${median(samples.map((s) => s.cpuListeningS)).toFixed(2)} s CPU; ` +
    `first full LIST ${median(samples.map((s) => s.listedS)).toFixed(2)} s wall / ${median(samples.map((s) => s.cpuListedS)).toFixed(2)} s CPU; RSS ${median(samples.map((s) => s.rss)).toFixed(0)} MiB; node ${process.version}`,
);
rmSync(dir, { recursive: true, force: true });
