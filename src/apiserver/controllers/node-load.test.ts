import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NodeLoad } from './node-load.ts';

// The choice the scheduler stand-in made by visiting every node: fewest pods, then the first name.
function bruteForce(load: NodeLoad, fits: readonly string[]): string | undefined {
  let best: string | undefined;
  for (const n of fits) if (best === undefined || load.get(n) < load.get(best) || (load.get(n) === load.get(best) && n < best)) best = n;
  return best;
}

test('NodeLoad picks the least-loaded fitting node, then the first by name, as a pass over every node would', () => {
  const nodes = Array.from({ length: 40 }, (_, i) => `kwok-node-${i}`);
  const load = new NodeLoad();
  for (const n of nodes) load.track(n);
  // A seeded walk of pods placed and removed, with fit sets of every size.
  let seed = 7;
  const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  for (let step = 0; step < 2000; step++) {
    const fits = nodes.filter(() => next() % 3 !== 0);
    const chosen = load.leastLoaded(new Set(fits));
    assert.equal(chosen, bruteForce(load, fits), `step ${step}`);
    if (chosen !== undefined && next() % 4 !== 0) load.add(chosen, 1);
    else {
      const n = nodes[next() % nodes.length]!;
      if (load.get(n) > 0) load.add(n, -1);
    }
  }
});

test('NodeLoad: a node never tracked is not chosen; names order as strings (kwok-node-10 before kwok-node-2)', () => {
  const load = new NodeLoad();
  load.track('kwok-node-2');
  load.track('kwok-node-10');
  assert.equal(load.leastLoaded(new Set(['kwok-node-2', 'kwok-node-10', 'kwok-node-3'])), 'kwok-node-10');
  load.add('kwok-node-10', 1);
  assert.equal(load.leastLoaded(new Set(['kwok-node-2', 'kwok-node-10'])), 'kwok-node-2');
  assert.equal(load.leastLoaded(new Set(['kwok-node-3'])), undefined);
});
