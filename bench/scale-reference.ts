/**
 * The reference rollout (issue 31 §3): the same Deployment rolled out on the same N kwok-style nodes by
 * two control planes, interleaved in one run, each in fresh processes:
 *
 * - `kubeloom`: `kubeloom apiserver --nodes N`, one process holding the API server, kubeloom's own
 *   kube-controller-manager controllers (all of them, as the CLI's default), the scheduler stand-in and
 *   the kubelet stand-in;
 * - `real`: `kubeloom apiserver --bare --kubelet --nodes N --no-garbage-collector --no-namespace-controller`
 *   (the API server and the same kubelet stand-in, nothing else) with the real kube-controller-manager
 *   and kube-scheduler v1.24 (../shared/realk8s, built by build.sh) started against it with the command
 *   lines of ../shared/realk8s/controllers.sh, and upstream's client rate limits (kube-controller-manager
 *   --kube-api-qps 20 / --kube-api-burst 30 per controller, kube-scheduler 50 / 100);
 * - `real-qps`: the same with --kube-api-qps 1000 --kube-api-burst 1000 on both binaries, as scale tests
 *   of upstream raise them, so that the client rate limiter is not what is measured.
 *
 * Each run: start the processes, roll out a 1-replica warm-up Deployment (so that caches are synced and
 * leaders elected), then create the measured Deployment and poll it every 250 ms until
 * status.availableReplicas == replicas. Reported: wall time to all pods created (status.replicas) and
 * to all Available, pods/s, and the CPU time (utime + stime from /proc/PID/stat) and RSS of each process
 * (server, kube-controller-manager, kube-scheduler) over the rollout, plus the machine's load. The real
 * binaries' logs are scanned for error lines (klog `E…`), which are counted and the most frequent printed.
 * A real binary that exits during a run is started again, as a kubelet restarts a static pod (the
 * kube-controller-manager exits when it cannot renew its leader Lease within 10 s, which happens when the
 * server answers slowly on an overloaded machine); the restarts are reported with the row.
 *
 * Run: node bench/scale-reference.ts [nodes=1000] [replicas=10000] [rounds=1] [modes=kubeloom,real,real-qps]
 * Environment: REALK8S_BIN (default /root/realk8s/bin), REF_TIMEOUT_S (per rollout, default 1800),
 * REF_LOG_DIR (default: a fresh directory under the OS temp dir; the binaries' and servers' logs stay there),
 * REF_SERVER_NODE_FLAGS (extra Node flags of the server process, e.g. `--cpu-prof --cpu-prof-dir DIR`),
 * REF_LEADER_ELECT=false (kube-controller-manager without leader election).
 * The machine's 2 cores are shared: read the CPU columns, and the load printed with each row.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadKubeConfigFile, restConfigFrom } from '../src/clientcmd/index.ts';
import { newClientset, type Clientset } from '../src/kubernetes/index.ts';

const nodes = Number(process.argv[2] ?? 1000);
const replicas = Number(process.argv[3] ?? 10_000);
const rounds = Number(process.argv[4] ?? 1);
const modes = (process.argv[5] ?? 'kubeloom,real,real-qps').split(',') as Mode[];
type Mode = 'kubeloom' | 'real' | 'real-qps';
const bin = process.env.REALK8S_BIN ?? '/root/realk8s/bin';
const timeoutMs = Number(process.env.REF_TIMEOUT_S ?? 1800) * 1000;
// kube-controller-manager's --leader-elect (controllers.sh: true). REF_LEADER_ELECT=false keeps a
// kube-controller-manager whose Lease renewal timed out from exiting and relisting everything.
const leaderElect = process.env.REF_LEADER_ELECT !== 'false';
const root = path.resolve(import.meta.dirname, '..');
const logDir = process.env.REF_LOG_DIR ?? (await mkdtemp(path.join(os.tmpdir(), 'kubeloom-scale-reference-')));
await mkdir(logDir, { recursive: true });
// Clock ticks per second of /proc/PID/stat's utime and stime (USER_HZ; 100 on Linux for x86 and arm).
const userHz = 100;

for (const m of modes) if (!['kubeloom', 'real', 'real-qps'].includes(m)) throw new Error(`unknown mode ${m}`);
if (modes.some((m) => m !== 'kubeloom') && !existsSync(path.join(bin, 'kube-controller-manager'))) {
  console.error(`no kube-controller-manager and kube-scheduler in ${bin} (build them with ../shared/realk8s/build.sh, or set REALK8S_BIN)`);
  process.exit(2);
}

/** CPU seconds (user + system) a process has used so far, from /proc/PID/stat. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at state, field 3; utime and stime are 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / userHz;
}

/** Resident set size of a process in MiB, from /proc/PID/status. */
function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m === null ? 0 : Number(m[1]) / 1024;
  } catch {
    return 0; // exited
  }
}

