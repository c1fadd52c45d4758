// kubeloom's ReplicaSet controller (src/controllers/replicaset), unchanged, under the simulator through the
// in-process REST transport: deterministic replays, many seeds, and the transient overshoot after a pod
// create whose response was lost (upstream's manageReplicas treats it as a failed create); crash-restarts
// of a process built on the REST client (the ReplicaSet controller, a Manager).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explore, formatReport, runSimulation } from '../../src/sim/index.ts';
import { managerStaleCacheFixed } from './manager.sim.ts';
import { replicaSetNoOvershoot, replicaSetScaling } from './replicaset.sim.ts';

test('the same seed replays the ReplicaSet controller byte for byte', async () => {
  for (const seed of [3, 7, 11]) {
    const a = await runSimulation(replicaSetScaling, { seed });
    const b = await runSimulation(replicaSetScaling, { seed });
    assert.ok(a.apiOps > 20, `seed ${seed} made only ${a.apiOps} requests`);
    assert.equal(b.trace.join('\n'), a.trace.join('\n'));
    assert.deepEqual(b.perturbations, a.perturbations);
  }
});

test('the ReplicaSet controller converges to spec.replicas under 40 seeds', async () => {
  const r = await explore(replicaSetScaling, { seeds: 40 });
  assert.equal(r.failure, undefined, r.shrunk === undefined ? '' : formatReport(r.shrunk));
});

test('the ReplicaSet controller overshoots after a pod create whose response was lost while its pod cache lagged', async () => {
  const r = await explore(replicaSetNoOvershoot, { seeds: 200 });
  assert.ok(r.shrunk !== undefined, 'no overshoot found in 200 seeds');
  assert.equal(r.shrunk.failure?.invariant, 'podsAtMostSix');
  const kinds = r.shrunk.perturbations.map((p) => `${p.kind}: ${p.detail}`);
  assert.ok(kinds.some((k) => k.startsWith('lostResponse') && k.includes('POST pods')), kinds.join('\n'));
  const again = await runSimulation(replicaSetNoOvershoot, { seed: r.shrunk.seed, keep: r.shrunk.keep, magnitudes: r.shrunk.magnitudes });
  assert.equal(again.trace.join('\n'), r.shrunk.trace.join('\n'));
});

test('crashed and restarted processes (cold caches and queues) still converge, and replay identically', async () => {
  let crashes = 0;
  for (const spec of [replicaSetScaling, managerStaleCacheFixed]) {
    const crashy = { ...spec, perturbations: { crash: 0.1 } };
    for (let seed = 1; seed <= 12; seed++) {
      const r = await runSimulation(crashy, { seed });
      assert.equal(r.failure, undefined, formatReport(r));
      crashes += r.perturbations.filter((p) => p.kind === 'crash').length;
      if (seed === 1) assert.equal((await runSimulation(crashy, { seed })).trace.join('\n'), r.trace.join('\n'));
    }
  }
  assert.ok(crashes >= 3, `only ${crashes} crashes in 24 runs`);
});
