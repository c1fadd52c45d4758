/**
 * `npm run bench`: kubeloom against @kubernetes/client-node and against the JSON.parse ceiling, in
 * one run, on one embedded API server and one generated workload. Writes BENCHMARKS.md,
 * docs/bench/*.svg and docs/bench/results.json. See docs/performance.md for the method.
 *
 * Flags:
 *   --quick      smaller sizes (a 1-2 minute smoke run; its output is not meant to be committed)
 *   --cpu-prof   write V8 CPU profiles of the informer scenarios to bench/results/profiles
 *   --out DIR    write BENCHMARKS.md and the charts under DIR instead of the repository root
 *   --only LIST  comma-separated parts to run: ceiling,sync,watch,workqueue,rest (default all)
 *   --variants LIST  informer variants to run (default all; see bench/lib/types.ts)
 *   --sync-pods LIST comma-separated initial-sync sizes, overriding the defaults (for profiling)
 *   --ts         run the scenarios from the TypeScript sources instead of compiling them first
 *
 * Real-cluster mode (bench/real.ts): initial sync and memory against any API server, side by side
 * with client-node and client-go; BENCHMARKS.md then shows these figures and the embedded server's
 * last ones (docs/bench/results.json), and an embedded run keeps the last real-cluster figures.
 *   --kubeconfig FILE  run against the cluster of this kubeconfig (its current context)
 *   --namespace NS     use the Pods of NS (created up to --pods when fewer; NS is kept); default: a
 *                      new namespace kubeloom-bench-<random>, filled and deleted at the end
 *   --pods N           Pods to sync (default 10000)
 *   --rounds R         interleaved rounds (default 3)
 *   --cgbench PATH     also run client-go (JSON and protobuf) with this cgbench binary
 *   --keep             keep the namespace the bench created
 *   --variants LIST    clients to run (default all: kubeloom,kubeloom-protobuf,kubeloom-strip,kubeloom-nogzip,client-node,client-go-json,client-go-protobuf)
 */
import { spawnSync } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { startBenchServer, type WriteFigures } from './lib/server.ts';
import { compileScenarios, runScenario } from './lib/child.ts';
import { machineInfo } from './lib/measure.ts';
import { benchPod } from './lib/workload.ts';
import { readResults, resultFiles, writeReport, type Results } from './lib/report.ts';
import { realVariants, runRealCluster, type RealResults, type RealVariant } from './real.ts';
import {
  informerVariants,
  type BareJsonInput,
  type BareJsonResult,
  type CaptureInput,
  type CaptureResult,
  type CeilingInput,
  type CeilingResult,
  type InformerInput,
  type InformerResult,
  type InformerVariant,
  type RestInput,
  type RestRow,
  type WorkQueueRow,
} from './lib/types.ts';

const args = process.argv.slice(2);
const flag = (name: string): boolean => args.includes(name);
const option = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};

// The server keeps 110,000 Pods plus 200,000 queued watch events: more than Node's default heap limit.
if (v8.getHeapStatistics().heap_size_limit < 8 * 2 ** 30 && process.env.KUBELOOM_BENCH_CHILD === undefined) {
  const r = spawnSync(process.execPath, ['--max-old-space-size=12288', fileURLToPath(import.meta.url), ...args], {
    stdio: 'inherit',
    env: { ...process.env, KUBELOOM_BENCH_CHILD: '1' },
  });
  process.exit(r.status ?? 1);
}

const quick = flag('--quick');
const root = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
const outDir = path.resolve(option('--out') ?? root);
const only = new Set((option('--only') ?? 'ceiling,sync,watch,workqueue,rest').split(','));
const cpuProf = flag('--cpu-prof');
const profileDir = path.join(root, 'bench', 'results', 'profiles');

/** Sizes of the full run (committed figures) and of --quick. */
const sizes = quick
  ? { syncPods: [2_000, 10_000], watchPods: 2_000, watchEvents: 20_000, restGets: 200, ceilingRounds: 2, syncRounds: 1, watchRounds: 1, queueItems: 200_000 }
  : { syncPods: [10_000, 100_000], watchPods: 10_000, watchEvents: 200_000, restGets: 1_000, ceilingRounds: 3, syncRounds: 2, watchRounds: 2, queueItems: 1_000_000 };

const syncOverride = option('--sync-pods');
if (syncOverride !== undefined) sizes.syncPods = syncOverride.split(',').map(Number);
const variantFilter = option('--variants')?.split(',');
const wanted = (v: InformerVariant): boolean => variantFilter === undefined || variantFilter.includes(v);

const log = (msg: string): void => {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
};

