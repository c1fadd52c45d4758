/**
 * The three storage backends side by side, same scenarios, same process, interleaved rounds (issue 31's
 * "writes/s and LIST/WATCH figures for memory, SQLite and etcd"):
 *
 * - memory: `startApiServer()`;
 * - SQLite: `startApiServer({ dataDir })` as `kubeloom apiserver --data-dir` runs it (WAL, synchronous=full:
 *   every acknowledged write fsynced), on the machine's disk (KUBELOOM_BENCH_DIR or the OS temp dir);
 * - etcd: `startApiServer({ etcdServers })` on a throwaway Debian etcd started here (test/support/etcd.ts:
 *   free loopback ports, own data dir, default fsync), or KUBELOOM_BENCH_ETCD.
 *
 * Scenarios, each on a fresh server per backend and round: POST ConfigMap over HTTP by one client
 * (sequential: latency-bound) and by 16 concurrent clients (writes/s the server sustains); LIST of the
 * 1,000 ConfigMaps; create → event on one WATCH of the same server (sequential, end-to-end latency).
 * Prints the median over rounds of CPU ms each (this process: server, client, etcd client threads; not
 * etcd's own) and operations per second of wall time.
 *
 * Run: node bench/storage-backends.ts [rounds=3] [n=500]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { startApiServer, type ApiServer } from '../src/apiserver/index.ts';
import { etcdSkipReason, startTestEtcd, type TestEtcd } from '../test/support/etcd.ts';

const rounds = Number(process.argv[2] ?? 3);
const n = Number(process.argv[3] ?? 500);
const concurrency = 16;
type Backend = 'memory' | 'SQLite' | 'etcd';

const cm = (name: string): string => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { key: 'value', n: name } });
async function post(s: ApiServer, name: string): Promise<void> {
  const res = await fetch(`${s.url}/api/v1/namespaces/default/configmaps`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: cm(name) });
  if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${await res.text()}`);
  await res.arrayBuffer();
}

/** CPU ms each and operations per wall second. */
type Figure = { cpuMs: number; perS: number };
async function measure(count: number, fn: () => Promise<void>): Promise<Figure> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { cpuMs: (c.user + c.system) / 1000 / count, perS: (count / wall) * 1000 };
}

const etcdReason = process.env.KUBELOOM_BENCH_ETCD === undefined ? etcdSkipReason() : undefined;
const etcd: TestEtcd | undefined = process.env.KUBELOOM_BENCH_ETCD === undefined && etcdReason === undefined ? await startTestEtcd() : undefined;
const etcdUrl = process.env.KUBELOOM_BENCH_ETCD ?? etcd?.url;
const backends: Backend[] = ['memory', 'SQLite', ...(etcdUrl === undefined ? [] : (['etcd'] as const))];
if (etcdUrl === undefined) console.log(`etcd left out: ${etcdReason}`);

const results = new Map<string, Figure[]>();
const add = (scenario: string, b: Backend, f: Figure): void => {
  const k = `${scenario}\u0000${b}`;
  results.set(k, [...(results.get(k) ?? []), f]);
};

let serial = 0;
async function start(b: Backend): Promise<{ server: ApiServer; cleanup: () => void }> {
  if (b === 'memory') return { server: await startApiServer(), cleanup: () => undefined };
  if (b === 'SQLite') {
    const dir = mkdtempSync(path.join(process.env.KUBELOOM_BENCH_DIR ?? tmpdir(), 'kubeloom-backends-'));
    return { server: await startApiServer({ dataDir: dir }), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
  }
  // A prefix of its own per server: each starts on an empty cluster.
  return { server: await startApiServer({ etcdServers: [etcdUrl!], etcdPrefix: `/bench-backends-${process.pid}-${serial++}` }), cleanup: () => undefined };
}

console.log(`storage-backends: ${rounds} rounds × ${backends.join(', ')}, n=${n}; load ${loadavg().map((l) => l.toFixed(2)).join(' ')}; node ${process.version}`);
try {
  for (let round = 0; round < rounds; round++) {
    for (const b of backends) {
      const { server, cleanup } = await start(b);
      try {
        for (let i = 0; i < 20; i++) await post(server, `warm-${i}`);
        add('POST ConfigMap, one client', b, await measure(n, async () => {
          for (let i = 0; i < n; i++) await post(server, `seq-${i}`);
        }));
        add(`POST ConfigMap, ${concurrency} clients`, b, await measure(n, async () => {
          let next = 0;
          await Promise.all(Array.from({ length: concurrency }, async () => {
            while (next < n) await post(server, `par-${next++}`);
          }));
        }));
        // 1,000 ConfigMaps (+ the 20 warm-up ones) are now stored.
        const list = `${server.url}/api/v1/namespaces/default/configmaps`;
        add(`LIST ${2 * n + 20} ConfigMaps`, b, await measure(20, async () => {
          for (let i = 0; i < 20; i++) await (await fetch(list)).arrayBuffer();
        }));
        const ctl = new AbortController();
        const res = await fetch(`${list}?watch=1&resourceVersion=${server.revision()}`, { signal: ctl.signal });
        const reader = res.body!.getReader();
        const decoder = new TextDecoder();
        let pending = '';
        const nextEvent = async (): Promise<void> => {
          while (!pending.includes('\n')) {
            const { value, done } = await reader.read();
            if (done) throw new Error('watch ended');
            pending += decoder.decode(value, { stream: true });
          }
          pending = pending.slice(pending.indexOf('\n') + 1);
        };
        const m = Math.min(n, 300);
        add('create → event on one WATCH', b, await measure(m, async () => {
          for (let i = 0; i < m; i++) {
            await post(server, `w-${i}`);
            await nextEvent();
          }
        }));
        ctl.abort();
      } finally {
        await server.stop();
        cleanup();
      }
    }
    console.log(`round ${round + 1} done; load ${loadavg()[0]!.toFixed(2)}`);
  }
} finally {
  await etcd?.stop();
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const scenarios = [...new Set([...results.keys()].map((k) => k.split('\u0000')[0]!))];
console.log(`\n| scenario | ${backends.map((b) => `${b}: CPU ms each | ${b}: per s`).join(' | ')} |`);
console.log(`| :--- | ${backends.map(() => '---: | ---:').join(' | ')} |`);
for (const s of scenarios) {
  const cells = backends.map((b) => {
    const fs = results.get(`${s}\u0000${b}`) ?? [];
    return `${median(fs.map((f) => f.cpuMs)).toFixed(2)} | ${median(fs.map((f) => f.perS)).toFixed(0)}`;
  });
  console.log(`| ${s} | ${cells.join(' | ')} |`);
}
console.log(`\nmedian of ${rounds} interleaved rounds; load after ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
