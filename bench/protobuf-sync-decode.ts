/**
 * CPU-only micro-benchmark of what an informer's protobuf initial sync does with the LIST body, on a
 * body captured once from a real API server (no network, so it is the most stable figure on a shared
 * machine): the gzip-compressed body is gunzipped by a zlib stream in 64 KiB pieces (as RestClient
 * does), each piece fed to ProtobufListDecoder with a ManagedFieldsInterner (what informers ask for),
 * and every item deep-frozen (what the informer's store does). Phases are also timed alone: decode of
 * the uncompressed body in 64 KiB chunks, and decode + freeze. Best of `--rounds` by CPU time
 * (process.cpuUsage, all threads: zlib's thread-pool work included).
 *
 * Capture (once):
 *   curl -sk -H "Authorization: Bearer $TOKEN" -H 'Accept: application/vnd.kubernetes.protobuf' \
 *     "$SERVER/api/v1/namespaces/NS/pods?resourceVersion=0" -o /tmp/list.pb
 *   gzip -4 -k /tmp/list.pb          # the server compresses at level 4
 * Run: node --expose-gc bench/protobuf-sync-decode.ts /tmp/list.pb [--rounds R] [--cold]
 * (--cold first times one gunzip+decode+freeze pass on cold code, as a one-shot sync runs)
 */
import { readFileSync } from 'node:fs';
import { createGunzip, gzipSync } from 'node:zlib';
import { ManagedFieldsInterner } from '../src/rest/managed-fields-interner.ts';
import { ProtobufListDecoder } from '../src/rest/protobuf-list-decoder.ts';
import { deepFreeze } from '../src/tools/cache/deep-freeze.ts';

const file = process.argv[2];
if (file === undefined) throw new Error('usage: protobuf-sync-decode.ts LIST.pb [--rounds R]');
const ri = process.argv.indexOf('--rounds');
const rounds = ri < 0 ? 7 : Number(process.argv[ri + 1]);
const body = readFileSync(file);
const gz = gzipSync(body, { level: 4 });
const chunks = Array.from({ length: Math.ceil(body.length / 65536) }, (_, i) => body.subarray(i * 65536, (i + 1) * 65536));
const gzChunks = Array.from({ length: Math.ceil(gz.length / 16384) }, (_, i) => gz.subarray(i * 16384, (i + 1) * 16384));

const gc = (): void => (globalThis as { gc?: () => void }).gc?.();
const cpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

function decode(freeze: boolean): number {
  const d = new ProtobufListDecoder<object>({ interner: new ManagedFieldsInterner() });
  let n = 0;
  for (const c of chunks) {
    const out: object[] = [];
    d.write(c, out);
    if (freeze) for (const o of out) deepFreeze(o);
    n += out.length;
  }
  d.end();
  return n;
}

async function full(): Promise<number> {
  const d = new ProtobufListDecoder<object>({ interner: new ManagedFieldsInterner() });
  const gunzip = createGunzip({ chunkSize: 64 * 1024 });
  let n = 0;
  const done = (async () => {
    for await (const c of gunzip) {
      const out: object[] = [];
      d.write(c as Buffer, out);
      for (const o of out) deepFreeze(o);
      n += out.length;
    }
  })();
  for (const c of gzChunks) if (!gunzip.write(c)) await new Promise((r) => gunzip.once('drain', r));
  gunzip.end();
  await done;
  d.end();
  return n;
}

const best: Record<string, number> = { decode: Infinity, 'decode+freeze': Infinity, 'gunzip+decode+freeze': Infinity };
// A real sync runs once, in a fresh process: the first pass (cold code) is the figure that matters most.
const cold = process.argv.includes('--cold');
if (cold) {
  const t = cpu();
  await full();
  console.log(`cold gunzip+decode+freeze (first pass in this process): ${(cpu() - t).toFixed(0)} CPU ms`);
}
let items = 0;
for (let round = 0; round < rounds; round++) {
  gc();
  let t = cpu();
  items = decode(false);
  best.decode = Math.min(best.decode!, cpu() - t);
  gc();
  t = cpu();
  decode(true);
  best['decode+freeze'] = Math.min(best['decode+freeze']!, cpu() - t);
  gc();
  t = cpu();
  await full();
  best['gunzip+decode+freeze'] = Math.min(best['gunzip+decode+freeze']!, cpu() - t);
}
console.log(`${items} items, ${(body.length / 1e6).toFixed(1)} MB (${(gz.length / 1e6).toFixed(1)} MB gzip -4), best of ${rounds}, CPU ms:`);
for (const [k, v] of Object.entries(best)) console.log(`  ${k.padEnd(22)} ${v.toFixed(0)}`);
