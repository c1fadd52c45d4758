/**
 * The sharding harness: replicas of a ShardedController as separate Node processes
 * (bench/sharding/replica.ts) against the embedded API server (its own process, KEP-5866 gate on
 * unless --no-server-sharding) or a real cluster (--kubeconfig; kube-apiserver v1.24 filters nothing,
 * so the replicas filter client-side). It scales 1 → 3 → 5 → 3 replicas, then kills one with
 * SIGKILL, and reports for every change: how long until every object was reconciled by its new
 * owner, whether any object had no owner or two, the per-replica heap (after GC) and cache size, and
 * whether a change to one object was reconciled by exactly one replica. At the end it checks that no
 * two replicas ever reconciled the same object at overlapping times.
 *
 * node bench/sharding/run.ts [--objects 10000] [--kubeconfig K] [--namespace sharding-bench]
 *   [--lease-ms 5000 --renew-ms 3000 --retry-ms 1000] [--no-server-sharding] [--json out.json] [--manager]
 *
 * `--manager`: the replicas run on the Manager's `sharding` option (a builder controller) instead of a
 * hand-wired ShardRing and ShardedController.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { parseKubeConfig, restConfigFrom } from '../../src/clientcmd/index.ts';
import { newClientset, type Clientset } from '../../src/kubernetes/index.ts';
import { fnv1a64BigInt } from '../../src/apimachinery/sharding/index.ts';
import { parseRanges, type ShardRange } from '../../src/sharding/index.ts';
import type { PhaseResult } from './phase-result.ts';

const { values } = parseArgs({
  options: {
    objects: { type: 'string', default: '10000' },
    kubeconfig: { type: 'string' },
    namespace: { type: 'string', default: 'sharding-bench' },
    'lease-ms': { type: 'string', default: '5000' },
    'renew-ms': { type: 'string', default: '3000' },
    'retry-ms': { type: 'string', default: '1000' },
    'server-sharding': { type: 'boolean', default: true },
    json: { type: 'string' },
    'keep-namespace': { type: 'boolean', default: false },
    manager: { type: 'boolean', default: false },
  },
  allowNegative: true,
});
const N = Number(values.objects);
const namespace = values.namespace!;
const leaseMs = Number(values['lease-ms']);
const dir = mkdtempSync(join(tmpdir(), 'sharding-bench-'));
const now = (): number => performance.timeOrigin + performance.now();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const children: ChildProcess[] = [];
const log = (msg: string): void => void process.stderr.write(`[${new Date().toISOString()}] ${msg}\n`);

async function startEmbeddedServer(): Promise<string> {
  const kubeconfig = join(dir, 'kubeconfig');
  const args = ['src/cli/main.ts', 'apiserver', '--port', '0', '--write-kubeconfig', kubeconfig];
  if (values['server-sharding']) args.push('--feature-gates', 'ShardedListAndWatch=true');
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const rl = createInterface({ input: child.stdout! });
  for await (const line of rl) if (line.includes('kubeconfig written')) break;
  return kubeconfig;
}

interface Status {
  id: string;
  t: number;
  heapUsed: number;
  cached: number;
  members: string[];
  active: string;
  desired: string;
  activeFraction: number;
  ready: boolean;
}

class Replica {
  readonly id: string;
  readonly child: ChildProcess;
  status: Status | undefined;
  statusSeq = 0;
  exited = false;
  constructor(id: string, kubeconfig: string) {
    this.id = id;
    this.child = spawn(
      process.execPath,
      ['--expose-gc', 'bench/sharding/replica.ts', '--kubeconfig', kubeconfig, '--namespace', namespace, '--id', id, '--log', join(dir, `${id}.log`), '--lease-ms', values['lease-ms']!, '--renew-ms', values['renew-ms']!, '--retry-ms', values['retry-ms']!, ...(values.manager === true ? ['--manager'] : [])],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    children.push(this.child);
    this.child.on('exit', () => (this.exited = true));
    const rl = createInterface({ input: this.child.stdout! });
    rl.on('line', (line) => {
      try {
        const s = JSON.parse(line) as Status & { exited?: boolean };
        if (s.exited !== true) {
          this.status = s;
          this.statusSeq++;
        }
      } catch {
        // not a status line
      }
    });
  }
  async nextStatus(): Promise<Status> {
    const seq = this.statusSeq;
    while (this.statusSeq === seq) await sleep(50);
    return this.status!;
  }
}

interface Interval {
  k: string;
  r: string;
  s: number;
  e: number;
}
const offsets = new Map<string, number>();
const intervals: Interval[] = [];
function readLogs(): void {
  for (const id of offsets.keys()) {
    const file = join(dir, `${id}.log`);
    if (!existsSync(file)) continue;
    const text = readFileSync(file, 'utf8');
    const from = offsets.get(id)!;
    const end = text.lastIndexOf('\n') + 1;
    if (end <= from) continue;
    for (const line of text.slice(from, end).split('\n')) if (line !== '') intervals.push(JSON.parse(line) as Interval);
    offsets.set(id, end);
  }
}

async function until(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 180_000): Promise<void> {
  const deadline = now() + timeoutMs;
  while (!(await cond())) {
    if (now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

const uidOf = new Map<string, bigint>(); // key → hash of uid

async function seed(cs: Clientset): Promise<void> {
  try {
    await cs.coreV1().namespaces().create({ metadata: { name: namespace } });
  } catch {
    // exists
  }
  const payload = 'x'.repeat(1024);
  let next = 0;
  const t0 = now();
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      for (;;) {
        const i = next++;
        if (i >= N) return;
        const cm = await cs.coreV1().configMaps(namespace).create({ metadata: { name: `obj-${i}`, labels: { bench: 'sharding' } }, data: { payload } });
        uidOf.set(`${namespace}/obj-${i}`, fnv1a64BigInt(cm.metadata!.uid!));
      }
    }),
  );
  log(`created ${N} configmaps in ${((now() - t0) / 1000).toFixed(1)} s`);
}

function ownerOf(hash: bigint, owners: Map<string, ShardRange[]>): string[] {
  const out: string[] = [];
  for (const [id, ranges] of owners) if (ranges.some((r) => hash >= r.start && hash < r.end)) out.push(id);
  return out;
}

const results: PhaseResult[] = [];
let previousOwner = new Map<string, string>();

async function phase(name: string, live: Replica[], changeAt: number, cs: Clientset): Promise<void> {
  log(`phase ${name}: waiting for ${live.length} replicas to settle`);
  await until(`${name}: ring settled`, () =>
    live.every((r) => r.status !== undefined && r.status.t > changeAt && r.status.members.length === live.length && r.status.ready && r.status.active === r.status.desired) &&
    Math.abs(live.reduce((a, r) => a + r.status!.activeFraction, 0) - 1) < 1e-4,
  );
  const settled = now();
  const owners = new Map(live.map((r) => [r.id, parseRanges(r.status!.active)]));
  let withoutOwner = 0;
  let withTwo = 0;
  const ownerNow = new Map<string, string>();
  for (const [key, h] of uidOf) {
    const o = ownerOf(h, owners);
    if (o.length === 0) withoutOwner++;
    if (o.length > 1) withTwo++;
    if (o.length >= 1) ownerNow.set(key, o[0]!);
  }
  const moved = [...ownerNow].filter(([k, o]) => previousOwner.get(k) !== o).map(([k]) => k);
  // Every object reconciled by its (new) owner after the change.
  const doneAt = new Map<string, number>();
  await until(`${name}: objects reconciled by their owners`, () => {
    readLogs();
    for (const i of intervals) {
      if (i.s < changeAt || doneAt.has(i.k)) continue;
      if (ownerNow.get(i.k) === i.r) doneAt.set(i.k, i.e);
    }
    return moved.every((k) => doneAt.has(k));
  });
  const movedDone = Math.max(changeAt, ...moved.map((k) => doneAt.get(k)!));
  previousOwner = ownerNow;
  const statuses = await Promise.all(live.map((r) => r.nextStatus()));
  const res: PhaseResult = {
    phase: name,
    replicas: live.length,
    settleMs: Math.round(settled - changeAt),
    movedReconciledByOwnerMs: Math.round(movedDone - changeAt),
    moved: moved.length,
    withoutOwner,
    withTwoOwners: withTwo,
    perReplica: statuses.map((s) => ({ id: s.id, heapMB: Math.round((s.heapUsed / 1048576) * 10) / 10, cached: s.cached, activeFraction: Math.round(s.activeFraction * 1000) / 1000 })),
  };
  // A change to one object: how many replicas reconcile it?
  const key = `obj-${Math.floor(N / 2)}`;
  const mark = now();
  await cs.coreV1().configMaps(namespace).patch(key, 'application/merge-patch+json', { data: { touched: String(mark) } });
  await until('single change reconciled', () => {
    readLogs();
    return intervals.some((i) => i.k === `${namespace}/${key}` && i.s >= mark);
  });
  await sleep(2 * Number(values['retry-ms']));
  readLogs();
  res.singleChangeReplicas = new Set(intervals.filter((i) => i.k === `${namespace}/${key}` && i.s >= mark).map((i) => i.r)).size;
  results.push(res);
  log(`phase ${name}: ${JSON.stringify(res)}`);
}

function overlaps(): number {
  const byKey = new Map<string, Interval[]>();
  for (const i of intervals) {
    let l = byKey.get(i.k);
    if (l === undefined) byKey.set(i.k, (l = []));
    l.push(i);
  }
  let n = 0;
  for (const list of byKey.values()) {
    list.sort((a, b) => a.s - b.s);
    let maxEnd = -Infinity;
    let maxBy = '';
    for (const i of list) {
      if (i.s < maxEnd && i.r !== maxBy) n++;
      if (i.e > maxEnd) {
        maxEnd = i.e;
        maxBy = i.r;
      }
    }
  }
  return n;
}

let cs: Clientset | undefined;
try {
  const real = values.kubeconfig !== undefined;
  const kubeconfig = values.kubeconfig ?? (await startEmbeddedServer());
  const config = await restConfigFrom(parseKubeConfig(readFileSync(kubeconfig, 'utf8'), { file: kubeconfig }));
  cs = newClientset({ ...config, qps: -1 });
  log(`server: ${config.host} (${real ? 'real cluster' : `embedded, ShardedListAndWatch=${values['server-sharding']}`})`);
  await seed(cs);
  const replicas = new Map<string, Replica>();
  const add = (id: string): void => {
    offsets.set(id, 0);
    replicas.set(id, new Replica(id, kubeconfig));
  };
  const live = (): Replica[] => [...replicas.values()].filter((r) => !r.exited && r.child.signalCode === null);

  let t = now();
  add('r-0');
  await phase('start 1', live(), t, cs);
  t = now();
  add('r-1');
  add('r-2');
  await phase('scale 1→3', live(), t, cs);
  t = now();
  add('r-3');
  add('r-4');
  await phase('scale 3→5', live(), t, cs);
  t = now();
  for (const id of ['r-3', 'r-4']) replicas.get(id)!.child.kill('SIGTERM');
  await until('two replicas exited', () => replicas.get('r-3')!.exited && replicas.get('r-4')!.exited);
  replicas.delete('r-3');
  replicas.delete('r-4');
  await phase('scale 5→3 (SIGTERM)', live(), t, cs);
  t = now();
  replicas.get('r-2')!.child.kill('SIGKILL');
  await until('r-2 killed', () => replicas.get('r-2')!.exited);
  replicas.delete('r-2');
  await phase('kill -9 one of 3', live(), t, cs);

  for (const r of live()) r.child.kill('SIGTERM');
  await until('replicas exited', () => live().length === 0, 30_000);
  readLogs();
  const summary = {
    server: real ? 'kube-apiserver (real, client-side filtering)' : `embedded (ShardedListAndWatch ${values['server-sharding'] ? 'on' : 'off'})`,
    objects: N,
    leaseDurationMs: leaseMs,
    renewDeadlineMs: Number(values['renew-ms']),
    retryPeriodMs: Number(values['retry-ms']),
    reconciles: intervals.length,
    overlappingIntervals: overlaps(),
    phases: results,
  };
  process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  if (values.json !== undefined) writeFileSync(values.json, JSON.stringify(summary, null, 2));
} finally {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  if (cs !== undefined && values.kubeconfig !== undefined && !values['keep-namespace']) {
    try {
      await cs.coreV1().namespaces().delete(namespace);
    } catch {
      // finalized by the caller (python3 ../shared/realk8s/mkpods.py dropns)
    }
  }
  rmSync(dir, { recursive: true, force: true });
}
