/**
 * CPU micro-benchmark of what an informer does to every MODIFIED object before caching it:
 * `freezeReusing(next, previous)` (tools/cache/deep-freeze.ts), for one or more source roots loaded
 * side by side and run alternately. The objects are the items of a captured JSON LIST (see
 * bench/replay-sync.ts): each is cached deep-frozen, then a new version is parsed with a changed label,
 * annotation and resourceVersion (as a patch makes) and frozen reusing the cached one.
 *
 * Run: node --expose-gc bench/freeze-reusing.ts LIST.json [--root DIR]... [--rounds R]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const file = args[0];
if (file === undefined) throw new Error('usage: freeze-reusing.ts LIST.json [--root DIR]... [--rounds R]');
const all = (name: string): string[] => args.flatMap((a, i) => (a === name && args[i + 1] !== undefined ? [args[i + 1]!] : []));
const here = path.dirname(fileURLToPath(import.meta.url));
const roots = all('--root').length > 0 ? all('--root').map((r) => path.resolve(r)) : [path.dirname(here)];
const rounds = Number(all('--rounds')[0] ?? 9);

interface Item {
  metadata: { resourceVersion?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
}
const list = JSON.parse(readFileSync(file, 'utf8')) as { items: Item[] };
// The new versions' text, made once: parsing is not what is measured.
const texts = list.items.map((item, i) => {
  const next = structuredClone(item);
  next.metadata.resourceVersion = String(Number(item.metadata.resourceVersion ?? 0) + 1_000_000);
  next.metadata.labels = { ...next.metadata.labels, rollout: `r${i % 7}` };
  next.metadata.annotations = { ...next.metadata.annotations, 'example.com/seen': String(i) };
  return JSON.stringify(next);
});

type Fns = { root: string; deepFreeze: <T>(o: T) => T; freezeReusing: <T>(n: T, p: T | undefined) => T; cpu: number[] };
const impls: Fns[] = [];
for (const root of roots) {
  const m = (await import(pathToFileURL(path.join(root, 'src', 'tools', 'cache', 'deep-freeze.ts')).href)) as typeof import('../src/tools/cache/deep-freeze.ts');
  impls.push({ root, deepFreeze: m.deepFreeze, freezeReusing: m.freezeReusing, cpu: [] });
}
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
for (let round = 0; round < rounds; round++) {
  for (const impl of impls) {
    const cached = list.items.map((item) => impl.deepFreeze(structuredClone(item)));
    const nexts = texts.map((t) => JSON.parse(t) as Item);
    gc();
    const t = cpuMs();
    for (let i = 0; i < nexts.length; i++) impl.freezeReusing(nexts[i]!, cached[i]);
    impl.cpu.push(cpuMs() - t);
  }
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`${texts.length} updates, ${rounds} alternating rounds`);
for (const impl of impls) console.log(`${impl.root}: median ${median(impl.cpu).toFixed(1)} ms, best ${Math.min(...impl.cpu).toFixed(1)} ms CPU`);