const load = (): string => os.loadavg()[0]!.toFixed(2);

/**
 * A process of a run. The real binaries are supervised as a kubelet supervises static pods: one that exits
 * (kube-controller-manager exits when it loses its leader lease) is started again, and counted. Its CPU
 * is sampled every 500 ms, so an instance that exited still counts (up to its last sample).
 */
interface Proc {
  readonly name: string;
  child: ChildProcess;
  restarts: number;
  /** CPU seconds of the instances that exited, as last sampled. */
  cpuExited: number;
  /** The running instance's CPU seconds at the last sample. */
  cpuSampled: number;
  stopping: boolean;
}

function sample(p: Proc): void {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  try {
    p.cpuSampled = cpuSeconds(p.child.pid!);
  } catch {
    // exited between the check and the read
  }
}

/** CPU seconds of every instance of a process so far. */
function cpuOf(p: Proc): number {
  sample(p);
  return p.cpuExited + p.cpuSampled;
}

async function stopProc(p: Proc): Promise<void> {
  p.stopping = true;
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  const exited = new Promise<void>((r) => p.child.once('exit', () => r()));
  p.child.kill('SIGTERM');
  // kube-scheduler v1.24 does not always finish its graceful shutdown once the API server is gone.
  if ((await Promise.race([exited.then(() => true), sleep(15_000).then(() => false)])) === false) {
    p.child.kill('SIGKILL');
    await exited;
  }
}

async function startServer(mode: Mode, tag: string): Promise<{ proc: Proc; kubeconfig: string }> {
  const kubeconfig = path.join(logDir, `${tag}.kubeconfig`);
  const flags = mode === 'kubeloom' ? ['--nodes', String(nodes)] : ['--bare', '--kubelet', '--nodes', String(nodes), '--no-garbage-collector', '--no-namespace-controller'];
  const nodeFlags = (process.env.REF_SERVER_NODE_FLAGS ?? '').split(' ').filter((f) => f !== '');
  const child = spawn(process.execPath, ['--max-old-space-size=8192', ...nodeFlags, path.join(root, 'src/cli/main.ts'), 'apiserver', ...flags, '--write-kubeconfig', kubeconfig], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr!.pipe(createWriteStream(path.join(logDir, `${tag}.server.log`)));
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('kubeconfig written')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`kubeloom apiserver exited with ${String(code)}: ${out}`)));
  });
  return { proc: { name: 'server', child, restarts: 0, cpuExited: 0, cpuSampled: 0, stopping: false }, kubeconfig };
}

