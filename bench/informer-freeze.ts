/**
 * The cost of deep-freezing cached objects, relative to parsing them: JSON.parse alone vs
 * JSON.parse + deepFreeze vs JSON.parse + stripManagedFields + deepFreeze, over realistic Pods.
 *
 * Run: ./node_modules/.bin/node bench/informer-freeze.ts [objects]
 */
import { deepFreeze, freezeReusing } from '../src/tools/cache/deep-freeze.ts';
import { stripManagedFields } from '../src/tools/cache/transforms.ts';
import { benchPod } from './informer-fixtures.ts';
import { modifiedPod } from './lib/workload.ts';

const objects = Number(process.argv[2] ?? 20_000);
const lines = Array.from({ length: objects }, (_, i) => JSON.stringify(benchPod(i)));
const bytes = lines.reduce((n, l) => n + l.length, 0);

function run(label: string, fn: (line: string) => unknown): number {
  let best = Infinity;
  for (let round = 0; round < 7; round++) {
    const t0 = performance.now();
    for (const line of lines) fn(line);
    best = Math.min(best, performance.now() - t0);
  }
  const perObjectUs = (best * 1000) / objects;
  console.log(`${label.padEnd(44)} ${best.toFixed(1).padStart(8)} ms  ${perObjectUs.toFixed(2).padStart(6)} µs/object  ${Math.round(objects / (best / 1000)).toLocaleString('en-US').padStart(9)} objects/s`);
  return best;
}

console.log(`${objects} pods, ${(bytes / objects / 1024).toFixed(2)} KiB of JSON each`);
const parse = run('JSON.parse', (l) => JSON.parse(l));
const freeze = run('JSON.parse + deepFreeze', (l) => deepFreeze(JSON.parse(l)));
const strip = run('JSON.parse + stripManagedFields + deepFreeze', (l) => deepFreeze(stripManagedFields(JSON.parse(l) as Record<string, never>)));
const parsed = lines.map((l) => JSON.parse(l) as unknown);
const t0 = performance.now();
for (const o of parsed) deepFreeze(o);
const freezeOnly = performance.now() - t0;
const t1 = performance.now();
for (const o of parsed) deepFreeze(o);
const refreeze = performance.now() - t1;
console.log(`deepFreeze alone: ${((freezeOnly * 1000) / objects).toFixed(2)} µs/object; re-freezing a frozen object: ${((refreeze * 1000) / objects).toFixed(3)} µs/object`);
// A status update of a cached Pod: freezeReusing takes the unchanged parts over from the cached version.
const updates = lines.map((_, i) => JSON.stringify(modifiedPod(benchPod(i), i + 1)));
const cached = lines.map((l) => deepFreeze(JSON.parse(l) as unknown));
function runUpdates(label: string, fn: (line: string, i: number) => unknown): number {
  let best = Infinity;
  for (let round = 0; round < 7; round++) {
    const t0 = performance.now();
    for (let i = 0; i < objects; i++) fn(updates[i]!, i);
    best = Math.min(best, performance.now() - t0);
  }
  console.log(`${label.padEnd(44)} ${best.toFixed(1).padStart(8)} ms  ${((best * 1000) / objects).toFixed(2).padStart(6)} µs/object`);
  return best;
}
const parseUpdate = runUpdates('update: JSON.parse', (l) => JSON.parse(l));
const freezeUpdate = runUpdates('update: JSON.parse + deepFreeze', (l) => deepFreeze(JSON.parse(l)));
const reuseUpdate = runUpdates('update: JSON.parse + freezeReusing', (l, i) => freezeReusing(JSON.parse(l) as unknown, cached[i]));
console.log(`update overhead over JSON.parse: deepFreeze +${(((freezeUpdate - parseUpdate) / parseUpdate) * 100).toFixed(0)}%, freezeReusing +${(((reuseUpdate - parseUpdate) / parseUpdate) * 100).toFixed(0)}%`);
console.log(`freeze overhead over JSON.parse: +${(((freeze - parse) / parse) * 100).toFixed(0)}% (with stripManagedFields: +${(((strip - parse) / parse) * 100).toFixed(0)}%)`);
