import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runSimCommand } from './sim-command.ts';

const fixture = 'test/sim/stale-cache.sim.ts';

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runSimCommand(args, { stdout: (t) => (out += t), stderr: (t) => (err += t) });
  return { code, out, err };
}

test('kubeloom sim finds the planted bug, prints the shrunk report and a replay line that reproduces it', async () => {
  const found = await run([fixture, '--export', 'staleCacheBuggy', '--seeds', '200']);
  assert.equal(found.code, 1);
  assert.match(found.out, /failed: podsAtMostReplicas/);
  const replay = /replay: kubeloom sim \S+ --export staleCacheBuggy --seed (\d+) --keep ([\d,]*)(?: --magnitudes (\S+))?/.exec(found.out);
  assert.ok(replay !== null, found.out);
  // Shrinking reports its progress on stderr, ending with the minimal schedule.
  assert.match(found.err, /shrink staleCacheBuggy: done, \d+ perturbation\(s\) \(run \d+ of at most 200\)/);
  const again = await run([fixture, '--export', 'staleCacheBuggy', '--seed', replay[1]!, '--keep', replay[2]!, ...(replay[3] === undefined ? [] : ['--magnitudes', replay[3]])]);
  assert.equal(again.code, 1);
  assert.match(again.out, /failed: podsAtMostReplicas/);
});

test('kubeloom sim passes the fixed controller and rejects bad arguments', async () => {
  const ok = await run([fixture, '--export', 'staleCacheFixed', '--seeds', '20']);
  assert.equal(ok.code, 0);
  assert.match(ok.out, /staleCacheFixed: 20 seeds passed/);
  assert.equal((await run([])).code, 2);
  assert.equal((await run([fixture, '--seeds', '-1'])).code, 2);
  assert.equal((await run([fixture, '--export', 'nothing'])).code, 2);
});
