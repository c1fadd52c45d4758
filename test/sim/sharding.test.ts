// The shard ring's hand-over under the simulator (test/sim/sharding.sim.ts): 20 seeds here (`node bench/sim.ts
// --only coverage --coverage sharding` runs 1,000).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertSimulation, explore, formatReport, runSimulation } from '../../src/sim/index.ts';
import { shardHandOver } from './sharding.sim.ts';

test('shard ring: every key owned by one live replica after each hand-over, never reconciled by two at once, under 20 seeds', async () => {
  const r = await explore(shardHandOver, { seeds: 20 });
  assert.equal(r.failure, undefined, r.shrunk === undefined ? '' : formatReport(r.shrunk));
  assert.equal(r.runs, 20);
});

test('shard ring: the killed replica\'s ranges are taken over only once its Lease expired on the survivors\' clocks', async () => {
  const r = await runSimulation(shardHandOver, { seed: 2 });
  assert.equal(r.failure, undefined, formatReport(r));
  const killedAt = r.trace.findIndex((l) => l.includes('SCENARIO kill c'));
  assert.ok(killedAt > 0, formatReport(r));
  const ms = (line: string): number => Number(/^\s*(\d+)ms/.exec(line)![1]);
  // Nothing changes between the kill and the takeover: the first reconcile by a survivor is of c's keys.
  const after = r.trace.slice(killedAt).find((l) => /RECONCILE [ab]\/configmap /.test(l));
  assert.ok(after !== undefined, formatReport(r, 300));
  // c renewed at most a retry period (2 s) before it died, plus a delayed request (0.5 s): the survivors
  // wait out its 15 s Lease from the last renewal they saw.
  assert.ok(ms(after) - ms(r.trace[killedAt]!) >= 15_000 - 2_000 - 500, `${after} came ${ms(after) - ms(r.trace[killedAt]!)}ms after the kill`);
});

// A reflector aborted a watch whose request had not reached the server yet (a relist asked for by the ring's
// coverage change); the simulated transport never settled the aborted request, so the informer waited for
// it forever and its replica never reconciled the keys of its ranges again.
test('regression: a request aborted before its response started is rejected, not left pending', async () => {
  await assertSimulation({ ...shardHandOver, clockSkew: { maxOffsetMs: 10_000, maxDrift: 0 } }, { seed: 73, keep: [0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 13, 14, 15] });
  await assertSimulation({ ...shardHandOver, clockSkew: { maxOffsetMs: 0, maxDrift: 0.01 } }, { seed: 34, keep: [] });
});
