/**
 * The priority queue of controller-runtime ≥ 0.23, measured: N ConfigMaps exist when the manager starts
 * (its initial list queues N reconciles), then one ConfigMap changes; how long until that change is
 * reconciled, with the priority queue (initial-list events at low priority) and without (a FIFO
 * rate-limited queue, as before 0.23). One worker; each reconcile spins `workMs` of CPU.
 *
 * Run: node bench/manager-priority.ts [objects=10000] [workMs=0.5]
 */
import type { ConfigMap } from '../src/api/core/v1.ts';
import { startApiServer } from '../src/apiserver/index.ts';
import { controllerManagedBy } from '../src/builder/index.ts';
import { kinds } from '../src/client/index.ts';
import { newManager } from '../src/manager/index.ts';
import { RestClient } from '../src/rest/client.ts';

const n = Number(process.argv[2] ?? 10_000);
const workMs = Number(process.argv[3] ?? 0.5);
const cms = kinds.coreV1.configMaps;
const quiet = { debug() {}, info() {}, error() {} };

function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

const server = await startApiServer({ watchHistorySize: 2 * n + 1000 });
const rest = new RestClient({ host: server.url, qps: -1 });
const t0 = performance.now();
{
  const writer = newManager(rest, { logger: quiet }).getClient();
  const batch = 50;
  for (let i = 0; i < n; i += batch) {
    await Promise.all(Array.from({ length: Math.min(batch, n - i) }, (_, j) => writer.create(cms, { metadata: { namespace: 'default', name: `cm-${i + j}` }, data: { v: '0' } })));
  }
}
console.log(`created ${n} ConfigMaps in ${((performance.now() - t0) / 1000).toFixed(1)} s; reconcile cost ${workMs} ms of CPU, 1 worker`);

let onTenth: () => void = () => {};

async function measure(usePriorityQueue: boolean, round: number): Promise<void> {
  const mgr = newManager(rest, { logger: quiet, controller: { usePriorityQueue } });
  let reconciled = 0;
  let changedAt = 0;
  let doneAt = 0;
  let backlogAtChange = 0;
  let finish!: () => void;
  const finished = new Promise<void>((r) => (finish = r));
  const target = `cm-${Math.floor(n / 2)}`;
  const value = `changed-${round}`;
  controllerManagedBy(mgr)
    .for(cms)
    .named(`bench-${round}`)
    .complete(async (req, { client }) => {
      reconciled++;
      if (reconciled === 10) onTenth();
      spin(workMs);
      if (req.name === target && changedAt > 0 && doneAt === 0) {
        const cm: ConfigMap = await client.get(cms, req);
        if (cm.data?.['v'] === value) {
          doneAt = performance.now();
          finish();
        }
      }
    });
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  // Change one object once the backlog is queued and being worked on (from inside the 10th reconcile).
  let changeSent!: () => void;
  const sent = new Promise<void>((r) => (changeSent = r));
  onTenth = () => {
    backlogAtChange = n - reconciled;
    changedAt = performance.now();
    void mgr
      .getAPIReader()
      .patch(cms, { namespace: 'default', name: target }, 'application/merge-patch+json', { data: { v: value } })
      .then(() => changeSent());
  };
  await sent;
  await finished;
  const latency = doneAt - changedAt;
  const drainedBefore = reconciled;
  stop.abort();
  await running;
  console.log(
    `${usePriorityQueue ? 'priority queue     ' : 'FIFO (no priority) '}: the changed object was reconciled ${latency.toFixed(0)} ms after its update was sent (backlog at the change: ${backlogAtChange} initial-list reconciles; ${drainedBefore} reconciles done by then)`,
  );
}

await measure(true, 1);
await measure(false, 2);
await measure(true, 3);
await measure(false, 4);
await rest.close();
await server.stop();
