/**
 * Runs the client-go v1.24 informer benchmark binary built by ../shared/realk8s (cgbench) once and
 * reads its one JSON line: time to synced, time until its handler saw every add, peak RSS (VmHWM)
 * and heap in use after a GC. See ../shared/realk8s/README.md for the binary and its flags. Its CPU
 * time (user + system of the whole process, from start to exit) comes from the shell that runs it
 * (bash's `times`): cgbench does not measure its own.
 */
import { spawn } from 'node:child_process';

/** One cgbench run, as the benchmark reports it. */
export interface CgbenchRun {
  /** From informer.Run until HasSynced, the store holding every Pod and the handler having seen every add. */
  syncMs: number;
  /** VmHWM of the process over the whole run. */
  peakRss: number;
  /** runtime.MemStats.HeapInuse after runtime.GC(), once synced. */
  heapBytes: number;
  items: number;
  /** User + system CPU time of the whole process (start to exit), in ms. */
  cpuMs: number | undefined;
}

/** Milliseconds of a bash `times` figure such as `1m2.345s`. */
function timesMs(text: string): number {
  const m = /^(\d+)m([\d.]+)s$/.exec(text);
  return m === null ? NaN : (Number(m[1]) * 60 + Number(m[2])) * 1000;
}

interface CgbenchLine {
  items: number;
  syncSeconds: number;
  handlerSeconds: number;
  hwmMB: number;
  heapMB: number;
  error?: string;
}

/** Runs `binary` against `namespace` (typed Pod informer; protobuf when asked) and waits for its result. */
export async function runCgbench(binary: string, kubeconfigFile: string, namespace: string, pods: number, protobuf: boolean): Promise<CgbenchRun> {
  const args = ['--kubeconfig', kubeconfigFile, '--namespace', namespace, '--resource', 'pods', '--expect', String(pods), ...(protobuf ? ['--protobuf'] : [])];
  // bash runs cgbench and then writes its children's CPU times (the second line of `times`) to fd 3.
  const script = '"$@"; rc=$?; times >&3; exit $rc';
  const child = spawn('bash', ['-c', script, 'cgbench', binary, ...args], { stdio: ['ignore', 'pipe', 'inherit', 'pipe'] });
  let out = '';
  let times = '';
  const stdout = child.stdio[1] as NodeJS.ReadableStream;
  stdout.setEncoding('utf8');
  stdout.on('data', (s: string) => (out += s));
  const timesPipe = child.stdio[3] as NodeJS.ReadableStream;
  timesPipe.setEncoding('utf8');
  timesPipe.on('data', (s: string) => (times += s));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  const line = out.trim().split('\n').pop() ?? '';
  let r: CgbenchLine;
  try {
    r = JSON.parse(line) as CgbenchLine;
  } catch {
    throw new Error(`cgbench exited ${code} without a result: ${out.slice(0, 300)}`);
  }
  if (code !== 0 || r.error !== undefined) throw new Error(`cgbench failed (${code}): ${r.error ?? out.slice(0, 300)}`);
  const mb = 2 ** 20;
  const [user, system] = (times.trim().split('\n')[1] ?? '').trim().split(/\s+/).map(timesMs);
  const cpuMs = user === undefined || system === undefined || Number.isNaN(user + system) ? undefined : user + system;
  return { syncMs: Math.max(r.syncSeconds, r.handlerSeconds) * 1000, peakRss: r.hwmMB * mb, heapBytes: r.heapMB * mb, items: r.items, cpuMs };
}
