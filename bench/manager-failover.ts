/**
 * Failover of an operator run as two replicas in separate processes: both run a Manager with leader
 * election (controller-runtime's defaults: lease 15 s, renew deadline 10 s, retry 2 s) and a controller
 * that copies a ConfigMap's `data.v` into its `seen` annotation. The leader is killed with SIGKILL (it
 * cannot release its Lease); the bench then changes `v` and measures how long until the other replica
 * reconciles the change, and counts the LIST requests the survivor made after the kill (warm cache:
 * none expected). Target: at most lease duration + 1 s, with the Manager's default `watchLease`
 * (the standby watches the Lease and wakes at its observed expiry); `--poll` measures client-go's
 * polling elector (watchLease: false) for comparison. Rounds alternate between the two with `--both`.
 *
 * Run: node bench/manager-failover.ts [rounds=1] [--poll | --both]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { ConfigMap } from '../src/api/core/v1.ts';
import { startApiServer } from '../src/apiserver/index.ts';
import { controllerManagedBy } from '../src/builder/index.ts';
import { Client, kinds } from '../src/client/index.ts';
import { newManager } from '../src/manager/index.ts';
import { RestClient } from '../src/rest/client.ts';

const cms = kinds.coreV1.configMaps;
const quiet = { debug() {}, info() {}, error() {} };

if (process.argv[2] === 'child') {
  // A replica: prints "synced", "leader", and every 200 ms "lists N", the LISTs its informers made.
  const [, , , url, id, mode] = process.argv;
  let lists = 0;
  const mgr = newManager(
    { host: url!, qps: -1 },
    {
      logger: quiet,
      leaderElection: { id: 'failover-bench', identity: id!, watchLease: mode !== 'poll' },
      onRequest: (_method, _code, verb) => {
        if (verb === 'list') lists++;
      },
    },
  );
  controllerManagedBy(mgr)
    .for(cms)
    .complete(async (req, { client }) => {
      if (req.name !== 'probe') return;
      const cm = await client.get(cms, req);
      const v = cm.data?.['v'] ?? '';
      if (cm.metadata?.annotations?.['seen'] === `${id}:${v}`) return;
      await client.patch(cms, req, 'application/merge-patch+json', { metadata: { annotations: { seen: `${id}:${v}` } } });
    });
  const stop = new AbortController();
  process.on('SIGTERM', () => stop.abort());
  void mgr.elected().then(() => console.log('leader'));
  void (async () => {
    await mgr.getCache().waitForCacheSync(stop.signal);
    console.log('synced');
  })();
  setInterval(() => console.log(`lists ${lists}`), 200).unref();
  await mgr.start(stop.signal).catch((err: unknown) => console.log(`stopped: ${String(err)}`));
  process.exit(0);
}

const rounds = Number(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 1);
const modeFor = (round: number): 'watch' | 'poll' => (process.argv.includes('--both') ? (round % 2 === 1 ? 'watch' : 'poll') : process.argv.includes('--poll') ? 'poll' : 'watch');
const server = await startApiServer();
const rest = new RestClient({ host: server.url, qps: -1 });
const client = new Client({ rest });
await client.create(cms, { metadata: { namespace: 'default', name: 'probe' }, data: { v: '0' } });

interface Replica {
  id: string;
  mode: 'watch' | 'poll';
  proc: ChildProcess;
  synced: Promise<void>;
  leader: boolean;
  lists: number;
}

function replica(id: string, mode: 'watch' | 'poll'): Replica {
  const proc = spawn(process.execPath, [new URL(import.meta.url).pathname, 'child', server.url, id, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  let onSynced!: () => void;
  const r: Replica = { id, mode, proc, synced: new Promise((res) => (onSynced = res)), leader: false, lists: 0 };
  createInterface({ input: proc.stdout! }).on('line', (line) => {
    if (line === 'synced') onSynced();
    else if (line === 'leader') r.leader = true;
    else if (line.startsWith('lists ')) r.lists = Number(line.slice(6));
  });
  return r;
}

async function until(cond: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!(await cond())) {
    if (performance.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const seen = async (): Promise<string> => ((await client.get(cms, { namespace: 'default', name: 'probe' })) as ConfigMap).metadata?.annotations?.['seen'] ?? '';
let v = 0;
const replicas = [replica('a', modeFor(1)), replica('b', modeFor(1))];
const results: Record<string, number[]> = { watch: [], poll: [] };
for (let round = 1; round <= rounds; round++) {
  const mode = modeFor(round);
  // The standby must run this round's mode: replace it if it does not.
  for (let i = 0; i < replicas.length; i++) {
    if (replicas[i]!.mode !== mode && !replicas[i]!.leader) {
      replicas[i]!.proc.kill('SIGTERM');
      replicas[i] = replica(`${replicas[i]!.id[0]}${mode[0]}${round}`, mode);
    }
  }
  await Promise.all(replicas.map((r) => r.synced));
  await until(() => replicas.some((r) => r.leader), 30_000);
  const leader = replicas.find((r) => r.leader)!;
  const other = replicas.find((r) => r !== leader)!;
  v++;
  await client.patch(cms, { namespace: 'default', name: 'probe' }, 'application/merge-patch+json', { data: { v: String(v) } });
  await until(async () => (await seen()) === `${leader.id}:${v}`, 10_000);
  await new Promise((r) => setTimeout(r, 250));
  const listsBefore = other.lists;
  leader.proc.kill('SIGKILL');
  const killedAt = performance.now();
  v++;
  await client.patch(cms, { namespace: 'default', name: 'probe' }, 'application/merge-patch+json', { data: { v: String(v) } });
  await until(async () => (await seen()) === `${other.id}:${v}`, 60_000);
  const ms = performance.now() - killedAt;
  results[other.mode]!.push(ms / 1000);
  await new Promise((r) => setTimeout(r, 400));
  console.log(
    `round ${round} (${other.mode}): killed leader ${leader.id} (SIGKILL); ${other.id} reconciled the change ${(ms / 1000).toFixed(2)} s later ` +
      `(lease 15 s, renew deadline 10 s, retry 2 s; target ≤ 16 s with watch); informer LISTs by ${other.id} after the kill: ${other.lists - listsBefore} (before: ${listsBefore})`,
  );
  // A replacement replica for the next round.
  const idx = replicas.indexOf(leader);
  replicas[idx] = replica(`${leader.id[0]}${round}`, modeFor(round + 1));
}
for (const [mode, xs] of Object.entries(results)) {
  if (xs.length === 0) continue;
  const sorted = [...xs].sort((a, b) => a - b);
  console.log(`${mode}: n=${xs.length} min ${sorted[0]!.toFixed(2)} s, median ${sorted[Math.floor((sorted.length - 1) / 2)]!.toFixed(2)} s, max ${sorted.at(-1)!.toFixed(2)} s`);
}
for (const r of replicas) r.proc.kill('SIGTERM');
await rest.close();
await server.stop();
