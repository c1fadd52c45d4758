/**
 * The real-cluster mode of `npm run bench` (`--kubeconfig K`): the initial-sync and memory scenarios
 * against any API server, for kubeloom, @kubernetes/client-node and, with `--cgbench PATH`,
 * client-go's typed informer over JSON and over protobuf (../shared/realk8s's cgbench binary).
 *
 * The workload is `--pods N` Pods (default 10,000) of bench/lib/real-workload.ts in one namespace:
 * `--namespace NS` uses (and tops up) an existing namespace, which is kept; without it the bench
 * creates `kubeloom-bench-<random>`, fills it and deletes it at the end (`--keep` keeps it). Every
 * client runs in its own process, one after another; `--rounds R` rounds (default 3) run the
 * variants interleaved, so that a busy moment of a shared machine does not fall on one client only,
 * and the load average is recorded before every run.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import { parseKubeConfig, restConfigFrom } from '../src/clientcmd/index.ts';
import { DiscoveryClient } from '../src/discovery/index.ts';
import { newClientset } from '../src/kubernetes/index.ts';
import { buildList } from '../src/rest/index.ts';
import { runScenario } from './lib/child.ts';
import { runCgbench } from './lib/cgbench.ts';
import { machineInfo, type MachineInfo } from './lib/measure.ts';
import { countPods, deleteWorkload, ensurePods } from './lib/real-workload.ts';
import type { InformerInput, InformerResult } from './lib/types.ts';

/** The clients compared against a real cluster. */
export const realVariants = ['kubeloom', 'kubeloom-protobuf', 'kubeloom-strip', 'kubeloom-nogzip', 'client-node', 'client-go-json', 'client-go-protobuf'] as const;
/** Clients that run only when named (`--variants`): kubeloom over protobuf with disableCompression. */
export const extraRealVariants = ['kubeloom-protobuf-nogzip'] as const;
/** One of {@link realVariants} or {@link extraRealVariants}. */
export type RealVariant = (typeof realVariants)[number] | (typeof extraRealVariants)[number];

/** One run of one client. */
export interface RealRun {
  variant: RealVariant;
  round: number;
  /** Informer start until synced with every add delivered to the handler. */
  syncMs: number;
  /** CPU time of that span (Node clients only: cgbench reports none). */
  cpuMs: number | undefined;
  /** CPU time of the client's whole process, start to result (client-go: to exit); undefined when not measured. */
  processCpuMs?: number | undefined;
  peakRss: number;
  /** kubeloom and client-node: V8 heap after GC minus the heap before; client-go: HeapInuse after GC. */
  heapBytes: number;
  /** Load average (1, 5, 15 min) when the run started. */
  load: [number, number, number];
}

/** Everything a real-cluster run measured. */
export interface RealResults {
  machine: MachineInfo;
  server: { url: string; version: string };
  namespace: string;
  pods: number;
  /** Bytes of the JSON LIST at resourceVersion 0 (decoded, as the clients parse it). */
  listBytes: number;
  rounds: number;
  cgbench: string | undefined;
  runs: RealRun[];
  loadAverageEnd: [number, number, number];
  totalSeconds: number;
}

/** Options of {@link runRealCluster}, from the command line. */
export interface RealOptions {
  kubeconfigFile: string;
  namespace: string | undefined;
  pods: number;
  rounds: number;
  cgbench: string | undefined;
  keep: boolean;
  variants: readonly RealVariant[];
  /** Create missing Pods standalone (see realPod): no owner, an unknown scheduler. Default false. */
  standalonePods?: boolean;
  /** Extra node flags for the kubeloom scenario processes of a round (e.g. --cpu-prof). */
  profileArgs: (name: string) => string[];
  log: (msg: string) => void;
}

