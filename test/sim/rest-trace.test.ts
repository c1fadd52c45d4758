// A REST process's reconciles in the trace: a Manager's controllers log 'Reconcile done' with their causes
// (src/manager/controller.ts), and the harness's logger turns that line into a RECONCILE trace line.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runSimulation } from '../../src/sim/index.ts';
import { managerStaleCacheFixed } from './manager.sim.ts';

test("a Manager's reconciles appear in the trace with their causes, identically on replay", async () => {
  const a = await runSimulation(managerStaleCacheFixed, { seed: 4 });
  // The REST process is named 'process'; its controller 'podset'.
  const lines = a.trace.filter((l) => / RECONCILE process\/podset /.test(l));
  assert.ok(lines.length >= 2, a.trace.join('\n'));
  assert.ok(
    lines.some((l) => /RECONCILE process\/podset default\/web \w+ \(cause: create \(initial list\) PodSet default\/web rv=\d+ by /.test(l)),
    lines.join('\n'),
  );
  assert.equal((await runSimulation(managerStaleCacheFixed, { seed: 4 })).trace.join('\n'), a.trace.join('\n'));
});
