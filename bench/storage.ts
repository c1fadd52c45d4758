/**
 * Storage backends, snapshots and start cost of the embedded API server.
 * Run: ./node_modules/.bin/node bench/storage.ts [--quick]
 *
 * - start+stop: `startApiServer()` + `stop()` of a default server (bootstrap objects, GC and namespace
 *   controller), per server, in CPU time and wall time.
 * - fork: `server.fork()` + `stop()` of a server holding 1,000 ConfigMaps; and `server.snapshot()` alone.
 * - writes: Storage.write per second with no backend, SQLite synchronous=normal and =full (the default);
 *   and ConfigMap creates per second over HTTP (sequential, one client) for memory and SQLite.
 * - LIST / WATCH: a LIST of 1,000 ConfigMaps, and 1,000 creates delivered to one watcher, memory vs SQLite.
 * - restart: `startApiServer({ dataDir })` on a directory holding 100,000 ConfigMaps (load + start).
 *
 * CPU time (process.cpuUsage) is the stable figure on a shared machine; the load average is printed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startApiServer, type ApiServer } from '../src/apiserver/index.ts';
import { Storage } from '../src/apiserver/storage.ts';
import { SqliteBackend } from '../src/apiserver/storage/sqlite-backend.ts';

const quick = process.argv.includes('--quick');
const rows: Array<Record<string, string>> = [];

async function measure(name: string, n: number, fn: (i: number) => Promise<void> | void, unit = 'op'): Promise<void> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await fn(i);
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  const cpu = (c.user + c.system) / 1000;
  rows.push({ scenario: name, n: String(n), unit, 'wall ms each': (wall / n).toFixed(3), 'cpu ms each': (cpu / n).toFixed(3), 'per s (wall)': ((n / wall) * 1000).toFixed(0) });
}

// On the machine's disk (not a tmpfs), so fsync costs what it costs: KUBELOOM_BENCH_DIR or the OS temp dir.
const tmp = (): string => mkdtempSync(path.join(process.env.KUBELOOM_BENCH_DIR ?? tmpdir(), 'kubeloom-bench-'));
const cm = (name: string): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { key: 'value', n: name } });
const post = async (s: ApiServer, name: string): Promise<void> => {
  const res = await fetch(`${s.url}/api/v1/namespaces/default/configmaps`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(cm(name)) });
  if (res.status !== 201) throw new Error(`create: ${res.status}`);
  await res.arrayBuffer();
};

// start + stop
for (let i = 0; i < 10; i++) await (await startApiServer()).stop();
await measure('startApiServer() + stop()', quick ? 50 : 200, async () => (await startApiServer()).stop(), 'server');

// fork of a 1,000-object cluster
{
  const parent = await startApiServer();
  for (let i = 0; i < 1000; i++) await post(parent, `cm-${i}`);
  await measure('snapshot() of 1,000 ConfigMaps (+ bootstrap)', 1000, () => void parent.snapshot(), 'snapshot');
  for (let i = 0; i < 5; i++) await (await parent.fork()).stop();
  await measure('fork() + stop() of 1,000 ConfigMaps', quick ? 20 : 100, async () => (await parent.fork()).stop(), 'fork');
  const forks: ApiServer[] = [];
  await measure('fork() of 1,000 ConfigMaps (stop not counted)', quick ? 20 : 100, async () => void forks.push(await parent.fork()), 'fork');
  for (const f of forks) await f.stop();
  await parent.stop();
}

// Storage.write per backend
for (const [label, sync] of [['memory', undefined], ['sqlite synchronous=normal', 'normal'], ['sqlite synchronous=full', 'full']] as const) {
  const dir = tmp();
  const storage = new Storage(100_000, 0, sync === undefined ? undefined : SqliteBackend.open(dir, { synchronous: sync }));
  const n = sync === 'full' ? (quick ? 300 : 2000) : quick ? 5000 : 50_000;
  await measure(`Storage.write, ${label}`, n, (i) => void storage.write('configmaps', `default/cm-${i}`, 'ADDED', cm(`cm-${i}`)), 'write');
  storage.backend?.close();
  rmSync(dir, { recursive: true, force: true });
}

// HTTP creates, LIST, WATCH per backend
for (const backend of ['memory', 'sqlite'] as const) {
  const dir = tmp();
  const s = await startApiServer(backend === 'sqlite' ? { dataDir: dir } : {});
  await measure(`POST ConfigMap over HTTP, ${backend}`, quick ? 300 : 1000, (i) => post(s, `cm-${i}`), 'create');
  const url = `${s.url}/api/v1/namespaces/default/configmaps`;
  await measure(`LIST 1,000 ConfigMaps, ${backend}`, quick ? 20 : 100, async () => void (await (await fetch(url)).arrayBuffer()), 'list');
  const ctl = new AbortController();
  const res = await fetch(`${url}?watch=1&resourceVersion=${s.revision()}`, { signal: ctl.signal });
  const reader = res.body!.getReader();
  const n = quick ? 300 : 1000;
  let seen = 0;
  const drained = (async () => {
    const decoder = new TextDecoder();
    while (seen < n) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += decoder.decode(value).split('\n').length - 1;
    }
  })();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await post(s, `w-${i}`);
  await drained;
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  rows.push({ scenario: `creates seen by a WATCH, ${backend}`, n: String(n), unit: 'event', 'wall ms each': (wall / n).toFixed(3), 'cpu ms each': ((c.user + c.system) / 1000 / n).toFixed(3), 'per s (wall)': ((n / wall) * 1000).toFixed(0) });
  ctl.abort();
  await s.stop();
  rmSync(dir, { recursive: true, force: true });
}

// restart with 100,000 objects
{
  const n = quick ? 10_000 : 100_000;
  const dir = tmp();
  // A cluster's bootstrap objects, then the ConfigMaps written straight into its log.
  await (await startApiServer({ dataDir: dir })).stop();
  const storage = new Storage(100_000, 0, SqliteBackend.open(dir, { synchronous: 'normal' }));
  for (let i = 0; i < n; i++) storage.write('configmaps', `default/cm-${i}`, 'ADDED', cm(`cm-${i}`));
  storage.backend?.close();
  await measure(`startApiServer({ dataDir }) + stop() on ${n.toLocaleString('en')} ConfigMaps`, 3, async () => (await startApiServer({ dataDir: dir })).stop(), 'restart');
  rmSync(dir, { recursive: true, force: true });
}

console.table(rows);
console.log(`load average: ${loadavg().map((l) => l.toFixed(2)).join(' ')}, node ${process.version}`);
