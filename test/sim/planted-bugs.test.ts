// The planted-bug corpus: each fixture is a small controller with one classic mistake. For each, the
// simulator must find a failing seed within 200 seeds, replay it identically 10 times out of 10, and shrink
// it to fewer (or as few) perturbations; the fixed controller must pass every seed tried here (the bench
// script bench/sim.ts runs 1,000).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { explore, formatReport, runSimulation } from '../../src/sim/index.ts';
import { corpus } from './corpus.ts';

// Seeds the fixed versions must pass in `npm test` (bench/sim.ts runs 1,000).
const fixedSeeds = 40;

for (const [name, c] of Object.entries(corpus)) {
  describe(`planted bug: ${name}`, () => {
    test('is found within 200 seeds, replays identically 10/10 and shrinks', async () => {
      const found = await explore(c.bug, { seeds: 200 });
      assert.ok(found.failure !== undefined && found.shrunk !== undefined, `no failing seed among 200 for ${name}`);
      assert.equal(found.failure.failure?.invariant, c.invariant, formatReport(found.failure));
      assert.equal(found.shrunk.failure?.invariant, c.invariant);
      assert.ok(found.shrunk.perturbations.length <= found.failure.perturbations.length);
      // Replaying the seed (all perturbations) and the shrunk schedule gives the same trace every time.
      for (const original of [found.failure, found.shrunk]) {
        for (let i = 0; i < 10; i++) {
          const again = await runSimulation(c.bug, { seed: original.seed, keep: original.keep, magnitudes: original.magnitudes });
          assert.deepEqual(again.failure, original.failure);
          assert.equal(again.trace.join('\n'), original.trace.join('\n'));
        }
      }
    });

    test(`the fixed controller passes ${c.fixSeeds ?? fixedSeeds} seeds`, async () => {
      const r = await explore(c.fix, { seeds: c.fixSeeds ?? fixedSeeds });
      assert.equal(r.failure, undefined, r.shrunk === undefined ? '' : formatReport(r.shrunk));
    });
  });
}
