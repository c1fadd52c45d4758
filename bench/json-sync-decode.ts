/**
 * CPU-only A/B micro-benchmark of the JSON LIST decoding an informer does (ListStreamDecoder in 64 KiB
 * chunks with a ManagedFieldsInterner, as `internManagedFields` asks, then every item deep-frozen),
 * for one or more source roots loaded side by side in one process and run alternately, on a LIST
 * captured from a real API server (see bench/replay-sync.ts for the capture). No network and no
 * gzip: the most stable figure on a shared machine. Each round uses a fresh interner, as a fresh
 * informer does. Prints per root the median and the best CPU time (process.cpuUsage).
 *
 * Run: node --expose-gc bench/json-sync-decode.ts LIST.json [--root DIR]... [--rounds R]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const file = args[0];
if (file === undefined) throw new Error('usage: json-sync-decode.ts LIST.json [--root DIR]... [--rounds R]');
const all = (name: string): string[] => args.flatMap((a, i) => (a === name && args[i + 1] !== undefined ? [args[i + 1]!] : []));
const here = path.dirname(fileURLToPath(import.meta.url));
const roots = all('--root').length > 0 ? all('--root').map((r) => path.resolve(r)) : [path.dirname(here)];
const rounds = Number(all('--rounds')[0] ?? 9);
const body = readFileSync(file);
const chunks = Array.from({ length: Math.ceil(body.length / 65536) }, (_, i) => body.subarray(i * 65536, (i + 1) * 65536));

type Decoder = { write(chunk: Uint8Array, out: object[]): void; end(): unknown };
interface Impl {
  root: string;
  newDecoder: () => Decoder;
  freeze: (o: object) => void;
  cpu: number[];
}
const load = async (root: string, rel: string): Promise<Record<string, unknown>> => (await import(pathToFileURL(path.join(root, 'src', rel)).href)) as Record<string, unknown>;
const impls: Impl[] = [];
for (const root of roots) {
  const { ListStreamDecoder } = (await load(root, 'rest/list-decoder.ts')) as typeof import('../src/rest/list-decoder.ts');
  const { ManagedFieldsInterner } = (await load(root, 'rest/managed-fields-interner.ts')) as typeof import('../src/rest/managed-fields-interner.ts');
  const { deepFreeze } = (await load(root, 'tools/cache/deep-freeze.ts')) as typeof import('../src/tools/cache/deep-freeze.ts');
  impls.push({ root, newDecoder: () => new ListStreamDecoder<object>({ interner: new ManagedFieldsInterner() }), freeze: (o) => deepFreeze(o), cpu: [] });
}
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
let items = 0;
for (let round = 0; round < rounds; round++) {
  for (const impl of impls) {
    gc();
    const t = cpuMs();
    const d = impl.newDecoder();
    let n = 0;
    for (const c of chunks) {
      const out: object[] = [];
      d.write(c, out);
      for (const o of out) impl.freeze(o);
      n += out.length;
    }
    d.end();
    impl.cpu.push(cpuMs() - t);
    items = n;
  }
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`${items} items, ${(body.length / 1e6).toFixed(1)} MB, ${rounds} alternating rounds`);
for (const impl of impls) console.log(`${impl.root}: median ${median(impl.cpu).toFixed(0)} ms, best ${Math.min(...impl.cpu).toFixed(0)} ms CPU`);