/** The real binaries, with controllers.sh's command lines (plus client rate limits for `real-qps`). */
function startReal(mode: Mode, tag: string, kubeconfig: string): Proc[] {
  const qps = mode === 'real-qps' ? ['--kube-api-qps=1000', '--kube-api-burst=1000'] : [];
  const launch = (name: string, args: string[]): Proc => {
    const spawnOne = (): ChildProcess => {
      const child = spawn(path.join(bin, name), args, { stdio: ['ignore', 'ignore', 'pipe'] });
      child.stderr!.pipe(createWriteStream(path.join(logDir, `${tag}.${name}.log`), { flags: 'a' }));
      child.once('exit', (code, signal) => {
        if (p.stopping) return;
        p.cpuExited += p.cpuSampled;
        p.cpuSampled = 0;
        p.restarts++;
        console.log(`   ${name} exited (${signal ?? String(code)}) at ${new Date().toISOString()}: started again (restart ${p.restarts})`);
        p.child = spawnOne();
      });
      return child;
    };
    const p: Proc = { name, child: undefined as unknown as ChildProcess, restarts: 0, cpuExited: 0, cpuSampled: 0, stopping: false };
    p.child = spawnOne();
    return p;
  };
  return [
    launch('kube-controller-manager', ['--kubeconfig', kubeconfig, '--secure-port=0', `--leader-elect=${leaderElect}`, '--controllers=*,-serviceaccount-token', '--v=2', ...qps]),
    launch('kube-scheduler', [
      '--kubeconfig',
      kubeconfig,
      '--authentication-kubeconfig',
      kubeconfig,
      '--authorization-kubeconfig',
      kubeconfig,
      '--secure-port=10559',
      '--bind-address=127.0.0.1',
      '--leader-elect=false',
      '--v=1',
      ...qps,
    ]),
  ];
}

const template = (app: string): object => ({
  metadata: { labels: { app } },
  spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '1m', memory: '1Mi' } } }] },
});

interface Progress {
  createdMs: number | undefined;
  availableMs: number;
}

/** Creates a Deployment of `n` replicas and waits until all are Available; times from the create. */
async function rollout(cs: Clientset, name: string, n: number): Promise<Progress> {
  const apps = cs.appsV1().deployments('default');
  const t0 = performance.now();
  await apps.create({ metadata: { name }, spec: { replicas: n, selector: { matchLabels: { app: name } }, template: template(name) } } as never);
  let createdMs: number | undefined;
  let last = '';
  for (;;) {
    const d = await apps.get(name);
    const s = d.status ?? {};
    if (createdMs === undefined && (s.replicas ?? 0) >= n) createdMs = performance.now() - t0;
    if ((s.availableReplicas ?? 0) >= n && s.observedGeneration === d.metadata?.generation) return { createdMs, availableMs: performance.now() - t0 };
    const now = JSON.stringify({ replicas: s.replicas, ready: s.readyReplicas, available: s.availableReplicas });
    if (performance.now() - t0 > timeoutMs) throw new Error(`${name}: not Available within ${timeoutMs / 1000} s: ${now}`);
    if (now !== last) last = now;
    await sleep(250);
  }
}

/** klog error lines of a log, grouped without their timestamp, most frequent first. */
async function logErrors(file: string): Promise<{ total: number; top: [string, number][] }> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const counts = new Map<string, number>();
  let total = 0;
  for (const l of text.split('\n')) {
    if (!/^E\d{4} /.test(l)) continue;
    total++;
    const key = l.replace(/^E\d{4} [\d:.]+\s+\d+ /, '').replace(/"[a-z0-9-]+-[a-z0-9]{5}"/g, '"<pod>"').slice(0, 200);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return { total, top: [...counts].sort((a, b) => b[1] - a[1]).slice(0, 5) };
}

interface Row {
  mode: Mode;
  round: number;
  createdS: number | undefined;
  availableS: number;
  cpu: Record<string, number>;
  rss: Record<string, number>;
  loadBefore: string;
  loadAfter: string;
  errors: Record<string, number>;
  /** Restarts of a real binary during the rollout (kube-controller-manager after losing its lease). */
  restarts: Record<string, number>;
}

