// Dropped watches: with a short server history (historySize 3) and frequent drops, informers both resume
// from their resourceVersion and, once the history was compacted past it, relist after 410 Gone — in the
// simulated informers and in kubeloom's own reflectors over the REST transport — and the fixed controllers
// still converge.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatReport, runSimulation, type Simulation } from '../../src/sim/index.ts';
import { corpus } from './corpus.ts';
import { replicaSetScaling } from './replicaset.sim.ts';

async function survey(spec: Simulation, seeds: number): Promise<{ gone: number; resumed: number }> {
  let gone = 0;
  let resumed = 0;
  for (let seed = 1; seed <= seeds; seed++) {
    const r = await runSimulation({ ...spec, historySize: 3, perturbations: { watchDrop: 0.2 } }, { seed });
    assert.equal(r.failure, undefined, formatReport(r));
    gone += r.trace.filter((l) => /410 (Gone|Expired)/.test(l)).length;
    resumed += r.trace.filter((l) => / resumed \(/.test(l) || /API \S+ WATCH \S+( -n \S+)? rv=\d+$/.test(l)).length;
  }
  return { gone, resumed };
}

test('simulated informers resume after a dropped watch and relist after 410 Gone', async () => {
  const { gone, resumed } = await survey(corpus['stale cache without expectations']!.fix, 20);
  assert.ok(gone > 0 && resumed > 0, JSON.stringify({ gone, resumed }));
});

test("kubeloom's reflectors over the REST transport re-watch after a closed watch and relist after 410 Expired", async () => {
  const { gone, resumed } = await survey(replicaSetScaling, 20);
  assert.ok(gone > 0 && resumed > 0, JSON.stringify({ gone, resumed }));
});
