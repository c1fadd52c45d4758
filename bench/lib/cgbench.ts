/**
 * Runs the client-go v1.24 informer benchmark binary built by ../shared/realk8s (cgbench) once and
 * reads its one JSON line: time to synced, time until its handler saw every add, peak RSS (VmHWM)
 * and heap in use after a GC. See ../shared/realk8s/README.md for the binary and its flags.
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
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (s: string) => (out += s));
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
  return { syncMs: Math.max(r.syncSeconds, r.handlerSeconds) * 1000, peakRss: r.hwmMB * mb, heapBytes: r.heapMB * mb, items: r.items };
}
