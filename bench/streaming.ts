/**
 * `node bench/streaming.ts`: exec latency and port-forward throughput over loopback against the
 * embedded API server (run as `kubeloom apiserver --pod-handlers bench/lib/streaming-handlers.ts`
 * in its own process), comparing `kubeloom port-forward` with `kubectl port-forward` (WebSocket
 * tunnel, and SPDY with KUBECTL_PORT_FORWARD_WEBSOCKETS=false), each forwarder in its own process,
 * and a direct TCP connection to the target as the ceiling. Prints a Markdown report and writes
 * docs/bench/streaming.json.
 *
 * Flags: --quick (smaller transfers and fewer samples), --out FILE (JSON path).
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PassThrough, Writable } from 'node:stream';
import { RestClient } from '../src/rest/client.ts';
import { exec } from '../src/tools/remotecommand/index.ts';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const quick = process.argv.includes('--quick');
const outIndex = process.argv.indexOf('--out');
const outFile = outIndex > 0 ? process.argv[outIndex + 1]! : path.join(root, 'docs', 'bench', 'streaming.json');
const MiB = 1024 * 1024;
const transfer = (quick ? 64 : 512) * MiB;
const execSamples = quick ? 50 : 300;
const rttSamples = quick ? 200 : 2000;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function summary(samples: number[]): { mean: number; p50: number; p95: number; p99: number } {
  const s = [...samples].sort((a, b) => a - b);
  return { mean: s.reduce((a, b) => a + b, 0) / s.length, p50: percentile(s, 50), p95: percentile(s, 95), p99: percentile(s, 99) };
}

async function waitForLine(child: ChildProcess, pattern: RegExp): Promise<RegExpExecArray> {
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      const m = pattern.exec(out);
      if (m) resolve(m);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
  });
}

/** Downloads `bytes` from the source port through `port`; resolves with MB/s (10^6 bytes). */
async function download(port: number, bytes: number): Promise<number> {
  const s = connect(port, '127.0.0.1');
  await once(s, 'connect');
  const start = performance.now();
  s.write(`${bytes}\n`);
  let got = 0;
  s.on('data', (c: Buffer) => (got += c.length));
  await once(s, 'close');
  if (got !== bytes) throw new Error(`download got ${got} of ${bytes} bytes`);
  return bytes / 1e6 / ((performance.now() - start) / 1000);
}

/** Uploads `bytes` to the sink port through `port`; resolves with MB/s once the sink acknowledged them. */
async function upload(port: number, bytes: number): Promise<number> {
  const s = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  await once(s, 'connect');
  const block = Buffer.alloc(256 * 1024, 0x41);
  let reply = '';
  s.on('data', (c: Buffer) => (reply += c.toString()));
  const closed = once(s, 'close');
  const start = performance.now();
  let left = bytes;
  while (left > 0) {
    const n = Math.min(left, block.length);
    left -= n;
    if (!s.write(n === block.length ? block : block.subarray(0, n))) await once(s, 'drain');
  }
  s.end();
  await closed;
  if (Number(reply.trim()) !== bytes) throw new Error(`sink acknowledged ${reply.trim()} of ${bytes} bytes`);
  return bytes / 1e6 / ((performance.now() - start) / 1000);
}

interface ForwardResult {
  forwarder: string;
  download1: number;
  upload1: number;
  download4: number;
}

async function measureForward(name: string, ports: { source: number; sink: number }): Promise<ForwardResult> {
  await download(ports.source, 8 * MiB); // warm-up
  const download1 = await download(ports.source, transfer);
  const upload1 = await upload(ports.sink, transfer);
  const start = performance.now();
  await Promise.all([0, 1, 2, 3].map(() => download(ports.source, transfer / 4)));
  const download4 = transfer / 1e6 / ((performance.now() - start) / 1000);
  return { forwarder: name, download1, upload1, download4 };
}

async function startForwarder(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; source: number; sink: number }> {
  const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr!.resume();
  const m = await waitForLine(child, /127\.0\.0\.1:(\d+) -> 1\n[^]*127\.0\.0\.1:(\d+) -> 2\n/);
  return { child, source: Number(m[1]), sink: Number(m[2]) };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGINT');
  await exited;
}

