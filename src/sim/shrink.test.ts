import assert from 'node:assert/strict';
import { test } from 'node:test';
import { staleCacheBuggy } from '../../test/sim/stale-cache.sim.ts';
import { terminatingParentBuggy } from '../../test/sim/terminating-parent.sim.ts';
import { explore, runSimulation, shrink, type ShrinkProgress, type SimResult } from './index.ts';

async function firstFailure(spec: typeof staleCacheBuggy): Promise<SimResult> {
  const found = await explore(spec, { seeds: 200, shrink: false });
  assert.ok(found.failure !== undefined);
  return found.failure;
}

test('shrink returns a 1-minimal schedule: without any one of its perturbations the invariant holds', async () => {
  for (const spec of [staleCacheBuggy, terminatingParentBuggy]) {
    const failing = await firstFailure(spec);
    const phases = new Set<string>();
    const shrunk = await shrink(spec, failing, { onProgress: (p) => void phases.add(p.phase) });
    const invariant = failing.failure!.invariant;
    assert.equal(shrunk.failure?.invariant, invariant);
    assert.ok(shrunk.perturbations.length > 0 && shrunk.perturbations.length < failing.perturbations.length);
    assert.deepEqual([...phases].sort(), ['ddmin', 'done', 'magnitude', 'none', 'one-by-one']);
    const keep = shrunk.perturbations.map((p) => p.ordinal);
    for (let i = 0; i < keep.length; i++) {
      const without = await runSimulation(spec, { seed: shrunk.seed, keep: keep.filter((_, j) => j !== i), magnitudes: shrunk.magnitudes });
      assert.notEqual(without.failure?.invariant, invariant, `still fails without perturbation #${keep[i]}`);
    }
    // Its replay line (seed, keep, magnitudes) gives the same run.
    const again = await runSimulation(spec, { seed: shrunk.seed, keep: shrunk.keep, magnitudes: shrunk.magnitudes });
    assert.equal(again.trace.join('\n'), shrunk.trace.join('\n'));
  }
});

test('shrink lowers delays to the smallest size that still breaks the invariant', async () => {
  const failing = await firstFailure(staleCacheBuggy);
  const shrunk = await shrink(staleCacheBuggy, failing);
  const sized = shrunk.perturbations.filter((p) => p.kind === 'watchDelay' || p.kind === 'requestDelay');
  assert.ok(sized.length > 0);
  for (const p of sized) {
    const before = failing.perturbations.find((q) => q.ordinal === p.ordinal);
    if (before !== undefined) assert.ok(p.magnitude < before.magnitude, `${p.kind} #${p.ordinal}: ${p.magnitude} not below ${before.magnitude}`);
    // Zero would not break it (the shrinker tries zero first).
    const zero = await runSimulation(staleCacheBuggy, { seed: shrunk.seed, keep: shrunk.keep, magnitudes: { ...shrunk.magnitudes, [p.ordinal]: 0 } });
    assert.notEqual(zero.failure?.invariant, shrunk.failure?.invariant);
  }
});

test('shrink stops at its budget and returns the smallest failing schedule found so far', async () => {
  const failing = await firstFailure(terminatingParentBuggy);
  const progress: ShrinkProgress[] = [];
  const shrunk = await shrink(terminatingParentBuggy, failing, { budget: 3, onProgress: (p) => void progress.push(p) });
  assert.equal(shrunk.failure?.invariant, failing.failure?.invariant);
  assert.ok(shrunk.perturbations.length <= failing.perturbations.length);
  // Three attempts, then at most one exact replay of the result.
  assert.ok(progress.filter((p) => p.phase !== 'done').length === 3);
  assert.ok(progress.at(-1)!.phase === 'done' && progress.at(-1)!.runs <= 4);
});
