/**
 * Watch CPU per event against a real API server, JSON vs protobuf: a kubeloom Pod informer (the
 * `informer` scenario, `kubeloom` and `kubeloom-protobuf` variants, configuration from the kubeconfig)
 * syncs the Pods of a namespace, then ../shared/realk8s/mkpods.py patches `--events` of them at
 * `--rate` per second (above what a 2-core server sustains, so the server's full rate); the scenario
 * waits for exactly that many MODIFIED events (none may be lost: a missing one times the run out) and
 * reports the CPU time of the watch phase. Rounds interleave the variants; medians are printed.
 *
 * Run: node bench/protobuf-real-watch.ts --kubeconfig K --namespace NS [--pods N] [--events E]
 *        [--rate R] [--rounds R] [--mkpods PATH] [--cpu-prof DIR]
 * With --cpu-prof, each informer process writes a V8 CPU profile to DIR; its watch phase starts at the
 * printed offset (bench/lib/profile-top.ts --from-ms).
 * The Pods must exist (mkpods.py create); the patches change their labels and annotations.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import { compileScenarios, runScenario } from './lib/child.ts';
import type { InformerInput, InformerResult, InformerVariant } from './lib/types.ts';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
};
const kubeconfigFile = arg('--kubeconfig');
const namespace = arg('--namespace');
if (kubeconfigFile === undefined || namespace === undefined) throw new Error('usage: protobuf-real-watch.ts --kubeconfig K --namespace NS [--pods N] [--events E] [--rate R] [--rounds R]');
const pods = Number(arg('--pods') ?? 10_000);
const events = Number(arg('--events') ?? 3000);
const rate = Number(arg('--rate') ?? 1000);
const rounds = Number(arg('--rounds') ?? 3);
// ../shared/realk8s beside the checkout, as the other real-cluster tools find it.
const mkpods = arg('--mkpods') ?? new URL('../../shared/realk8s/mkpods.py', import.meta.url).pathname;
const profileDir = arg('--cpu-prof');
const variants: InformerVariant[] = ['kubeloom', 'kubeloom-protobuf'];

const kubeconfig = await readFile(kubeconfigFile, 'utf8');
const removeBuild = compileScenarios();
process.on('exit', removeBuild);

function patch(): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn('python3', [mkpods, 'update', '--kubeconfig', kubeconfigFile!, '-n', namespace!, '--count', String(pods), '--rate', String(rate), '--total', String(events), '--quiet'], { stdio: ['ignore', 'ignore', 'inherit'] });
    p.on('error', reject);
    p.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`mkpods update exited with ${code}`))));
  });
}

const results = new Map<InformerVariant, Array<{ cpuPerEvent: number; eventsPerSec: number; syncMs: number; peakRss: number }>>();
for (let round = 1; round <= rounds; round++) {
  for (const variant of variants) {
    await new Promise((r) => setTimeout(r, 2000));
    const input: InformerInput = { url: '', kubeconfig, real: true, namespace, pods, variant, watchEvents: events };
    let patching: Promise<void> | undefined;
    const r = await runScenario<InformerResult>('informer', input, {
      timeoutMs: 300_000,
      execArgv: profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=watch-${variant}-${round}.cpuprofile`],
      onMessage: (m) => {
        if (m.type === 'synced') patching = patch();
      },
    });
    await patching;
    const w = r.watch!;
    const row = { cpuPerEvent: (w.cpuMs * 1000) / w.events, eventsPerSec: w.events / (w.ms / 1000), syncMs: r.sync.ms, peakRss: r.peakRss };
    results.set(variant, [...(results.get(variant) ?? []), row]);
    console.log(`round ${round} ${variant}: ${w.events + 1} events, ${row.eventsPerSec.toFixed(0)} events/s, ${row.cpuPerEvent.toFixed(0)} µs CPU/event; sync ${(r.sync.ms / 1000).toFixed(2)} s${profileDir === undefined ? '' : `, watch phase from ${r.syncedAtMs.toFixed(0)} ms`}, load ${os.loadavg()[0]!.toFixed(2)}`);
  }
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const [variant, rows] of results) {
  console.log(`${variant}: median ${median(rows.map((r) => r.cpuPerEvent)).toFixed(0)} µs CPU/event (${rows.map((r) => r.cpuPerEvent.toFixed(0)).join(', ')}), ${median(rows.map((r) => r.eventsPerSec)).toFixed(0)} events/s`);
}
process.exit(0);
