/**
 * The etcd storage backend (src/apiserver/storage/etcd-backend.ts) on a throwaway etcd started here
 * (test/support/etcd.ts; data in the OS temp dir, fsync on, as etcd runs by default), or on
 * KUBELOOM_BENCH_ETCD when set. Run: ./node_modules/.bin/node bench/storage-etcd.ts [--quick]
 *
 * - writes: Storage.write per second (each one a compare-and-swap transaction, acknowledged once the
 *   server's etcd watch delivered it), Storage.writeAsync with 4, 16 and 64 writes in flight (pipelined:
 *   several transactions on the wire), and ConfigMap creates over HTTP (one client, then 16 and 64
 *   concurrent clients);
 * - LIST of 1,000 ConfigMaps (served from the read model);
 * - watch latency: a create on server A until server B's watcher has the event (two servers, one etcd),
 *   sequential, so the figure per event is the end-to-end latency;
 * - load: `startApiServer({ etcdServers })` + `stop()` on an etcd holding 10,000 ConfigMaps.
 *
 * CPU time is this process's (both servers and their etcd threads), not etcd's own. The load average is printed.
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { startApiServer, type ApiServer } from '../src/apiserver/index.ts';
import { Storage } from '../src/apiserver/storage.ts';
import { EtcdBackend } from '../src/apiserver/storage/etcd-backend.ts';
import { startTestEtcd } from '../test/support/etcd.ts';

const quick = process.argv.includes('--quick');
const rows: Array<Record<string, string>> = [];

function row(name: string, n: number, unit: string, wall: number, cpu: { user: number; system: number }): void {
  const cpuMs = (cpu.user + cpu.system) / 1000;
  rows.push({ scenario: name, n: String(n), unit, 'wall ms each': (wall / n).toFixed(3), 'cpu ms each': (cpuMs / n).toFixed(3), 'per s (wall)': ((n / wall) * 1000).toFixed(0) });
}

async function measure(name: string, n: number, fn: (i: number) => Promise<void> | void, unit = 'op'): Promise<void> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await fn(i);
  row(name, n, unit, performance.now() - t0, process.cpuUsage(c0));
}

// `n` calls of `fn`, `concurrency` of them in flight at a time.
async function measureConcurrent(name: string, n: number, concurrency: number, fn: (i: number) => Promise<void>, unit = 'op'): Promise<void> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await fn(next++);
    }),
  );
  row(name, n, unit, performance.now() - t0, process.cpuUsage(c0));
}

const cm = (name: string): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { key: 'value', n: name } });
const post = async (s: ApiServer, name: string): Promise<void> => {
  const res = await fetch(`${s.url}/api/v1/namespaces/default/configmaps`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(cm(name)) });
  if (res.status !== 201) throw new Error(`create: ${res.status}`);
  await res.arrayBuffer();
};

const own = process.env.KUBELOOM_BENCH_ETCD === undefined ? await startTestEtcd() : undefined;
const url = process.env.KUBELOOM_BENCH_ETCD ?? own!.url;
try {
  // Storage.write
  {
    const storage = new Storage(100_000, 0, EtcdBackend.open([url], { prefix: '/bench-writes' }));
    await measure('Storage.write, etcd', quick ? 200 : 1000, (i) => void storage.write('configmaps', `default/cm-${i}`, 'ADDED', cm(`cm-${i}`)), 'write');
    if (typeof storage.writeAsync === 'function') {
      for (const c of [4, 16, 64]) await measureConcurrent(`Storage.writeAsync, etcd, ${c} in flight`, quick ? 400 : 2000, c, async (i) => void (await storage.writeAsync('configmaps', `default/a${c}-${i}`, 'ADDED', cm(`a${c}-${i}`))), 'write');
    }
    storage.backend?.close();
  }
  // HTTP creates, LIST, watch latency across two servers
  {
    const a = await startApiServer({ etcdServers: [url], etcdPrefix: '/bench-http' });
    const b = await startApiServer({ etcdServers: [url], etcdPrefix: '/bench-http' });
    const n = quick ? 200 : 1000;
    await measure('POST ConfigMap over HTTP, etcd', n, (i) => post(a, `cm-${i}`), 'create');
    const list = `${a.url}/api/v1/namespaces/default/configmaps`;
    await measure(`LIST ${n.toLocaleString('en')} ConfigMaps, etcd`, quick ? 10 : 50, async () => void (await (await fetch(list)).arrayBuffer()), 'list');
    const ctl = new AbortController();
    const res = await fetch(`${b.url}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${b.revision()}`, { signal: ctl.signal });
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
    const m = quick ? 100 : 300;
    await measure('create on A → event on B\'s watch, etcd', m, async (i) => {
      await post(a, `w-${i}`);
      await nextEvent();
    }, 'event');
    ctl.abort();
    // After the LIST and the watch, so they see the 1,000 ConfigMaps their names say.
    for (const c of [16, 64]) await measureConcurrent(`POST ConfigMap over HTTP, etcd, ${c} clients`, quick ? 400 : 2000, c, (i) => post(a, `c${c}-${i}`), 'create');
    await a.stop();
    await b.stop();
  }
  // Load
  {
    const n = quick ? 2000 : 10_000;
    const prefix = '/bench-load';
    await (await startApiServer({ etcdServers: [url], etcdPrefix: prefix })).stop();
    const storage = new Storage(100_000, 0, EtcdBackend.open([url], { prefix }));
    for (let i = 0; i < n; i++) storage.write('configmaps', `default/cm-${i}`, 'ADDED', cm(`cm-${i}`));
    storage.backend?.close();
    await measure(`startApiServer({ etcdServers }) + stop() on ${n.toLocaleString('en')} ConfigMaps`, 3, async () => (await startApiServer({ etcdServers: [url], etcdPrefix: prefix })).stop(), 'start');
  }
} finally {
  await own?.stop();
}

console.table(rows);
console.log(`load average: ${loadavg().map((l) => l.toFixed(2)).join(' ')}, node ${process.version}`);
