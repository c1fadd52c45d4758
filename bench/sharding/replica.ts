/**
 * One replica of the sharding harness (bench/sharding/run.ts starts several as separate processes):
 * a ShardRing member with a ShardedController over the ConfigMaps of one namespace. Every reconcile
 * appends `{"k":key,"r":replica,"s":start,"e":end}` (ms since the epoch, shared by the processes of
 * one machine) to the log file with a synchronous write, so that a kill -9 loses no finished
 * interval. Every second it prints a status line on stdout: heap after a full GC, cached objects,
 * ring members, active ranges.
 *
 * With `--manager`, the replica is a Manager with the `sharding` option and a builder controller
 * (src/manager/sharding.ts) instead of a hand-wired ring, informer and ShardedController.
 *
 * node --expose-gc bench/sharding/replica.ts --kubeconfig K --namespace NS --id r-0 --log FILE
 *   [--lease-ms 5000 --renew-ms 3000 --retry-ms 1000 --work-ms 2 --workers 4] [--manager]
 */
import { openSync, writeSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { ConfigMap } from '../../src/api/core/v1.ts';
import { parseKubeConfig, restConfigFrom } from '../../src/clientcmd/index.ts';
import { newClientset } from '../../src/kubernetes/index.ts';
import { newListWatchFromClient, SharedIndexInformer } from '../../src/tools/cache/index.ts';
import { ShardRing, ShardSelector, ShardedController, formatRanges, type ShardingStatus, type ShardRingStatus } from '../../src/sharding/index.ts';
import { controllerManagedBy } from '../../src/builder/index.ts';
import { kinds } from '../../src/client/index.ts';
import { newManager } from '../../src/manager/index.ts';

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
    manager: { type: 'boolean', default: false },
  },
});
const id = values.id!;
const namespace = values.namespace!;
const fd = openSync(values.log!, 'a');
const now = (): number => performance.timeOrigin + performance.now();

const config = await restConfigFrom(parseKubeConfig(readFileSync(values.kubeconfig!, 'utf8'), { file: values.kubeconfig! }));
const cs = newClientset({ ...config, qps: -1 });
const leaseMs = Number(values['lease-ms']);
const renewMs = Number(values['renew-ms']);
const retryMs = Number(values['retry-ms']);
const workMs = Number(values['work-ms']);
const reconcileOne = async (key: string): Promise<void> => {
  const s = now();
  if (workMs > 0) await new Promise((r) => setTimeout(r, workMs));
  writeSync(fd, `${JSON.stringify({ k: key, r: id, s, e: now() })}\n`);
};

/** What the status line reads, and how the replica runs, in either mode. */
interface Replica {
  ring: ShardRing;
  status(): ShardingStatus;
  ringStatus(): ShardRingStatus;
  cached(): number;
  selectorRanges(): number;
  ready(): boolean;
  run(signal: AbortSignal): Promise<void>;
}

function handWired(): Replica {
  const ring = new ShardRing({ name: values.ring!, namespace, identity: id, client: cs.coordinationV1().leases(namespace), leaseDurationMs: leaseMs, renewDeadlineMs: renewMs, retryPeriodMs: retryMs });
  const informer = new SharedIndexInformer<ConfigMap>(newListWatchFromClient(cs.coreV1().configMaps(namespace), { labelSelector: 'bench=sharding' }), {
    shardSelector: ShardSelector.none(),
    objectDescription: 'configmaps',
  });
  const controller = new ShardedController({ name: `bench-${id}`, ring, informers: [informer], workers: Number(values.workers), reconcile: reconcileOne });
  controller.watchFor(informer);
  const readyz = controller.readyz();
  return {
    ring,
    status: () => controller.status(),
    ringStatus: () => ring.status(),
    cached: () => informer.getStore().list().length,
    selectorRanges: () => informer.shardSelector()?.merged().length ?? 0,
    ready: () => readyz() === undefined,
    run: async (signal) => {
      await Promise.all([ring.run({ signal }), informer.run({ signal }), controller.run({ signal })]);
    },
  };
}

function onManager(): Replica {
  const mgr = newManager(
    { ...config, qps: -1 },
    {
      logger: { debug() {}, info() {}, error: (m, f) => console.error(m, f ?? '') },
      sharding: { ring: values.ring!, namespace, identity: id, leaseDurationMs: leaseMs, renewDeadlineMs: renewMs, retryPeriodMs: retryMs },
      cache: { byObject: [[kinds.coreV1.configMaps, { namespaces: [namespace], labelSelector: 'bench=sharding' }]] },
    },
  );
  controllerManagedBy(mgr)
    .for(kinds.coreV1.configMaps)
    .named(`bench-${id}`)
    .withOptions({ maxConcurrentReconciles: Number(values.workers) })
    .complete(async ({ namespace: ns, name }) => reconcileOne(`${ns}/${name}`));
  const sharding = mgr.getSharding()!;
  const gate = sharding.gates()[0]!;
  const informers = mgr.getCache().namespaceInformers(kinds.coreV1.configMaps);
  const readyz = gate.readyz();
  return {
    ring: sharding.ring,
    status: () => gate.status(),
    ringStatus: () => sharding.ring.status(),
    cached: () => informers.reduce((n, i) => n + i.getStore().list().length, 0),
    selectorRanges: () => informers[0]?.shardSelector()?.merged().length ?? 0,
    ready: () => readyz() === undefined,
    run: (signal) => mgr.start(signal),
  };
}

const replica = values.manager === true ? onManager() : handWired();

const stop = new AbortController();
process.once('SIGTERM', () => stop.abort());
process.once('SIGINT', () => stop.abort());
const gc = (globalThis as { gc?: () => void }).gc;
const ticker = setInterval(() => {
  gc?.();
  const st = replica.status();
  const rs = replica.ringStatus();
  process.stdout.write(
    `${JSON.stringify({
      id,
      t: now(),
      heapUsed: process.memoryUsage().heapUsed,
      cached: replica.cached(),
      members: rs.members,
      active: st.activeRanges,
      desired: formatRanges(rs.desired),
      activeFraction: st.activeFraction,
      selectorRanges: replica.selectorRanges(),
      ready: replica.ready(),
    })}\n`,
  );
}, 1000);
await replica.run(stop.signal);
clearInterval(ticker);
process.stdout.write(`${JSON.stringify({ id, exited: true })}\n`);
