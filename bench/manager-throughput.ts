/**
 * The builder's pipeline against the plain Controller, and the manager's shared cache against one
 * informer per controller, on the embedded API server holding N ConfigMaps.
 *
 * 1. Throughput: time from start until every one of the N objects was reconciled once (no-op
 *    reconcile, 1 worker), for a Manager + builder controller (shared cache, kind source, predicates
 *    path, priority queue) and for kubeloom's plain Controller fed by its own SharedIndexInformer. The
 *    initial LIST is included in both; the time after the cache synced is reported too.
 * 2. Memory: C controllers watching the same kind; heap growth with the manager (one shared informer)
 *    and with one SharedIndexInformer per Controller.
 *
 * Run: node --expose-gc bench/manager-throughput.ts [objects=10000] [controllers=3]
 */
import type { ConfigMap } from '../src/api/core/v1.ts';
import { startApiServer } from '../src/apiserver/index.ts';
import { controllerManagedBy } from '../src/builder/index.ts';
import { kinds } from '../src/client/index.ts';
import { Controller, enqueueForObject } from '../src/controller/index.ts';
import { newManager } from '../src/manager/index.ts';
import { RestClient } from '../src/rest/client.ts';
import { ResourceClient } from '../src/kubernetes/resource-client.ts';
import { SharedIndexInformer, newListWatchFromClient } from '../src/tools/cache/index.ts';

const n = Number(process.argv[2] ?? 10_000);
const controllers = Number(process.argv[3] ?? 3);
const cms = kinds.coreV1.configMaps;
const quiet = { debug() {}, info() {}, error() {} };
const mib = (b: number): string => `${(b / 1024 / 1024).toFixed(1)} MiB`;
function heap(): number {
  globalThis.gc?.();
  globalThis.gc?.();
  return process.memoryUsage().heapUsed;
}

const server = await startApiServer();
const rest = new RestClient({ host: server.url, qps: -1 });
{
  const writer = newManager(rest, { logger: quiet }).getClient();
  for (let i = 0; i < n; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, n - i) }, (_, j) => writer.create(cms, { metadata: { namespace: 'default', name: `cm-${i + j}`, labels: { app: 'bench' } }, data: { v: 'x'.repeat(100) } })));
  }
}
const total = n;

async function managerRun(count: number): Promise<{ ms: number; afterSyncMs: number; heap: number }> {
  const before = heap();
  const mgr = newManager(rest, { logger: quiet });
  const seen = Array.from({ length: count }, () => new Set<string>());
  let finish!: () => void;
  const done = new Promise<void>((r) => (finish = r));
  let syncedAt = 0;
  for (let c = 0; c < count; c++) {
    controllerManagedBy(mgr)
      .for(cms)
      .named(`c${c}`)
      .complete((req) => {
        if (req.name.startsWith('cm-')) seen[c]!.add(req.name);
        if (syncedAt === 0) syncedAt = performance.now();
        if (seen.every((s) => s.size === total)) finish();
      });
  }
  const stop = new AbortController();
  const t0 = performance.now();
  const running = mgr.start(stop.signal);
  await done;
  const ms = performance.now() - t0;
  const h = heap() - before;
  stop.abort();
  await running;
  return { ms, afterSyncMs: performance.now() - syncedAt - (performance.now() - t0 - ms), heap: h };
}

async function plainRun(count: number): Promise<{ ms: number; afterSyncMs: number; heap: number }> {
  const before = heap();
  const seen = Array.from({ length: count }, () => new Set<string>());
  let finish!: () => void;
  const done = new Promise<void>((r) => (finish = r));
  let syncedAt = 0;
  const stop = new AbortController();
  const runs: Promise<void>[] = [];
  const t0 = performance.now();
  for (let c = 0; c < count; c++) {
    const informer = new SharedIndexInformer<ConfigMap>(newListWatchFromClient(new ResourceClient<ConfigMap>(rest, { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true })), { objectDescription: 'configmaps' });
    const controller = new Controller({
      name: `plain${c}`,
      informers: [informer],
      logger: quiet,
      reconcile: async (key) => {
        if (key.startsWith('default/cm-')) seen[c]!.add(key);
        if (syncedAt === 0) syncedAt = performance.now();
        if (seen.every((s) => s.size === total)) finish();
      },
    });
    informer.addEventHandler(enqueueForObject(controller));
    runs.push(informer.run({ signal: stop.signal }), controller.run({ signal: stop.signal }));
  }
  await done;
  const ms = performance.now() - t0;
  const h = heap() - before;
  stop.abort();
  await Promise.all(runs);
  return { ms, afterSyncMs: ms - (syncedAt - t0), heap: h };
}

console.log(`${n} ConfigMaps on the embedded API server (${process.version})`);
for (let round = 0; round < 2; round++) {
  const m = await managerRun(1);
  const p = await plainRun(1);
  console.log(`throughput, 1 controller: manager+builder ${m.ms.toFixed(0)} ms total (${(m.afterSyncMs).toFixed(0)} ms from first reconcile, ${Math.round(total / (m.afterSyncMs / 1000))}/s); plain Controller ${p.ms.toFixed(0)} ms total (${p.afterSyncMs.toFixed(0)} ms from first reconcile, ${Math.round(total / (p.afterSyncMs / 1000))}/s)`);
}
const mm = await managerRun(controllers);
const pm = await plainRun(controllers);
console.log(`memory, ${controllers} controllers on ConfigMaps: manager (one shared informer) +${mib(mm.heap)} heap; one informer per Controller +${mib(pm.heap)} heap${globalThis.gc === undefined ? ' (run with --expose-gc for stable figures)' : ''}`);
await rest.close();
await server.stop();
