/**
 * Turns one run's results into BENCHMARKS.md, one SVG chart per comparison under docs/bench/, and
 * docs/bench/results.json (the raw figures).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { barChartSvg, type Bar, type BarChart } from './svg.ts';
import { markdownTable } from './markdown.ts';
import type { MachineInfo } from './measure.ts';
import type { WriteFigures } from './server.ts';
import type { BareJsonResult, CaptureResult, CeilingResult, InformerResult, InformerVariant, RestRow, WorkQueueRow } from './types.ts';
import type { RealResults } from '../real.ts';
import { realClusterSection, type Target } from './report-real.ts';

/** Everything one run measured. */
export interface Results {
  quick: boolean;
  machine: MachineInfo;
  sizes: { syncPods: number[]; watchPods: number; watchEvents: number; restGets: number; ceilingRounds: number; syncRounds: number; watchRounds: number; queueItems: number };
  server: WriteFigures | undefined;
  capture: CaptureResult | undefined;
  ceiling: CeilingResult | undefined;
  bare: BareJsonResult[];
  sync: InformerResult[];
  watch: InformerResult[];
  workqueue: WorkQueueRow[];
  rest: RestRow[];
  loadAverageEnd: [number, number, number];
  totalSeconds: number;
}

const labels: Record<InformerVariant, string> = {
  kubeloom: 'kubeloom (full objects)',
  'kubeloom-protobuf': 'kubeloom, protobuf',
  'kubeloom-strip': 'kubeloom + stripManagedFields',
  'kubeloom-metadata': 'kubeloom metadata-only',
  'kubeloom-nofreeze': 'kubeloom, freezeObjects: false',
  'kubeloom-nogzip': 'kubeloom, disableCompression',
  'kubeloom-protobuf-nogzip': 'kubeloom, protobuf, disableCompression',
  'client-node': 'client-node makeInformer',
};

const n0 = (n: number): string => Math.round(n).toLocaleString('en-US');
const mib = (b: number): string => (b / 2 ** 20).toLocaleString('en-US', { maximumFractionDigits: 0 });
const sec = (ms: number): string => (ms / 1000).toFixed(2);
const ratio = (a: number, b: number): string => (b > 0 && Number.isFinite(a / b) ? `${(a / b).toFixed(2)}×` : '–');
const pct = (a: number, b: number): string => (b > 0 ? `${((a / b) * 100).toFixed(0)}%` : '–');
const rate = (count: number, ms: number): number => (ms > 0 ? count / (ms / 1000) : 0);

/** Where each mode keeps its raw figures, so that a run of one mode rewrites BENCHMARKS.md with the other's last figures. */
export const resultFiles = { embedded: 'results.json', real: 'real-cluster.json' } as const;

