/**
 * One replica of the sharding harness (bench/sharding/run.ts starts several as separate processes):
 * a ShardRing member with a ShardedController over the ConfigMaps of one namespace. Every reconcile
 * appends `{"k":key,"r":replica,"s":start,"e":end}` (ms since the epoch, shared by the processes of
 * one machine) to the log file with a synchronous write, so that a kill -9 loses no finished
 * interval. Every second it prints a status line on stdout: heap after a full GC, cached objects,
 * ring members, active ranges.
 *
 * node --expose-gc bench/sharding/replica.ts --kubeconfig K --namespace NS --id r-0 --log FILE
 *   [--lease-ms 5000 --renew-ms 3000 --retry-ms 1000 --work-ms 2 --workers 4]
 */
import { openSync, writeSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { ConfigMap } from '../../src/api/core/v1.ts';
import { parseKubeConfig, restConfigFrom } from '../../src/clientcmd/index.ts';
import { newClientset } from '../../src/kubernetes/index.ts';
import { newListWatchFromClient, SharedIndexInformer } from '../../src/tools/cache/index.ts';
import { ShardRing, ShardSelector, ShardedController, formatRanges } from '../../src/sharding/index.ts';

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    namespace: { type: 'string' },
    id: { type: 'string' },
    log: { type: 'string' },
    ring: { type: 'string', default: 'bench' },
    'lease-ms': { type: 'string', default: '5000' },
    'renew-ms': { type: 'string', default: '3000' },
    'retry-ms': { type: 'string', default: '1000' },
    'work-ms': { type: 'string', default: '2' },
    workers: { type: 'string', default: '4' },
  },
});
const id = values.id!;
const namespace = values.namespace!;
const fd = openSync(values.log!, 'a');
const now = (): number => performance.timeOrigin + performance.now();

const config = await restConfigFrom(parseKubeConfig(readFileSync(values.kubeconfig!, 'utf8'), { file: values.kubeconfig! }));
const cs = newClientset({ ...config, qps: -1 });
const ring = new ShardRing({
  name: values.ring!,
  namespace,
  identity: id,
  client: cs.coordinationV1().leases(namespace),
  leaseDurationMs: Number(values['lease-ms']),
  renewDeadlineMs: Number(values['renew-ms']),
  retryPeriodMs: Number(values['retry-ms']),
});
const informer = new SharedIndexInformer<ConfigMap>(newListWatchFromClient(cs.coreV1().configMaps(namespace), { labelSelector: 'bench=sharding' }), {
  shardSelector: ShardSelector.none(),
  objectDescription: 'configmaps',
});
const workMs = Number(values['work-ms']);
const controller = new ShardedController({
  name: `bench-${id}`,
  ring,
  informers: [informer],
  workers: Number(values.workers),
  reconcile: async (key) => {
    const s = now();
    if (workMs > 0) await new Promise((r) => setTimeout(r, workMs));
    writeSync(fd, `${JSON.stringify({ k: key, r: id, s, e: now() })}\n`);
  },
});
controller.watchFor(informer);

const stop = new AbortController();
process.once('SIGTERM', () => stop.abort());
process.once('SIGINT', () => stop.abort());
const gc = (globalThis as { gc?: () => void }).gc;
const ticker = setInterval(() => {
  gc?.();
  const st = controller.status();
  const rs = ring.status();
  process.stdout.write(
    `${JSON.stringify({
      id,
      t: now(),
      heapUsed: process.memoryUsage().heapUsed,
      cached: informer.getStore().list().length,
      members: rs.members,
      active: st.activeRanges,
      desired: formatRanges(rs.desired),
      activeFraction: st.activeFraction,
      selectorRanges: informer.shardSelector()?.merged().length ?? 0,
      ready: controller.readyz()() === undefined,
    })}\n`,
  );
}, 1000);
await Promise.all([ring.run({ signal: stop.signal }), informer.run({ signal: stop.signal }), controller.run({ signal: stop.signal })]);
clearInterval(ticker);
process.stdout.write(`${JSON.stringify({ id, exited: true })}\n`);