const loadAverage = (): [number, number, number] => {
  const l = os.loadavg();
  return [l[0] ?? 0, l[1] ?? 0, l[2] ?? 0];
};

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Runs the scenarios; see the module comment. */
export async function runRealCluster(o: RealOptions): Promise<RealResults> {
  const started = performance.now();
  const kubeconfig = await readFile(o.kubeconfigFile, 'utf8');
  const config = await restConfigFrom(parseKubeConfig(kubeconfig, { file: o.kubeconfigFile }));
  const cs = newClientset(config);
  const version = await new DiscoveryClient(cs.restClient).serverVersion();
  const namespace = o.namespace ?? `kubeloom-bench-${randomBytes(3).toString('hex')}`;
  const machine = machineInfo();
  o.log(`server ${config.host} (${version.gitVersion}); namespace ${namespace}; load ${machine.loadAverage.map((l) => l.toFixed(1)).join(' ')}`);
  const created = await ensurePods(cs, namespace, o.pods, 8, (n) => o.log(`created ${n} pods`), o.standalonePods === true);
  if (created > 0) o.log(`created ${created} pods in ${namespace}`);
  const pods = await countPods(cs, namespace);
  if (pods < o.pods) throw new Error(`namespace ${namespace} holds ${pods} pods, fewer than ${o.pods}`);
  const listed = await cs.restClient.do(buildList({ group: '', version: 'v1', namespace, resource: 'pods' }, { resourceVersion: '0' }));
  o.log(`${pods} pods, LIST ${(listed.body.length / 1e6).toFixed(1)} MB`);

  const runs: RealRun[] = [];
  try {
    for (let round = 1; round <= o.rounds; round++) {
      for (const variant of o.variants) {
        if (variant.startsWith('client-go') && o.cgbench === undefined) continue;
        // Let the server settle (its GC, the previous client's watch closing) before the next client.
        await pause(2000);
        // Pods may vanish under a controller-manager run by someone else (pod GC): every client must sync the same set.
        const now = await countPods(cs, namespace);
        if (now !== pods) throw new Error(`namespace ${namespace} holds ${now} pods now, ${pods} when the runs began: its pods changed under the benchmark`);
        const load = loadAverage();
        let run: RealRun;
        if (variant === 'client-go-json' || variant === 'client-go-protobuf') {
          const r = await runCgbench(o.cgbench!, o.kubeconfigFile, namespace, pods, variant === 'client-go-protobuf');
          run = { variant, round, syncMs: r.syncMs, cpuMs: undefined, processCpuMs: r.cpuMs, peakRss: r.peakRss, heapBytes: r.heapBytes, load };
        } else {
          const input: InformerInput = { url: config.host, kubeconfig, real: true, namespace, pods, variant, watchEvents: 0 };
          const execArgv = variant === 'client-node' ? [] : o.profileArgs(`real-${variant}-${round}`);
          const r = await runScenario<InformerResult>('informer', input, { execArgv });
          run = { variant, round, syncMs: r.sync.ms, cpuMs: r.sync.cpuMs, processCpuMs: r.processCpuMs, peakRss: r.peakRss, heapBytes: r.heapBytes, load };
          if (execArgv.length > 0) o.log(`profile of ${variant}, round ${round}: the sync is ${(r.syncedAtMs - r.sync.ms).toFixed(0)}-${r.syncedAtMs.toFixed(0)} ms`);
        }
        runs.push(run);
        const processCpu = run.processCpuMs === undefined ? '' : `, process cpu ${(run.processCpuMs / 1000).toFixed(2)} s`;
        o.log(`round ${round} ${variant}: ${(run.syncMs / 1000).toFixed(2)} s${run.cpuMs === undefined ? '' : ` (cpu ${(run.cpuMs / 1000).toFixed(2)} s)`}${processCpu}, peak rss ${(run.peakRss / 2 ** 20).toFixed(0)} MiB, load ${load[0].toFixed(2)}`);
      }
    }
  } finally {
    if (o.namespace === undefined && !o.keep) {
      o.log(`deleting ${namespace}`);
      await deleteWorkload(cs, namespace);
    }
    await cs.close();
  }
  return {
    machine,
    server: { url: config.host, version: version.gitVersion ?? 'unknown' },
    namespace,
    pods,
    listBytes: listed.body.length,
    rounds: o.rounds,
    cgbench: o.cgbench,
    runs,
    loadAverageEnd: loadAverage(),
    totalSeconds: (performance.now() - started) / 1000,
  };
}
