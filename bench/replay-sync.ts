/**
 * An informer's initial sync against a captured real-server LIST, replayed by a local HTTP server:
 * the most stable end-to-end figure on a shared machine (no API server, no etcd competing for the
 * cores), and the way to compare two versions of the code interleaved (A/B). The runner serves the
 * LIST (gzip level 4, as kube-apiserver compresses, when the client asks for gzip) and an idle watch;
 * every run is a fresh `node --expose-gc` process (bench/replay-informer.ts) starting a Pod informer of
 * the sources under one root, which reports the sync's wall and CPU time (process.cpuUsage, all
 * threads: zlib's included) and peak RSS. Rounds interleave the roots; medians are printed with the
 * 1-minute load average before each run.
 *
 * Capture (once; never commit it):
 *   curl -sk -A bench -H "Authorization: Bearer $TOKEN" -H 'Accept: application/vnd.kubernetes.protobuf' \
 *     "$SERVER/api/v1/namespaces/NS/pods?resourceVersion=0" -o /tmp/list.pb      # and without Accept: list.json
 * Run:
 *   node bench/replay-sync.ts --list /tmp/list.pb [--list /tmp/list.json] [--root DIR]... [--rounds R] [--cpu-prof DIR]
 * Each --root is a checkout (or `git archive` export with node_modules linked) whose src/ is measured;
 * default: this one. A protobuf capture is synced with acceptContentTypes ProtobufAcceptContentTypes,
 * a JSON one with the defaults; REPLAY_GZIP=0 in the environment makes the informers ask for the body
 * uncompressed (disableCompression), which the replay server then sends as it is.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const args = process.argv.slice(2);
const all = (name: string): string[] => args.flatMap((a, i) => (a === name && args[i + 1] !== undefined ? [args[i + 1]!] : []));
const one = (name: string): string | undefined => all(name)[0];
const lists = all('--list');
if (lists.length === 0) throw new Error('usage: replay-sync.ts --list FILE [--list FILE] [--root DIR]... [--rounds R] [--cpu-prof DIR]');
const here = path.dirname(fileURLToPath(import.meta.url));
const roots = all('--root').length > 0 ? all('--root').map((r) => path.resolve(r)) : [path.dirname(here)];
const rounds = Number(one('--rounds') ?? 5);
const profileDir = one('--cpu-prof');

interface Capture {
  file: string;
  protobuf: boolean;
  body: Buffer;
  gzipped: Buffer;
  items: number;
}

function capture(file: string): Capture {
  const body = readFileSync(file);
  const protobuf = body[0] === 0x6b && body[1] === 0x38 && body[2] === 0x73 && body[3] === 0;
  let items: number;
  if (protobuf) items = Number(one('--items') ?? NaN);
  else items = (JSON.parse(body.toString('utf8')) as { items: unknown[] }).items.length;
  // kube-apiserver compresses at gzip level 4 (apiserver/pkg/endpoints/handlers/responsewriters: defaultGzipContentEncodingLevel).
  return { file, protobuf, body, gzipped: gzipSync(body, { level: 4 }), items };
}
const captures = lists.map(capture);
// The item count of a protobuf capture: from a JSON capture of the same LIST, or --items.
for (const c of captures) if (Number.isNaN(c.items)) c.items = captures.find((o) => !o.protobuf)?.items ?? NaN;
if (captures.some((c) => Number.isNaN(c.items))) throw new Error('a protobuf capture needs --items N or a JSON capture of the same LIST');

let current: Capture = captures[0]!;
const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  if (url.searchParams.has('resourceVersionMatch') && url.searchParams.get('watch') === 'true') {
    // As kube-apiserver 1.24 answers a watch-list request (no sendInitialEvents before 1.27): the client falls back to LIST.
    const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Invalid', code: 422, message: 'resourceVersionMatch is forbidden for watch' };
    res.writeHead(422, { 'content-type': 'application/json' });
    res.end(JSON.stringify(status));
    return;
  }
  if (url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1') {
    // An idle watch: headers, then nothing until the client goes away.
    res.writeHead(200, { 'content-type': current.protobuf ? 'application/vnd.kubernetes.protobuf;stream=watch' : 'application/json', 'transfer-encoding': 'chunked' });
    res.flushHeaders();
    return;
  }
  const gzip = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
  const payload = gzip ? current.gzipped : current.body;
  res.writeHead(200, {
    'content-type': current.protobuf ? 'application/vnd.kubernetes.protobuf' : 'application/json',
    'content-length': payload.length,
    ...(gzip ? { 'content-encoding': 'gzip' } : {}),
  });
  res.end(payload);
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const port = (server.address() as AddressInfo).port;

interface Run {
  root: string;
  list: string;
  round: number;
  ms: number;
  cpuMs: number;
  peakRssMiB: number;
  load: number;
}

async function runOnce(root: string, c: Capture, round: number, index: number): Promise<Run> {
  const load = os.loadavg()[0] ?? 0;
  const prof = profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=replay-${path.basename(c.file)}-${index}-${round}.cpuprofile`];
  const child = spawn(process.execPath, ['--expose-gc', ...prof, path.join(here, 'replay-informer.ts'), root, `http://127.0.0.1:${port}`, c.protobuf ? 'protobuf' : 'json', String(c.items)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (s: string) => (out += s));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  if (code !== 0) throw new Error(`replay-informer exited ${code}: ${out}`);
  const r = JSON.parse(out.trim().split('\n').pop()!) as { ms: number; cpuMs: number; peakRss: number };
  return { root, list: c.file, round, ms: r.ms, cpuMs: r.cpuMs, peakRssMiB: r.peakRss / 2 ** 20, load };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const runs: Run[] = [];
for (let round = 1; round <= rounds; round++) {
  for (const c of captures) {
    current = c;
    for (const [i, root] of roots.entries()) {
      const r = await runOnce(root, c, round, i);
      runs.push(r);
      console.error(`round ${round} ${path.basename(c.file)} ${root}: ${r.ms.toFixed(0)} ms, cpu ${r.cpuMs.toFixed(0)} ms, peak rss ${r.peakRssMiB.toFixed(0)} MiB, load ${r.load.toFixed(2)}`);
    }
  }
}
server.close();
console.log(`medians of ${rounds} interleaved round(s); load (1 min) before the runs ${Math.min(...runs.map((r) => r.load)).toFixed(2)}–${Math.max(...runs.map((r) => r.load)).toFixed(2)}`);
for (const c of captures) {
  for (const root of roots) {
    const rs = runs.filter((r) => r.root === root && r.list === c.file);
    const cpus = rs.map((r) => r.cpuMs);
    console.log(
      `${path.basename(c.file)} (${c.items} items) ${root}: cpu ${median(cpus).toFixed(0)} ms (${Math.min(...cpus).toFixed(0)}–${Math.max(...cpus).toFixed(0)}), wall ${median(rs.map((r) => r.ms)).toFixed(0)} ms, peak rss ${median(rs.map((r) => r.peakRssMiB)).toFixed(0)} MiB`,
    );
  }
}
