// A Manager with leader election under the simulator: its Lease is created and renewed through the
// transport on the virtual clock, and the controller it gates converges. `settleMs` sits below the 2 s retry
// period, since renewals never stop (docs/simulation.md, Limits).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newManager } from '../../src/manager/manager.ts';
import { RestClient } from '../../src/rest/client.ts';
import { formatReport, runSimulation, type Simulation } from '../../src/sim/index.ts';
import { managerStaleCacheFixed, setupFixed } from './manager.sim.ts';

const elected: Simulation = {
  ...managerStaleCacheFixed,
  name: 'leader-elected Manager',
  settleMs: 1000,
  perturbations: { crash: 0 },
  start: (h) => {
    const mgr = newManager(new RestClient(h.restConfig, h.restClientOptions('manager')), { clock: h.clock, logger: h.logger, stalledWatchDetection: false, leaderElection: { id: 'sim-leader', identity: 'replica-a' } });
    setupFixed(mgr);
    void mgr.start(h.signal).catch(() => undefined);
  },
};

test('a leader-elected Manager takes its Lease, renews it on the virtual clock, and its controller converges', async () => {
  for (let seed = 1; seed <= 10; seed++) {
    const r = await runSimulation(elected, { seed });
    assert.equal(r.failure, undefined, formatReport(r));
    assert.ok(r.trace.some((l) => /API manager POST leases -n default -> 201 sim-leader/.test(l)), formatReport(r));
    assert.ok(r.trace.some((l) => /API manager PUT leases default\/sim-leader -> 200/.test(l)), formatReport(r));
  }
});