/** Reads the raw figures a previous run left under `outDir`, if any. */
export async function readResults<T>(outDir: string, file: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(path.join(outDir, 'docs', 'bench', file), 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/**
 * Writes BENCHMARKS.md and the charts under `outDir`: the real-cluster section (when `real` is
 * given) first, then the embedded server's (when `r` is given), and the raw figures of both.
 */
export async function writeReport(r: Results | undefined, real: RealResults | undefined, outDir: string): Promise<void> {
  const chartDir = path.join(outDir, 'docs', 'bench');
  await mkdir(chartDir, { recursive: true });
  const charts: Array<[string, BarChart]> = [];
  const md: string[] = [];
  const clientNodeVersion = await packageVersion('@kubernetes/client-node');
  const targets: Target[] = [];

  md.push('# Benchmarks');
  md.push('');
  md.push('Method and how to read the figures: [docs/performance.md](docs/performance.md). Two parts: kubeloom against client-go and client-node on a real kube-apiserver, then against client-node and the JSON.parse ceiling on the embedded API server.');
  md.push('');
  const realPart = real === undefined ? undefined : realClusterSection(real, clientNodeVersion);
  if (realPart !== undefined) {
    targets.push(...realPart.targets);
    charts.push(...realPart.charts);
  }
  const embedded = r === undefined ? [] : await embeddedSections(r, clientNodeVersion, charts, targets);
  md.push('## Targets');
  md.push('');
  md.push(markdownTable(['issue', 'target', 'measured', ''], targets.map((t) => [String(t.issue), t.target, t.measured, t.met === undefined ? '–' : t.met ? 'met' : '**missed**'])));
  md.push('');
  md.push('Where a target is missed, docs/performance.md says what limits it, from the CPU profiles.');
  md.push('');
  if (realPart !== undefined) md.push(...realPart.lines);
  md.push(...embedded);
  md.push('## Charts');
  md.push('');
  for (const [file, chart] of charts) md.push(`- [${chart.title}](docs/bench/${file})`);
  md.push('');

  for (const [file, chart] of charts) await writeFile(path.join(chartDir, file), barChartSvg(chart));
  if (r !== undefined) await writeFile(path.join(chartDir, resultFiles.embedded), `${JSON.stringify(r, null, 2)}\n`);
  if (real !== undefined) await writeFile(path.join(chartDir, resultFiles.real), `${JSON.stringify(real, null, 2)}\n`);
  await writeFile(path.join(outDir, 'BENCHMARKS.md'), md.join('\n'));
}

/** The embedded server's sections; adds their charts and targets. */
async function embeddedSections(r: Results, clientNodeVersion: string, charts: Array<[string, BarChart]>, targets: Target[]): Promise<string[]> {
  const md: string[] = [];
  const m = r.machine;
  md.push('## Embedded API server: against client-node and the JSON.parse ceiling');
  md.push('');
  md.push(`Generated by \`npm run bench\`${r.quick ? ' --quick (smoke sizes: not the committed figures)' : ''} on ${m.date}.`);
  md.push('All figures come from one run against one embedded API server and one generated workload of ~3.4 KB Pods (labels, annotations, an owner reference, two managedFields entries).');
  md.push('Every client scenario runs in its own Node process (`--expose-gc`); the server runs in the parent process.');
  md.push('');
  md.push(
    markdownTable(
      ['machine', ''],
      [
        ['CPU', `${m.cpu} (${m.cores} cores)`],
        ['memory', `${m.memoryGiB} GiB`],
        ['OS', m.os],
        ['Node', m.node],
        ['@kubernetes/client-node', clientNodeVersion],
        ['load average at start (1/5/15 min)', m.loadAverage.map((l) => l.toFixed(1)).join(' / ')],
        ['load average at end', r.loadAverageEnd.map((l) => l.toFixed(1)).join(' / ')],
        ['run time', `${r.totalSeconds.toFixed(0)} s`],
      ],
      ['l', 'l'],
    ),
  );
  md.push('');
  md.push(
    `The machine was shared with other work during the run (load average above): wall-clock figures are pessimistic and noisy, so every throughput is also given per CPU-second of the measuring process, and targets on speed are judged on CPU time (the “per CPU-s” columns).`,
  );
  md.push('');

  const sections: string[] = [];

  // 1. Ceiling
  const ceilRate = r.ceiling === undefined ? 0 : rate(r.ceiling.events, r.ceiling.ms);
  const ceilCpuRate = r.ceiling === undefined ? 0 : rate(r.ceiling.events, r.ceiling.cpuMs);
  if (r.ceiling !== undefined && r.capture !== undefined) {
    const c = r.ceiling;
    const cap = r.capture;
    sections.push('### 1. Ceiling: newline split + JSON.parse of the watch bytes');
    sections.push('');
    sections.push(
      `The exact bytes the server streams for the watch workload (${n0(c.events)} MODIFIED events, ${mib(c.bytes)} MiB, ${n0(c.bytes / c.events)} bytes per event) were captured by a minimal reader and replayed from memory in 64 KiB chunks: split on newline bytes, one \`JSON.parse\` per line (best of ${r.sizes.ceilingRounds}). The server's own emission rate is what that minimal reader received, so the server is shown not to be the bottleneck.`,
    );
    sections.push('');
    const rows = [
      ['ceiling: split + JSON.parse', n0(ceilRate), n0(ceilCpuRate), (c.bytes / c.ms / 1000).toFixed(0), sec(c.ms)],
      ['server emission (minimal reader, no parsing)', n0(rate(cap.events, cap.ms)), n0(rate(cap.events, cap.cpuMs)), (cap.bytes / cap.ms / 1000).toFixed(0), sec(cap.ms)],
    ];
    if (r.server !== undefined) rows.push(['server write loop (new state, encode, fan-out)', n0(rate(r.server.events, r.server.ms)), n0(rate(r.server.events, r.server.cpuMs)), '–', sec(r.server.ms)]);
    sections.push(markdownTable(['', 'events/s', 'events per CPU-s', 'MB/s', 'seconds'], rows));
    sections.push('');
    sections.push('For the minimal reader, “per CPU-s” is the reader\'s CPU, not the server\'s.');
    sections.push('');
  }

  // 2. Initial sync
  if (r.sync.length > 0) {
    sections.push('### 2. Initial sync into an informer');
    sections.push('');
    sections.push(
      `From starting the informer until it reports synced and its handler has received every ADDED. kubeloom streams the initial state with a watch-list (sendInitialEvents) by default; client-node LISTs in one request. Peak RSS is the scenario process's high-water mark; heap is measured after full GCs once synced, minus the heap before the informer started. Best of ${r.sizes.syncRounds} interleaved round(s) per variant, by CPU time (every figure of a row comes from that round).`,
    );
    sections.push('');
    for (const n of r.sizes.syncPods) {
      const rows = r.sync.filter((s) => s.pods === n);
      const cn = rows.find((s) => s.variant === 'client-node');
      sections.push(`#### ${n0(n)} Pods`);
      sections.push('');
      sections.push(
        markdownTable(
          ['variant', 'time to synced (s)', 'CPU (s)', 'pods/s', 'peak RSS (MiB)', 'heap (MiB)', 'time vs client-node', 'CPU vs client-node', 'peak RSS vs client-node'],
          rows.map((s) => [
            labels[s.variant],
            sec(s.sync.ms),
            sec(s.sync.cpuMs),
            n0(rate(n, s.sync.ms)),
            mib(s.peakRss),
            mib(s.heapBytes),
            cn === undefined ? '–' : ratio(s.sync.ms, cn.sync.ms),
            cn === undefined ? '–' : ratio(s.sync.cpuMs, cn.sync.cpuMs),
            cn === undefined ? '–' : ratio(s.peakRss, cn.peakRss),
          ]),
        ),
      );
      sections.push('');
      if (n === Math.max(...r.sizes.syncPods)) {
        const slug = `sync-${n}`;
        charts.push([`${slug}-time.svg`, { title: `Initial sync of ${n0(n)} Pods: time to synced`, unit: 'seconds (wall)', lowerIsBetter: true, bars: rows.map((s) => ({ label: labels[s.variant], value: s.sync.ms / 1000 })) }]);
        charts.push([`${slug}-rss.svg`, { title: `Initial sync of ${n0(n)} Pods: peak RSS`, unit: 'MiB', lowerIsBetter: true, bars: rows.map((s) => ({ label: labels[s.variant], value: s.peakRss / 2 ** 20 })) }]);
        sections.push(`![time to synced](docs/bench/${slug}-time.svg)`);
        sections.push('');
        sections.push(`![peak RSS](docs/bench/${slug}-rss.svg)`);
        sections.push('');
        const kl = rows.find((s) => s.variant === 'kubeloom');
        const meta = rows.find((s) => s.variant === 'kubeloom-metadata');
        if (kl !== undefined && cn !== undefined) {
          targets.push({
            issue: 18,
            target: `embedded server: initial sync of ${n0(n)} Pods ≥ 2.5× faster than client-node (CPU; wall in brackets)`,
            measured: `${(cn.sync.cpuMs / kl.sync.cpuMs).toFixed(2)}× (${(cn.sync.ms / kl.sync.ms).toFixed(2)}×)`,
            met: cn.sync.cpuMs / kl.sync.cpuMs >= 2.5,
          });
          targets.push({
            issue: 18,
            target: `embedded server: initial sync of ${n0(n)} Pods with ≤ 0.5× client-node's peak RSS`,
            measured: `${mib(kl.peakRss)} vs ${mib(cn.peakRss)} MiB (${ratio(kl.peakRss, cn.peakRss)})`,
            met: kl.peakRss <= 0.5 * cn.peakRss,
          });
        }
        if (meta !== undefined && cn !== undefined) {
          targets.push({
            issue: 18,
            target: `embedded server: metadata-only informer sync of ${n0(n)} Pods ≥ 5× faster than client-node (CPU; wall in brackets)`,
            measured: `${(cn.sync.cpuMs / meta.sync.cpuMs).toFixed(2)}× (${(cn.sync.ms / meta.sync.ms).toFixed(2)}×)`,
            met: cn.sync.cpuMs / meta.sync.cpuMs >= 5,
          });
        }
      }
    }
  }

  // 3. Watch throughput
  if (r.watch.length > 0) {
    const cn = r.watch.find((s) => s.variant === 'client-node')?.watch;
    sections.push('### 3. Watch throughput');
    sections.push('');
    sections.push(
      `${n0(r.sizes.watchEvents)} MODIFIED events over ${n0(r.sizes.watchPods)} synced Pods through informer → indexer → one handler, timed from the first update the handler receives to the last. The server writes the whole burst at once, so the stream is limited by the client alone (compare the server's emission rate in section 1). Best of ${r.sizes.watchRounds} interleaved round(s) per variant, by CPU time.`,
    );
    sections.push('');
    sections.push(
      markdownTable(
        ['variant', 'events/s', 'events per CPU-s', '% of ceiling (wall)', '% of ceiling (CPU)', '× client-node (wall)', '× client-node (CPU)'],
        r.watch.map((s) => {
          const w = s.watch!;
          return [
            labels[s.variant],
            n0(rate(w.events, w.ms)),
            n0(rate(w.events, w.cpuMs)),
            pct(rate(w.events, w.ms), ceilRate),
            pct(rate(w.events, w.cpuMs), ceilCpuRate),
            cn === undefined ? '–' : ratio(rate(w.events, w.ms), rate(cn.events, cn.ms)),
            cn === undefined ? '–' : ratio(rate(w.events, w.cpuMs), rate(cn.events, cn.cpuMs)),
          ];
        }),
      ),
    );
    sections.push('');
    const bars: Bar[] = [{ label: 'ceiling: split + JSON.parse', value: ceilCpuRate }];
    for (const s of r.watch) bars.push({ label: labels[s.variant], value: rate(s.watch!.events, s.watch!.cpuMs) });
    charts.push(['watch-throughput.svg', { title: `Watch throughput, ${n0(r.sizes.watchEvents)} MODIFIED events`, unit: 'events per CPU-second', bars, marker: { value: ceilCpuRate * 0.6, label: '60% of ceiling' } }]);
    sections.push('![watch throughput](docs/bench/watch-throughput.svg)');
    sections.push('');
    const kl = r.watch.find((s) => s.variant === 'kubeloom')?.watch;
    if (kl !== undefined && ceilCpuRate > 0) {
      const v = rate(kl.events, kl.cpuMs) / ceilCpuRate;
      targets.push({ issue: 18, target: 'embedded server: informer watch throughput ≥ 60% of the ceiling (CPU; wall in brackets)', measured: `${(v * 100).toFixed(0)}% (${pct(rate(kl.events, kl.ms), ceilRate)})`, met: v >= 0.6 });
    }
    if (kl !== undefined && cn !== undefined) {
      const v = rate(kl.events, kl.cpuMs) / rate(cn.events, cn.cpuMs);
      targets.push({ issue: 18, target: 'embedded server: informer watch throughput ≥ 1.5× client-node (CPU; wall in brackets)', measured: `${v.toFixed(2)}× (${ratio(rate(kl.events, kl.ms), rate(cn.events, cn.ms))})`, met: v >= 1.5 });
    }
  }

  // 4. Heap per cached Pod
  if (r.sync.length > 0 && r.bare.length > 0) {
    sections.push('### 4. Heap per cached Pod');
    sections.push('');
    sections.push('Heap after GC of the synced informer divided by the number of Pods, against the heap of the same LIST\'s items kept as bare `JSON.parse` output. The informer figure includes everything the informer keeps (indexes, keys, handler bookkeeping).');
    sections.push('');
    const header = ['variant', ...r.sizes.syncPods.flatMap((n) => [`bytes/Pod (${n0(n)})`, `× bare JSON (${n0(n)})`])];
    const variants: Array<InformerVariant | 'bare'> = ['bare', ...(Object.keys(labels) as InformerVariant[]).filter((v) => r.sync.some((s) => s.variant === v))];
    const perPod = (v: InformerVariant | 'bare', n: number): number | undefined => {
      if (v === 'bare') {
        const b = r.bare.find((x) => x.pods === n);
        return b === undefined ? undefined : b.heapBytes / b.pods;
      }
      const s = r.sync.find((x) => x.pods === n && x.variant === v);
      return s === undefined ? undefined : s.heapBytes / n;
    };
    sections.push(
      markdownTable(
        header,
        variants.map((v) => [
          v === 'bare' ? 'bare JSON.parse objects' : labels[v],
          ...r.sizes.syncPods.flatMap((n) => {
            const p = perPod(v, n);
            const b = perPod('bare', n);
            return [p === undefined ? '–' : n0(p), p === undefined || b === undefined ? '–' : ratio(p, b)];
          }),
        ]),
      ),
    );
    sections.push('');
    const big = Math.max(...r.sizes.syncPods);
    charts.push([
      'heap-per-pod.svg',
      {
        title: `Heap per cached Pod (${n0(big)} Pods)`,
        unit: 'bytes',
        lowerIsBetter: true,
        bars: variants.map((v) => ({ label: v === 'bare' ? 'bare JSON.parse objects' : labels[v], value: perPod(v, big) ?? 0 })),
      },
    ]);
    sections.push('![heap per cached pod](docs/bench/heap-per-pod.svg)');
    sections.push('');
    const bare = perPod('bare', big);
    const full = perPod('kubeloom', big);
    const strip = perPod('kubeloom-strip', big);
    if (bare !== undefined && full !== undefined) targets.push({ issue: 7, target: 'embedded server: heap per cached Pod ≤ 1.1× bare JSON.parse objects', measured: ratio(full, bare), met: full / bare <= 1.1 });
    if (bare !== undefined && strip !== undefined) targets.push({ issue: 7, target: 'embedded server: heap per cached Pod with stripManagedFields ≤ 0.75× bare JSON', measured: ratio(strip, bare), met: strip / bare <= 0.75 });
  }

  // 5. WorkQueue
  if (r.workqueue.length > 0) {
    sections.push('### 5. WorkQueue');
    sections.push('');
    sections.push('Scenarios of bench/workqueue.ts: add+get+done counts processed items (each one add, one get, one done); addAfter on a DelayingQueue driven by a FakeClock.');
    sections.push('');
    sections.push(markdownTable(['scenario', 'items', 'items/s', 'items per CPU-s'], r.workqueue.map((w) => [w.scenario, n0(w.items), n0(rate(w.items, w.ms)), n0(rate(w.items, w.cpuMs))])));
    sections.push('');
    charts.push(['workqueue.svg', { title: 'WorkQueue', unit: 'items per CPU-second', bars: r.workqueue.map((w) => ({ label: w.scenario, value: rate(w.items, w.cpuMs) })), marker: { value: 1_000_000, label: 'target 1M/s' } }]);
    sections.push('![workqueue](docs/bench/workqueue.svg)');
    sections.push('');
    const single = r.workqueue.find((w) => w.scenario.startsWith('add+get+done, 1 worker'));
    if (single !== undefined) {
      targets.push({ issue: 7, target: 'WorkQueue ≥ 1,000,000 add+get+done/s, one worker (CPU; wall in brackets)', measured: `${n0(rate(single.items, single.cpuMs))}/s (${n0(rate(single.items, single.ms))}/s)`, met: rate(single.items, single.cpuMs) >= 1_000_000 });
    }
  }

  // 6. REST
  if (r.rest.length > 0) {
    sections.push('### 6. REST GETs');
    sections.push('');
    sections.push(`${n0(r.sizes.restGets)} GETs of one Pod over plain HTTP through a counting TCP proxy (bench/rest.ts helpers); kubeloom with client-side rate limiting off, as client-node has none. CPU includes the in-process proxy. Best of two interleaved rounds per client (by wall time).`);
    sections.push('');
    const rows = r.rest.map((x) => {
      const other = r.rest.find((y) => y.concurrency === x.concurrency && y.client !== x.client && y.client.includes('client-node'));
      return [x.client, x.concurrency === 1 ? 'sequential' : `${x.concurrency}-way`, n0(rate(x.requests, x.ms)), n0(rate(x.requests, x.cpuMs)), String(x.connections), other === undefined ? '–' : ratio(rate(x.requests, x.ms), rate(other.requests, other.ms))];
    });
    sections.push(markdownTable(['client', 'mode', 'requests/s', 'requests per CPU-s', 'TCP connections', '× client-node (req/s)'], rows));
    sections.push('');
    charts.push(['rest-gets.svg', { title: `REST: ${n0(r.sizes.restGets)} GETs`, unit: 'requests/s (wall)', bars: r.rest.map((x) => ({ label: `${x.client.replace('@kubernetes/', '')}, ${x.concurrency === 1 ? 'sequential' : `${x.concurrency}-way`}`, value: rate(x.requests, x.ms) })) }]);
    sections.push('![rest](docs/bench/rest-gets.svg)');
    sections.push('');
    const seq = r.rest.find((x) => x.client === 'kubeloom' && x.concurrency === 1);
    if (seq !== undefined) targets.push({ issue: 7, target: 'REST GETs reuse connections: ≤ 2 for 1,000 sequential GETs', measured: `${seq.connections} connection(s)`, met: seq.connections <= 2 });
  }

  md.push(...sections);
  return md;
}

async function packageVersion(name: string): Promise<string> {
  try {
    const url = new URL(`../../node_modules/${name}/package.json`, import.meta.url);
    return (JSON.parse(await readFile(url, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