const profileArgs = (name: string): string[] => (cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${name}.cpuprofile`] : []);

// Scenarios run compiled, as the package ships (see bench/lib/child.ts).
if (!flag('--ts')) {
  log('compiling the scenarios');
  const removeBuild = compileScenarios();
  process.on('exit', removeBuild);
}

if (option('--kubeconfig') !== undefined) {
  if (cpuProf) await mkdir(profileDir, { recursive: true });
  const real = await runRealCluster({
    kubeconfigFile: option('--kubeconfig')!,
    namespace: option('--namespace'),
    pods: Number(option('--pods') ?? 10_000),
    rounds: Number(option('--rounds') ?? 3),
    cgbench: option('--cgbench'),
    keep: flag('--keep'),
    variants: (option('--variants')?.split(',') as RealVariant[] | undefined) ?? realVariants,
    profileArgs: (name) => profileArgs(name),
    log,
  });
  await writeReport(await readResults<Results>(outDir, resultFiles.embedded), real, outDir);
  log(`done in ${real.totalSeconds.toFixed(0)} s: ${path.join(outDir, 'BENCHMARKS.md')}`);
  process.exit(0);
}

const started = performance.now();
const machine = machineInfo();
log(`${machine.cpu} ×${machine.cores}, ${machine.memoryGiB} GiB, node ${machine.node}, load ${machine.loadAverage.map((l) => l.toFixed(1)).join(' ')}${quick ? ' (quick)' : ''}`);

const server = await startBenchServer({ watchHistorySize: 100_000 });
const watchNs = 'watch';
server.createPods(watchNs, sizes.watchPods);
server.createPods('bench', 2);
for (const n of sizes.syncPods) server.createPods(`sync-${n}`, n);
const restPod = benchPod(0, 'bench').metadata.name;
log(`server ${server.url}: ${sizes.syncPods.join(' + ')} + ${sizes.watchPods} pods stored (revision ${server.revision()})`);

const results: Results = {
  quick,
  machine,
  sizes,
  server: undefined,
  capture: undefined,
  ceiling: undefined,
  bare: [],
  sync: [],
  watch: [],
  workqueue: [],
  rest: [],
  loadAverageEnd: [0, 0, 0],
  totalSeconds: 0,
};

if (cpuProf) await mkdir(profileDir, { recursive: true });

/** Writes the watch events once the scenario says it is ready; records the server's figures. */
function writerOn(ready: string, sink: (w: WriteFigures) => void): { onMessage: (m: { type: string }) => void } {
  return {
    onMessage: (m) => {
      if (m.type !== ready) return;
      // Let the scenario's read loop get back to the socket before the burst starts.
      setTimeout(() => sink(server.modifyPods(watchNs, sizes.watchPods, sizes.watchEvents)), 50);
    },
  };
}

let ceilingFile: string | undefined;
// 1. Ceiling: the exact watch bytes, captured by a minimal reader, then split + JSON.parse'd.
if (only.has('ceiling') || only.has('watch')) {
  const file = path.join(os.tmpdir(), `kubeloom-bench-watch-${process.pid}.ndjson`);
  const input: CaptureInput = { url: server.url, namespace: watchNs, resourceVersion: String(server.revision()), events: sizes.watchEvents, file };
  results.capture = await runScenario<CaptureResult>('capture-watch', input, writerOn('watching', (w) => (results.server = w)));
  log(`server emission: ${Math.round(results.capture.events / (results.capture.ms / 1000))} events/s to a minimal reader (write loop ${results.server!.ms.toFixed(0)} ms)`);
  const ceilingInput: CeilingInput = { file, rounds: sizes.ceilingRounds };
  results.ceiling = await runScenario<CeilingResult>('ceiling', ceilingInput);
  log(`ceiling: ${Math.round(results.ceiling.events / (results.ceiling.ms / 1000))} events/s, ${(results.ceiling.bytes / results.ceiling.ms / 1000).toFixed(0)} MB/s`);
  ceilingFile = file;
}

// 2 + 4. Initial sync and heap per cached Pod, each variant in a fresh process; bare JSON.parse for reference.
if (only.has('sync')) {
  for (const n of sizes.syncPods) {
    const namespace = `sync-${n}`;
    const bareInput: BareJsonInput = { url: server.url, namespace };
    const bare = await runScenario<BareJsonResult>('bare-json', bareInput);
    results.bare.push(bare);
    log(`bare JSON.parse of ${n} pods: ${Math.round(bare.heapBytes / bare.pods)} heap bytes/pod`);
    // freezeObjects: false only in the watch comparison unless asked for, and disableCompression only
    // against a real server (this one does not compress): it keeps the full run short.
    // kubeloom-protobuf measures the embedded server's protobuf encoding more than the client: only when asked.
    const variants = informerVariants.filter((v) => wanted(v) && ((v === 'kubeloom' || v === 'kubeloom-strip' || v === 'kubeloom-metadata' || v === 'client-node') || variantFilter !== undefined));
    // As for the watch: rounds run the variants interleaved and the best round of each (by CPU time) counts.
    const best = new Map<InformerVariant, InformerResult>();
    for (let round = 0; round < sizes.syncRounds; round++) {
      for (const variant of variants) {
        const input: InformerInput = { url: server.url, kubeconfig: server.kubeconfig, namespace, pods: n, variant, watchEvents: 0 };
        const execArgv = profileArgs(`sync-${variant}-${n}-${round}`);
        const r = await runScenario<InformerResult>('informer', input, { execArgv });
        const prev = best.get(variant);
        if (prev === undefined || r.sync.cpuMs < prev.sync.cpuMs) best.set(variant, r);
        log(`sync ${variant} ${n} (round ${round + 1}): ${r.sync.ms.toFixed(0)} ms (cpu ${r.sync.cpuMs.toFixed(0)} ms), peak rss ${(r.peakRss / 2 ** 20).toFixed(0)} MiB, ${Math.round(r.heapBytes / n)} heap bytes/pod`);
      }
    }
    results.sync.push(...best.values());
  }
}

// 3. Watch throughput: sync the watch namespace, then the server writes the MODIFIED burst.
if (only.has('watch')) {
  const variants: InformerVariant[] = ['kubeloom', 'kubeloom-strip', 'kubeloom-nofreeze', 'client-node'];
  const best = new Map<InformerVariant, InformerResult>();
  const perCpu = (x: InformerResult): number => x.watch!.events / x.watch!.cpuMs;
  // Rounds run the variants interleaved, so that a busy moment on a shared machine hits them alike; the best round counts.
  for (let round = 0; round < sizes.watchRounds; round++) {
    for (const variant of variants.filter(wanted)) {
      const input: InformerInput = { url: server.url, kubeconfig: server.kubeconfig, namespace: watchNs, pods: sizes.watchPods, variant, watchEvents: sizes.watchEvents };
      const execArgv = profileArgs(`watch-${variant}-${round}`);
      const r = await runScenario<InformerResult>('informer', input, { execArgv, ...writerOn('synced', () => undefined) });
      const prev = best.get(variant);
      if (prev === undefined || perCpu(r) > perCpu(prev)) best.set(variant, r);
      const w = r.watch!;
      log(`watch ${variant} (round ${round + 1}): ${Math.round(w.events / (w.ms / 1000))} events/s (${Math.round(w.events / (w.cpuMs / 1000))} per CPU-s)${cpuProf ? `; profile from ${r.syncedAtMs.toFixed(0)} ms on is the watch phase` : ''}`);
    }
  }
  results.watch = [...best.values()];
  // The ceiling once more, now that the watch runs are done: the better of the two measurements counts.
  if (ceilingFile !== undefined && results.ceiling !== undefined && sizes.watchRounds > 1) {
    const again = await runScenario<CeilingResult>('ceiling', { file: ceilingFile, rounds: sizes.ceilingRounds } satisfies CeilingInput);
    if (again.cpuMs < results.ceiling.cpuMs) results.ceiling = again;
    log(`ceiling after the watch runs: ${Math.round(again.events / (again.ms / 1000))} events/s`);
  }
}
if (ceilingFile !== undefined) await rm(ceilingFile, { force: true });

// 5. WorkQueue, with bench/workqueue.ts's scenarios.
if (only.has('workqueue')) {
  results.workqueue = await runScenario<WorkQueueRow[]>('workqueue', { items: sizes.queueItems });
  for (const r of results.workqueue) log(`workqueue ${r.scenario}: ${Math.round(r.items / (r.ms / 1000))} items/s`);
}

// 6. REST GETs, sequential and 64-way, with connection counts.
if (only.has('rest')) {
  const input: RestInput = { url: server.url, kubeconfig: server.kubeconfig, pod: restPod, total: sizes.restGets };
  results.rest = await runScenario<RestRow[]>('rest', input);
  for (const r of results.rest) log(`rest ${r.client} ×${r.concurrency}: ${Math.round(r.requests / (r.ms / 1000))} req/s, ${r.connections} connection(s)`);
}

await server.stop();
const load = os.loadavg();
results.loadAverageEnd = [load[0] ?? 0, load[1] ?? 0, load[2] ?? 0];
results.totalSeconds = (performance.now() - started) / 1000;
await writeReport(results, await readResults<RealResults>(outDir, resultFiles.real), outDir);
log(`done in ${results.totalSeconds.toFixed(0)} s: ${path.join(outDir, 'BENCHMARKS.md')}`);
process.exit(0);
