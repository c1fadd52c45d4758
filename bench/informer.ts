/**
 * Informer benchmarks: initial sync of N pods and watch-event throughput through a
 * SharedIndexInformer (objects parsed from JSON, transformed, frozen, indexed and delivered to a
 * handler), in memory; then the same initial sync over HTTP against the embedded API server for
 * kubeloom and for @kubernetes/client-node's informer.
 *
 * Run: ./node_modules/.bin/node --expose-gc bench/informer.ts [httpPods]
 */
import * as k8s from '@kubernetes/client-node';
import type { Pod } from '../src/api/core/v1.ts';
import type { KubeList } from '../src/apimachinery/object.ts';
import type { WatchEvent } from '../src/apimachinery/watch.ts';
import { ListWatch, SharedIndexInformer, newListWatchFromClient, stripManagedFields } from '../src/tools/cache/index.ts';
import { startApiServer } from '../src/testing/index.ts';
import { newClientset } from '../src/kubernetes/index.ts';
import { benchPod } from './informer-fixtures.ts';

const httpPods = Number(process.argv[2] ?? 10_000);
const mb = (b: number): string => `${(b / 1024 / 1024).toFixed(0)} MiB`;
function mem(): string {
  globalThis.gc?.();
  const m = process.memoryUsage();
  return `heap ${mb(m.heapUsed)}, rss ${mb(m.rss)}`;
}

async function inMemorySync(n: number, freeze: boolean): Promise<void> {
  const listJson = JSON.stringify({ metadata: { resourceVersion: '5000000' }, items: Array.from({ length: n }, (_, i) => benchPod(i)) });
  const stop = new AbortController();
  let adds = 0;
  let done!: () => void;
  const all = new Promise<void>((r) => (done = r));
  const lw = new ListWatch<Pod>({
    list: async () => JSON.parse(listJson) as KubeList<Pod>,
    watch: async (o) => ({
      // A silent watch that ends when aborted.
      // eslint-disable-next-line require-yield
      async *[Symbol.asyncIterator](): AsyncGenerator<WatchEvent<Pod>> {
        if (o.signal?.aborted !== true) await new Promise((r) => o.signal?.addEventListener('abort', r, { once: true }));
      },
    }),
    watchListSemanticsUnsupported: true,
  });
  const informer = new SharedIndexInformer<Pod>(lw, { freezeObjects: freeze });
  informer.setTransform(stripManagedFields);
  informer.addEventHandler({ onAdd: () => void (++adds === n && done()) });
  const t0 = performance.now();
  const running = informer.run({ signal: stop.signal });
  await all;
  const ms = performance.now() - t0;
  console.log(`in-memory initial sync, ${n} pods${freeze ? '' : ' (no freeze)'}: ${ms.toFixed(0)} ms (${Math.round(n / (ms / 1000))} pods/s, incl. JSON.parse of the list); ${mem()}`);
  stop.abort();
  await running;
}

async function inMemoryWatch(n: number): Promise<void> {
  const lines = Array.from({ length: 1000 }, (_, i) => JSON.stringify({ type: 'MODIFIED', object: benchPod(i) }));
  const stop = new AbortController();
  let updates = 0;
  let done!: () => void;
  const all = new Promise<void>((r) => (done = r));
  let t0 = 0;
  const lw = new ListWatch<Pod>({
    list: async () => ({ metadata: { resourceVersion: '1' }, items: [] }),
    watch: async () => ({
      async *[Symbol.asyncIterator](): AsyncGenerator<WatchEvent<Pod>> {
        t0 = performance.now();
        for (let i = 0; i < n; i++) {
          const ev = JSON.parse(lines[i % 1000]!) as { type: 'MODIFIED'; object: Pod };
          (ev.object.metadata as { resourceVersion?: string }).resourceVersion = String(10 + i);
          yield ev;
        }
        if (!stop.signal.aborted) await new Promise((r) => stop.signal.addEventListener('abort', r, { once: true }));
      },
    }),
    watchListSemanticsUnsupported: true,
  });
  const informer = new SharedIndexInformer<Pod>(lw);
  informer.addEventHandler({ onAdd: () => void (++updates === n && done()), onUpdate: () => void (++updates === n && done()) });
  const running = informer.run({ signal: stop.signal });
  await all;
  const ms = performance.now() - t0;
  const parseOnly = performance.now();
  for (let i = 0; i < n; i++) JSON.parse(lines[i % 1000]!);
  const parseMs = performance.now() - parseOnly;
  console.log(`in-memory watch: ${n} events in ${ms.toFixed(0)} ms = ${Math.round(n / (ms / 1000))} events/s (JSON.parse alone: ${Math.round(n / (parseMs / 1000))}/s, ratio ${((parseMs / ms) * 100).toFixed(0)}%); ${mem()}`);
  stop.abort();
  await running;
}

