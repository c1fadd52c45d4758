/**
 * The real-server initial-sync comparison in one command: client-go v1.24 (cgbench) and kubeloom,
 * both over protobuf and over JSON, interleaved round by round in the order cgbench --protobuf,
 * kubeloom protobuf, cgbench JSON, kubeloom JSON, each client in its own process, the 1-minute load
 * average read before every run and the Pod count checked before every run. Prints every run and
 * then the medians of time to synced, CPU time and peak RSS per client, with kubeloom's ratio to
 * client-go on the same encoding. BENCHMARKS.md is not touched (`npm run bench -- --kubeconfig`
 * writes the report).
 *
 * Both clients ask for gzip (client-go: Go's transport adds `Accept-Encoding: gzip` unless
 * DisableCompression; kubeloom: RestConfig.disableCompression false), so both receive the same bytes;
 * the `kubeloom-nogzip` and `kubeloom-protobuf-nogzip` variants (`--variants`) do not ask for it.
 * CPU time is the whole process for both (client-go from bash's `times`, kubeloom from
 * process.cpuUsage() once synced and after the heap measurement's GCs); kubeloom's sync span alone is
 * printed too.
 *
 * Usage (bench/real-sync-compare.sh wraps it):
 *   node bench/real-sync-compare.ts --kubeconfig K --cgbench PATH --namespace NS --pods N --rounds R [--json FILE] [--standalone-pods] [--variants A,B,…]
 * --standalone-pods creates missing Pods without an owner and with an unknown scheduler, so that a
 * kube-controller-manager and kube-scheduler running against the server leave them alone.
 */
import { writeFile } from 'node:fs/promises';
import { compileScenarios } from './lib/child.ts';
import { runRealCluster, type RealRun, type RealVariant } from './real.ts';

const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args[i + 1];
};
const kubeconfigFile = option('--kubeconfig');
const cgbench = option('--cgbench');
const namespace = option('--namespace');
if (kubeconfigFile === undefined || cgbench === undefined || namespace === undefined) {
  throw new Error('usage: real-sync-compare.ts --kubeconfig K --cgbench PATH --namespace NS [--pods N] [--rounds R] [--json FILE]');
}
const log = (msg: string): void => console.error(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);

// --variants A,B,… replaces the default four (e.g. adding kubeloom-protobuf-nogzip).
const order: readonly RealVariant[] = (option('--variants')?.split(',') as RealVariant[] | undefined) ?? ['client-go-protobuf', 'kubeloom-protobuf', 'client-go-json', 'kubeloom'];
log('compiling the scenarios');
const removeBuild = compileScenarios();
process.on('exit', removeBuild);
const real = await runRealCluster({
  kubeconfigFile,
  namespace,
  pods: Number(option('--pods') ?? 10_000),
  rounds: Number(option('--rounds') ?? 3),
  cgbench,
  keep: true,
  standalonePods: args.includes('--standalone-pods'),
  variants: order,
  profileArgs: () => [],
  log,
});
const json = option('--json');
if (json !== undefined) await writeFile(json, JSON.stringify(real, null, 2));

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
const defined = (xs: ReadonlyArray<number | undefined>): number[] => xs.filter((x): x is number => x !== undefined);
const med = (runs: readonly RealRun[], f: (r: RealRun) => number | undefined): number | undefined => {
  const xs = defined(runs.map(f));
  return xs.length === 0 ? undefined : median(xs);
};
const sec = (ms: number | undefined): string => (ms === undefined ? '–' : (ms / 1000).toFixed(2));
const pad = (s: string, n: number): string => s.padStart(n);

const rows = order.map((variant) => {
  const runs = real.runs.filter((r) => r.variant === variant);
  const loads = runs.map((r) => r.load[0]);
  return {
    variant,
    wall: med(runs, (r) => r.syncMs),
    syncCpu: med(runs, (r) => r.cpuMs),
    processCpu: med(runs, (r) => r.processCpuMs),
    rss: med(runs, (r) => r.peakRss),
    load: loads.length === 0 ? '–' : `${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)}`,
  };
});
const ratio = (a: number | undefined, b: number | undefined): string => (a === undefined || b === undefined ? '–' : `${(a / b).toFixed(2)}×`);
const byVariant = new Map(rows.map((r) => [r.variant, r]));
console.log(`\n${real.pods} Pods in ${real.namespace}, ${real.rounds} round(s), server ${real.server.version}; medians; load = 1-min load average before each run`);
console.log(`${'client'.padEnd(20)}${pad('wall s', 8)}${pad('sync cpu s', 12)}${pad('process cpu s', 15)}${pad('peak RSS MiB', 14)}${pad('vs client-go (wall / cpu / rss)', 34)}  load`);
for (const r of rows) {
  const base = r.variant.startsWith('client-go') ? undefined : r.variant.startsWith('kubeloom-protobuf') ? byVariant.get('client-go-protobuf') : byVariant.get('client-go-json');
  const vs = base === undefined ? '' : `${ratio(r.wall, base.wall)} / ${ratio(r.processCpu, base.processCpu)} / ${ratio(r.rss, base.rss)}`;
  console.log(
    `${r.variant.padEnd(20)}${pad(sec(r.wall), 8)}${pad(sec(r.syncCpu), 12)}${pad(sec(r.processCpu), 15)}${pad(r.rss === undefined ? '–' : (r.rss / 2 ** 20).toFixed(0), 14)}${pad(vs, 34)}  ${r.load}`,
  );
}
console.log(`load at the end: ${real.loadAverageEnd.map((l) => l.toFixed(2)).join(' ')}; ${real.totalSeconds.toFixed(0)} s`);
process.exit(0);
