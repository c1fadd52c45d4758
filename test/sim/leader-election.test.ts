// A Manager with leader election under the simulator: its Lease is created and renewed through the
// transport on the virtual clock, and the controller it gates converges. Lease renewals are not activity,
// so the run settles with the default settleMs; this one keeps a shorter settleMs of 5 s (two renewal periods).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newManager } from '../../src/manager/manager.ts';
import { RestClient } from '../../src/rest/client.ts';
import { explore, formatReport, runSimulation, type Simulation } from '../../src/sim/index.ts';
import { leaderElectedPair, leaderElectedPairPaused } from './leader-election.sim.ts';
import { managerStaleCacheFixed, setupFixed } from './manager.sim.ts';

const elected: Simulation = {
  ...managerStaleCacheFixed,
  name: 'leader-elected Manager',
  settleMs: 5000,
  perturbations: { crash: 0 },
  start: (h) => {
    const mgr = newManager(new RestClient(h.restConfig, h.restClientOptions('manager')), { clock: h.clock, logger: h.logger, leaderElection: { id: 'sim-leader', identity: 'replica-a' } });
    setupFixed(mgr);
    void mgr.start(h.signal).catch(() => undefined);
  },
};

test('a leader-elected Manager takes its Lease, renews it on the virtual clock, and its controller converges', async () => {
  for (let seed = 1; seed <= 10; seed++) {
    const r = await runSimulation(elected, { seed });
    assert.equal(r.failure, undefined, formatReport(r));
    assert.ok(r.trace.some((l) => /API manager POST leases -n default -> 201 default\/sim-leader/.test(l)), formatReport(r));
    assert.ok(r.trace.some((l) => /API manager PUT leases default\/sim-leader -> 200/.test(l)), formatReport(r));
  }
});

// Two replicas of it (test/sim/leader-election.sim.ts), each with its own clock offset and drift.
test('two leader-elected replicas with crashes and clock skew never lead at once (leaderOverlap) under 10 seeds', async () => {
  const r = await explore(leaderElectedPair, { seeds: 10 });
  assert.equal(r.failure, undefined, r.shrunk === undefined ? '' : formatReport(r.shrunk));
});

test('a leader paused past its Lease resumes and reconciles after the other took over: a split brain, which the contract allows', async () => {
  const r = await runSimulation(leaderElectedPairPaused, { seed: 5 });
  assert.equal(r.failure, undefined, formatReport(r));
  assert.ok(r.perturbations.some((p) => p.kind === 'pause' && p.detail.startsWith('pause b for 21901ms')), formatReport(r));
  assert.ok(r.trace.some((l) => /SPLIT BRAIN b reconciled default\/web \(podset\) as leader of default\/sim-leader, which a acquired/.test(l)), formatReport(r, 200));
});
