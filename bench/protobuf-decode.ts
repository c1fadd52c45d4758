/**
 * Micro-benchmark of the Kubernetes protobuf decoder against JSON.parse of the same objects, in one
 * process, no network: a LIST of N Pods (bench/lib/workload.ts, ~3 KB each, or with `--real FILE.pb
 * FILE.json` a list captured from a real API server in both encodings), decoded whole and streamed in
 * 64 KiB chunks, with and without the managedFields interner; the heap the decoded items keep; and a
 * watch stream of MODIFIED events, JSON lines vs protobuf frames, per event. Each figure is the best
 * of `--rounds` (default 7) rounds, the rounds interleaving the decoders, because the machine is shared.
 *
 * Run: node --expose-gc bench/protobuf-decode.ts [--pods N] [--rounds R] [--real LIST.pb LIST.json]
 */
import { readFileSync } from 'node:fs';
import { ListStreamDecoder } from '../src/rest/list-decoder.ts';
import { ManagedFieldsInterner } from '../src/rest/managed-fields-interner.ts';
import { ProtobufListDecoder } from '../src/rest/protobuf-list-decoder.ts';
import { ProtobufWatchDecoder } from '../src/rest/protobuf-watch-decoder.ts';
import { WatchStreamDecoder } from '../src/rest/watch-decoder.ts';
import type { WatchEvent } from '../src/apimachinery/watch.ts';
import { decodeProtobuf } from '../src/runtime/protobuf/decode.ts';
import { encodeProtobuf, encodeProtobufWatchEvent } from '../src/runtime/protobuf/encode.ts';
import { benchPod } from './lib/workload.ts';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
};
const pods = Number(arg('--pods') ?? 10_000);
const rounds = Number(arg('--rounds') ?? 7);
const realPb = arg('--real');
const realJson = realPb === undefined ? undefined : process.argv[process.argv.indexOf('--real') + 2];

type Obj = Record<string, unknown>;

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

let listPb: Buffer;
let listJson: Buffer;
if (realPb !== undefined && realJson !== undefined) {
  listPb = readFileSync(realPb);
  listJson = readFileSync(realJson);
} else {
  const items = Array.from({ length: pods }, (_, i) => {
    const { kind: _k, apiVersion: _a, ...rest } = benchPod(i, 'bench');
    return rest;
  });
  const list = { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '123456' }, items };
  listJson = Buffer.from(JSON.stringify(list));
  listPb = encodeProtobuf(list);
}
const count = (JSON.parse(listJson.toString('utf8')) as { items: unknown[] }).items.length;
// The decoders must agree before they are timed.
if (JSON.stringify(decodeProtobuf(listPb).items) !== JSON.stringify((JSON.parse(listJson.toString('utf8')) as Obj).items)) {
  console.error('warning: the protobuf and JSON lists do not decode to the same JSON text (key order may differ)');
}

const chunksOf = (b: Buffer): Buffer[] => Array.from({ length: Math.ceil(b.length / 65536) }, (_, i) => b.subarray(i * 65536, (i + 1) * 65536));
const pbChunks = chunksOf(listPb);
const jsonChunks = chunksOf(listJson);

function time(fn: () => unknown): { ms: number; cpuMs: number; kept: unknown } {
  gc();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const kept = fn();
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { ms, cpuMs: (c.user + c.system) / 1000, kept };
}

const streamed = (decoder: { write(c: Uint8Array, out: Obj[]): void; end(): unknown }, chunks: Buffer[]): Obj[] => {
  const out: Obj[] = [];
  for (const c of chunks) decoder.write(c, out);
  decoder.end();
  return out;
};

const cases: Record<string, () => unknown> = {
  'JSON.parse (whole list)': () => JSON.parse(listJson.toString('utf8')),
  'protobuf decode (whole list)': () => decodeProtobuf(listPb),
  'JSON list stream': () => streamed(new ListStreamDecoder<Obj>(), jsonChunks),
  'protobuf list stream': () => streamed(new ProtobufListDecoder<Obj>(), pbChunks),
  'JSON list stream, interned managedFields': () => streamed(new ListStreamDecoder<Obj>({ interner: new ManagedFieldsInterner() }), jsonChunks),
  'protobuf list stream, interned managedFields': () => streamed(new ProtobufListDecoder<Obj>({ interner: new ManagedFieldsInterner() }), pbChunks),
};

const best = new Map<string, { ms: number; cpuMs: number }>();
const heap = new Map<string, number>();
for (let r = 0; r < rounds; r++) {
  for (const [name, fn] of Object.entries(cases)) {
    const t = time(fn);
    const prev = best.get(name);
    if (prev === undefined || t.cpuMs < prev.cpuMs) best.set(name, { ms: t.ms, cpuMs: t.cpuMs });
    if (r === 0) {
      // The heap the decoded objects keep.
      gc();
      const before = process.memoryUsage().heapUsed;
      let kept: unknown = fn();
      gc();
      heap.set(name, process.memoryUsage().heapUsed - before);
      kept = undefined;
      void kept;
    }
  }
}

console.log(`${count} Pods: JSON ${(listJson.length / 1e6).toFixed(1)} MB, protobuf ${(listPb.length / 1e6).toFixed(1)} MB; best of ${rounds} rounds (CPU ms), heap kept by the decoded items`);
const base = best.get('JSON.parse (whole list)')!.cpuMs;
for (const [name, t] of best) {
  console.log(`  ${name.padEnd(46)} ${t.cpuMs.toFixed(0).padStart(6)} ms  ${(base / t.cpuMs).toFixed(2)}× JSON.parse  ${(heap.get(name)! / count).toFixed(0).padStart(6)} B/pod`);
}

// Watch: MODIFIED events of the same Pods, JSON lines vs protobuf frames.
const events = Math.min(count, 10_000);
const objects = ((JSON.parse(listJson.toString('utf8')) as { items: Obj[] }).items.slice(0, events)).map((o) => ({ kind: 'Pod', apiVersion: 'v1', ...o }));
const jsonWatch = Buffer.from(objects.map((o) => `${JSON.stringify({ type: 'MODIFIED', object: o })}\n`).join(''));
const pbWatch = Buffer.concat(objects.map((o) => encodeProtobufWatchEvent('MODIFIED', o)));
const watchCases: Record<string, () => number> = {
  'JSON watch lines': () => {
    const d = new WatchStreamDecoder<Obj>({ interner: new ManagedFieldsInterner() });
    const out: Array<WatchEvent<Obj>> = [];
    for (const c of chunksOf(jsonWatch)) d.write(c, out);
    return out.length;
  },
  'protobuf watch frames': () => {
    const d = new ProtobufWatchDecoder<Obj>({ interner: new ManagedFieldsInterner() });
    const out: Array<WatchEvent<Obj>> = [];
    for (const c of chunksOf(pbWatch)) d.write(c, out);
    return out.length;
  },
};
const wbest = new Map<string, number>();
for (let r = 0; r < rounds; r++) {
  for (const [name, fn] of Object.entries(watchCases)) {
    const t = time(fn);
    if (t.kept !== events) throw new Error(`${name}: ${String(t.kept)} events of ${events}`);
    wbest.set(name, Math.min(wbest.get(name) ?? Infinity, t.cpuMs));
  }
}
console.log(`${events} MODIFIED events (interned managedFields), best of ${rounds} rounds:`);
for (const [name, ms] of wbest) console.log(`  ${name.padEnd(46)} ${((ms * 1000) / events).toFixed(1).padStart(6)} µs CPU/event`);