const dir = await mkdtemp(path.join(os.tmpdir(), 'kubeloom-bench-streaming-'));
const kubeconfig = path.join(dir, 'kubeconfig');
const node = process.execPath;
const main = path.join(root, 'src', 'cli', 'main.ts');
const loadStart = os.loadavg();
const server = spawn(node, [main, 'apiserver', '--port', '0', '--write-kubeconfig', kubeconfig, '--pod-handlers', path.join(root, 'bench', 'lib', 'streaming-handlers.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
const children: ChildProcess[] = [server];
try {
  const [, url] = await waitForLine(server, /listening on (http:\/\/127\.0\.0\.1:\d+)\n/);
  const client = new RestClient({ host: url!, qps: -1 });
  const pod = await client.json<Record<string, unknown>>({ verb: 'POST', path: '/api/v1/namespaces/default/pods', query: [], headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bench' }, spec: { containers: [{ name: 'app', image: 'bench' }] } }) });
  await client.json({ verb: 'PUT', path: '/api/v1/namespaces/default/pods/bench/status', query: [], headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...pod, status: { phase: 'Running' } }) });

  // Exec: a whole session (handshake, command, status, close) per sample.
  const sessions: number[] = [];
  for (let i = 0; i < execSamples + 10; i++) {
    const t = performance.now();
    await exec(client, { namespace: 'default', pod: 'bench', command: ['echo', 'hi'], stdout: new PassThrough().resume() });
    if (i >= 10) sessions.push(performance.now() - t);
  }
  // Round trips inside one session: one byte to cat's stdin, wait for it on stdout.
  const rtts: number[] = [];
  {
    const stdin = new PassThrough();
    let waiter: (() => void) | undefined;
    const stdout = new Writable({
      write(_c: Buffer, _e, cb) {
        waiter?.();
        cb();
      },
    });
    const session = exec(client, { namespace: 'default', pod: 'bench', command: ['cat'], stdin, stdout });
    for (let i = 0; i < rttSamples + 50; i++) {
      const echoed = new Promise<void>((r) => (waiter = r));
      const t = performance.now();
      stdin.write('x');
      await echoed;
      if (i >= 50) rtts.push(performance.now() - t);
    }
    stdin.end();
    await session;
  }
  await client.close();

  const env = { ...process.env, KUBECONFIG: kubeconfig, HOME: dir };
  const results: ForwardResult[] = [];
  // Ceiling: straight to a copy of the targets in this process, no forwarding.
  const handlers = (await import('./lib/streaming-handlers.ts')).default;
  const direct = handlers['*'].ports as Record<number, { port: number }>;
  results.push(await measureForward('direct TCP to the target (no forwarding)', { source: direct[1]!.port, sink: direct[2]!.port }));
  const kubeloom = await startForwarder(node, [main, 'port-forward', '--address', '127.0.0.1', 'pod/bench', ':1', ':2'], env);
  children.push(kubeloom.child);
  results.push(await measureForward('kubeloom port-forward (SPDY over WebSocket)', kubeloom));
  await stop(kubeloom.child);
  let kubectlVersion = '';
  try {
    kubectlVersion = execFileSync('kubectl', ['version', '--client', '-o', 'json'], { encoding: 'utf8' });
    kubectlVersion = (JSON.parse(kubectlVersion) as { clientVersion: { gitVersion: string } }).clientVersion.gitVersion;
    for (const [name, extra] of [
      ['kubectl port-forward (SPDY over WebSocket)', {}],
      ['kubectl port-forward (SPDY over upgrade)', { KUBECTL_PORT_FORWARD_WEBSOCKETS: 'false' }],
    ] as const) {
      const f = await startForwarder('kubectl', ['port-forward', '--address', '127.0.0.1', 'pod/bench', ':1', ':2'], { ...env, ...extra });
      children.push(f.child);
      results.push(await measureForward(name, f));
      await stop(f.child);
    }
  } catch (err) {
    process.stderr.write(`kubectl comparison skipped: ${(err as Error).message}\n`);
  }
  // kubeloom again, after kubectl, to show how much the order (and the machine's load) moves the figures.
  const again = await startForwarder(node, [main, 'port-forward', '--address', '127.0.0.1', 'pod/bench', ':1', ':2'], env);
  children.push(again.child);
  results.push(await measureForward('kubeloom port-forward (SPDY over WebSocket), second run', again));
  await stop(again.child);
  const loadEnd = os.loadavg();
  const report = {
    date: new Date().toISOString(),
    machine: { cpu: os.cpus()[0]?.model ?? '', cores: os.cpus().length, node: process.version, kubectl: kubectlVersion, loadStart, loadEnd },
    transferBytes: transfer,
    execSessionMs: summary(sessions),
    execRoundTripMs: summary(rtts),
    portForward: results,
  };
  await mkdir(path.dirname(outFile), { recursive: true });
  await writeFile(outFile, `${JSON.stringify(report, null, 2)}\n`);
  const f1 = (n: number): string => n.toFixed(1);
  const f2 = (n: number): string => n.toFixed(2);
  const lines = [
    `exec, whole session (${execSamples} sessions): mean ${f2(report.execSessionMs.mean)} ms, p50 ${f2(report.execSessionMs.p50)}, p95 ${f2(report.execSessionMs.p95)}, p99 ${f2(report.execSessionMs.p99)}`,
    `exec, stdin->stdout round trip in one session (${rttSamples} samples): mean ${f2(report.execRoundTripMs.mean)} ms, p50 ${f2(report.execRoundTripMs.p50)}, p95 ${f2(report.execRoundTripMs.p95)}, p99 ${f2(report.execRoundTripMs.p99)}`,
    '',
    `| forwarder | download, 1 conn (MB/s) | upload, 1 conn (MB/s) | download, 4 conns (MB/s total) |`,
    '| :--- | ---: | ---: | ---: |',
    ...results.map((r) => `| ${r.forwarder} | ${f1(r.download1)} | ${f1(r.upload1)} | ${f1(r.download4)} |`),
    '',
    `transfer ${transfer / MiB} MiB per measurement; load average 1/5/15 min at start ${loadStart.map(f2).join(' / ')}, at end ${loadEnd.map(f2).join(' / ')}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  for (const c of children.reverse()) await stop(c).catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
}