async function overHttp(n: number): Promise<void> {
  // TLS, because @kubernetes/client-node refuses plain HTTP.
  const server = await startApiServer({ watchHistorySize: n + 100, tls: true });
  const cs = newClientset({ host: server.url, qps: -1, tls: { caData: server.caCertPem! } });
  const pods = cs.coreV1().pods('default');
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      for (;;) {
        const i = next++;
        if (i >= n) return;
        const p = benchPod(i);
        const meta = p.metadata as Record<string, unknown>;
        delete meta.resourceVersion;
        delete meta.uid;
        delete meta.managedFields;
        await pods.create(p as Pod);
      }
    }),
  );
  {
    const stop = new AbortController();
    let adds = 0;
    let done!: () => void;
    const all = new Promise<void>((r) => (done = r));
    const informer = new SharedIndexInformer<Pod>(newListWatchFromClient(pods));
    informer.addEventHandler({ onAdd: () => void (++adds === n && done()) });
    const t0 = performance.now();
    const running = informer.run({ signal: stop.signal });
    await all;
    console.log(`HTTP initial sync, ${n} pods, kubeloom informer (watch-list): ${(performance.now() - t0).toFixed(0)} ms; ${mem()}`);
    stop.abort();
    await running;
  }
  {
    const stop = new AbortController();
    let adds = 0;
    let done!: () => void;
    const all = new Promise<void>((r) => (done = r));
    const informer = new SharedIndexInformer<Pod>(newListWatchFromClient(pods), { reflector: { useWatchList: false } });
    informer.addEventHandler({ onAdd: () => void (++adds === n && done()) });
    const t0 = performance.now();
    const running = informer.run({ signal: stop.signal });
    await all;
    console.log(`HTTP initial sync, ${n} pods, kubeloom informer (paged LIST): ${(performance.now() - t0).toFixed(0)} ms; ${mem()}`);
    stop.abort();
    await running;
  }
  {
    const kc = new k8s.KubeConfig();
    kc.loadFromString(server.kubeconfig);
    const api = kc.makeApiClient(k8s.CoreV1Api);
    let adds = 0;
    let done!: () => void;
    const all = new Promise<void>((r) => (done = r));
    const informer = k8s.makeInformer(kc, '/api/v1/namespaces/default/pods', () => api.listNamespacedPod({ namespace: 'default' }));
    informer.on('add', () => void (++adds === n && done()));
    const t0 = performance.now();
    await informer.start();
    await all;
    console.log(`HTTP initial sync, ${n} pods, @kubernetes/client-node informer: ${(performance.now() - t0).toFixed(0)} ms; ${mem()}`);
    await informer.stop();
  }
  await server.stop();
}

if (process.env.HTTP_ONLY === undefined) {
await inMemorySync(10_000, true);
await inMemorySync(10_000, false);
await inMemorySync(100_000, true);
await inMemoryWatch(100_000);
}
await overHttp(httpPods);
process.exit(0);