async function run(mode: Mode, round: number): Promise<Row> {
  const tag = `${mode}-${round}`;
  const procs: Proc[] = [];
  const onSignal = (): void => {
    void Promise.all(procs.map(stopProc)).finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let cs: Clientset | undefined;
  try {
    const t0 = performance.now();
    const { proc, kubeconfig } = await startServer(mode, tag);
    procs.push(proc);
    if (mode !== 'kubeloom') procs.push(...startReal(mode, tag, kubeconfig));
    cs = newClientset({ ...(await restConfigFrom(await loadKubeConfigFile(kubeconfig))), qps: -1 });
    await rollout(cs, 'warm-up', 1);
    console.log(`${tag}: ${nodes} nodes, processes up and a 1-replica Deployment Available after ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const loadBefore = load();
    const cpu0 = new Map(procs.map((p) => [p.name, cpuOf(p)]));
    const restarts0 = new Map(procs.map((p) => [p.name, p.restarts]));
    const sampler = setInterval(() => procs.forEach(sample), 500);
    const progress = await rollout(cs, 'reference', replicas).finally(() => clearInterval(sampler));
    const cpu = Object.fromEntries(procs.map((p) => [p.name, cpuOf(p) - cpu0.get(p.name)!]));
    const restarts = Object.fromEntries(procs.filter((p) => p.restarts > restarts0.get(p.name)!).map((p) => [p.name, p.restarts - restarts0.get(p.name)!]));
    const rss = Object.fromEntries(procs.map((p) => [p.name, rssMiB(p.child.pid!)]));
    const errors: Record<string, number> = {};
    for (const p of procs.slice(1)) {
      const e = await logErrors(path.join(logDir, `${tag}.${p.name}.log`));
      errors[p.name] = e.total;
      for (const [line, n] of e.top) console.log(`   ${p.name} logged ${n}× ${line}`);
    }
    return { mode, round, createdS: progress.createdMs === undefined ? undefined : progress.createdMs / 1000, availableS: progress.availableMs / 1000, cpu, rss, loadBefore, loadAfter: load(), errors, restarts };
  } finally {
    await cs?.close();
    // The real binaries first, then the server they talk to.
    for (const p of procs.slice(1)) await stopProc(p);
    if (procs[0] !== undefined) await stopProc(procs[0]);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

function format(r: Row): string {
  const cpu = Object.entries(r.cpu)
    .map(([n, s]) => `${n} ${s.toFixed(1)} s`)
    .join(', ');
  const total = Object.values(r.cpu).reduce((a, b) => a + b, 0);
  const rss = Object.entries(r.rss)
    .map(([n, m]) => `${n} ${m.toFixed(0)}`)
    .join(', ');
  const errs = Object.keys(r.errors).length === 0 ? '' : `; error lines: ${Object.entries(r.errors).map(([n, c]) => `${n} ${c}`).join(', ')}`;
  const restarts = Object.keys(r.restarts).length === 0 ? '' : `; restarted: ${Object.entries(r.restarts).map(([n, c]) => `${n} ${c}×`).join(', ')}`;
  return (
    `${r.mode.padEnd(8)} round ${r.round}: ${replicas} pods on ${nodes} nodes, all created ${r.createdS === undefined ? '?' : r.createdS.toFixed(1)} s, ` +
    `Available ${r.availableS.toFixed(1)} s = ${(replicas / r.availableS).toFixed(0)} pods/s; CPU ${cpu} (total ${total.toFixed(1)} s = ${((total * 1000) / replicas).toFixed(2)} ms/pod); ` +
    `RSS MiB ${rss}; load ${r.loadBefore} → ${r.loadAfter}${errs}${restarts}`
  );
}

console.log(`scale-reference: ${nodes} nodes, ${replicas} replicas, ${rounds} round(s) of ${modes.join(', ')}; kube-controller-manager --leader-elect=${leaderElect}; load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} (${os.cpus().length} cores); logs in ${logDir}`);
const rows: Row[] = [];
for (let round = 1; round <= rounds; round++) {
  for (const mode of modes) {
    const row = await run(mode, round);
    rows.push(row);
    console.log(`${format(row)}; ${new Date().toISOString()}`);
  }
}
console.log('\nsummary');
for (const r of rows) console.log(format(r));
