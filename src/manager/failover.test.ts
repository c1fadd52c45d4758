import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../apiserver/index.ts';
import { controllerManagedBy } from '../builder/builder.ts';
import { kinds } from '../client/kinds.ts';
import { eventually } from '../testing/eventually.ts';
import { RestClient } from '../rest/client.ts';
import { newManager, type Manager } from './manager.ts';
import { exitCodeFor, setupSignalHandler } from './signals.ts';

const quiet = { debug() {}, info() {}, error() {} };
const cms = kinds.coreV1.configMaps;

test('warm replicas: the standby syncs its cache before leading, and takes over after a release without a new LIST', async (t) => {
  const server = await startApiServer();
  t.after(() => server.stop());
  const rest = new RestClient({ host: server.url, qps: -1 });
  t.after(() => rest.close());
  const seen: Record<string, string[]> = { a: [], b: [] };
  const lists: Record<string, number> = { a: 0, b: 0 };
  const replica = (id: string): { mgr: Manager; stop: AbortController; running: Promise<void> } => {
    const mgr = newManager(rest, {
      logger: quiet,
      leaderElection: { id: 'warm', identity: id, releaseOnCancel: true, leaseDurationMs: 2_000, renewDeadlineMs: 1_500, retryPeriodMs: 100 },
      onRequest: (_m, _c, verb) => {
        if (verb === 'list') lists[id]!++;
      },
    });
    controllerManagedBy(mgr)
      .for(cms)
      .complete(({ name }) => void seen[id]!.push(name));
    const stop = new AbortController();
    return { mgr, stop, running: mgr.start(stop.signal) };
  };
  await newManager(rest, { logger: quiet }).getClient().create(cms, { metadata: { namespace: 'default', name: 'before' } });
  const a = replica('a');
  await a.mgr.elected();
  const b = replica('b');
  await eventually(() => b.mgr.getCache().hasSynced(), { timeoutMs: 5_000 });
  assert.equal(b.mgr.isLeader(), false);
  assert.equal(lists['b'], 1, 'the standby listed once, to warm its cache');
  await eventually(() => seen['a']!.includes('before'), { timeoutMs: 5_000 });
  assert.deepEqual(seen['b'], [], 'the standby reconciles nothing');

  a.stop.abort();
  await a.running;
  await b.mgr.elected();
  await newManager(rest, { logger: quiet }).getClient().create(cms, { metadata: { namespace: 'default', name: 'after' } });
  await eventually(() => seen['b']!.includes('after') && seen['b']!.includes('before'), { timeoutMs: 5_000 });
  assert.equal(lists['b'], 1, 'no LIST after taking over: the objects came from the warm cache');
  b.stop.abort();
  await b.running;
});

test('setupSignalHandler: the first signal aborts, the second exits; exit codes 0 and 1', () => {
  let second = 0;
  const signal = setupSignalHandler({ signals: ['SIGHUP'], onSecondSignal: () => second++ });
  assert.equal(signal.aborted, false);
  process.emit('SIGHUP', 'SIGHUP');
  assert.equal(signal.aborted, true);
  assert.equal(second, 0);
  process.emit('SIGHUP', 'SIGHUP');
  assert.equal(second, 1);
  process.removeAllListeners('SIGHUP');
  assert.equal(exitCodeFor(undefined), 0);
  assert.equal(exitCodeFor(new Error('leader election lost')), 1);
});
