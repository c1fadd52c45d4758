/**
 * CPU micro-benchmark of what the informer does with a MODIFIED event's bytes before caching the
 * object: decode (managedFields interned) and freeze reusing the cached version. Two decoders run
 * alternately on the same event lines:
 * - `parse`: ManagedFieldsInterner.parse, the whole object parsed, then freezeReusing compares it
 *   with the cached version (the path without section reuse);
 * - `reuse`: SectionReusingParser (src/rest/section-reuse.ts), values equal to the cached version's
 *   taken over unparsed, then freezeReusing.
 * The events are those of the embedded watch benchmark (bench/lib/workload.ts: benchPod, then
 * modifiedPod: an annotation, two status lists and the resourceVersion change). Each round decodes
 * every line once into a cache that starts from the synced Pods; figures are CPU ms per round,
 * medians over the rounds, and the µs per event.
 *
 * Run: node --expose-gc bench/watch-section-reuse.ts [--pods N] [--events N] [--rounds R]
 */
import { deepFreeze, freezeReusing } from '../src/tools/cache/deep-freeze.ts';
import { ManagedFieldsInterner, eventManagedFields } from '../src/rest/managed-fields-interner.ts';
import { SectionReusingParser } from '../src/rest/section-reuse.ts';
import { benchPod, modifiedPod } from './lib/workload.ts';
import os from 'node:os';

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const pods = option('--pods', 2_000);
const eventCount = option('--events', 20_000);
const rounds = option('--rounds', 9);
const namespace = 'bench-watch';

interface Obj {
  metadata: { namespace?: string; name: string; resourceVersion?: string };
}

const base = Array.from({ length: pods }, (_, i) => benchPod(i, namespace));
let rv = 1000;
const lines: Buffer[] = [];
for (let e = 0; e < eventCount; e++) {
  const pod = modifiedPod(base[e % pods]!, e);
  (pod.metadata as { resourceVersion?: string }).resourceVersion = String(++rv);
  lines.push(Buffer.from(JSON.stringify({ type: 'MODIFIED', object: pod })));
}
// One buffer, as a network chunk holds several lines.
const offsets: number[] = [0];
for (const l of lines) offsets.push(offsets[offsets.length - 1]! + l.length);
const all = Buffer.concat(lines);

function freshCache(): Map<string, Obj> {
  const cache = new Map<string, Obj>();
  for (const p of base) {
    const obj = deepFreeze(JSON.parse(JSON.stringify(p)) as Obj);
    cache.set(`${namespace}/${obj.metadata.name}`, obj);
  }
  return cache;
}

function round(mode: 'parse' | 'reuse'): number {
  const cache = freshCache();
  const interner = new ManagedFieldsInterner();
  const reusing = new SectionReusingParser(interner, (ns, name) => cache.get(ns === '' ? name : `${ns}/${name}`));
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.cpuUsage();
  for (let e = 0; e < lines.length; e++) {
    const start = offsets[e]!;
    const end = offsets[e + 1]!;
    const event = (mode === 'parse' ? interner.parse(all, start, end, eventManagedFields) : reusing.parse(all, start, end, eventManagedFields)) as { object: Obj };
    const obj = event.object;
    const key = `${obj.metadata.namespace}/${obj.metadata.name}`;
    cache.set(key, freezeReusing(obj, cache.get(key)));
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const times: Record<'parse' | 'reuse', number[]> = { parse: [], reuse: [] };
console.log(`${pods} Pods, ${eventCount} MODIFIED events (${(all.length / eventCount).toFixed(0)} bytes each), ${rounds} rounds; load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
for (let r = 0; r < rounds; r++) {
  const order: Array<'parse' | 'reuse'> = r % 2 === 0 ? ['parse', 'reuse'] : ['reuse', 'parse'];
  for (const mode of order) times[mode].push(round(mode));
}
for (const mode of ['parse', 'reuse'] as const) {
  const m = median(times[mode]);
  console.log(`${mode}: median ${m.toFixed(1)} CPU ms (${((m * 1000) / eventCount).toFixed(2)} µs/event); rounds ${times[mode].map((t) => t.toFixed(0)).join(' ')}`);
}
console.log(`reuse / parse: ${(median(times.reuse) / median(times.parse)).toFixed(3)}; load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
