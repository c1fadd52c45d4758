/**
 * Measurement helpers shared by the scenarios: wall and CPU time, heap after a full GC, peak RSS.
 * Scenarios run in their own process started with --expose-gc, so heap figures belong to the one
 * client under test and peak RSS (the kernel's high-water mark) to that scenario alone.
 */
import os from 'node:os';

/** Wall and CPU time of a span. */
export interface Span {
  ms: number;
  cpuMs: number;
}

/** Starts a span; the returned function ends it. */
export function startSpan(): () => Span {
  const t0 = performance.now();
  const cpu = process.cpuUsage();
  return () => {
    const used = process.cpuUsage(cpu);
    return { ms: performance.now() - t0, cpuMs: (used.user + used.system) / 1000 };
  };
}

/** Heap in use after full garbage collections (needs --expose-gc; throws otherwise, as figures would lie). */
export async function heapAfterGc(): Promise<number> {
  const gc = globalThis.gc;
  if (gc === undefined) throw new Error('run with --expose-gc');
  // Two rounds with a macrotask between them: weak callbacks and finalizers queued by the first run.
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise<void>((r) => setImmediate(r));
  }
  return process.memoryUsage().heapUsed;
}

/** The process's peak resident set size so far, in bytes. */
export function peakRss(): number {
  return process.resourceUsage().maxRSS * 1024;
}

/** The machine, as BENCHMARKS.md describes it. */
export interface MachineInfo {
  cpu: string;
  cores: number;
  memoryGiB: number;
  os: string;
  node: string;
  date: string;
  loadAverage: [number, number, number];
}

/** Describes this machine and the moment. */
export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  const load = os.loadavg();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    loadAverage: [load[0] ?? 0, load[1] ?? 0, load[2] ?? 0],
  };
}
