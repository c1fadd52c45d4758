import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The sharding harness (bench/sharding/run.ts) at CI size: replicas as separate processes against the
// embedded server, scaled 1 → 3 → 5 → 3 and one killed with SIGKILL. BENCHMARKS.md has the 10,000-object run.
test('replicas in separate processes hand 200 objects over through 1 → 3 → 5 → 3 → kill -9 with no overlapping reconciles and no object without an owner', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sharding-harness-'));
  const out = join(dir, 'result.json');
  try {
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, ['bench/sharding/run.ts', '--objects', '200', '--lease-ms', '2000', '--renew-ms', '1500', '--retry-ms', '500', '--json', out], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('exit', (c) => {
        if (c !== 0) process.stderr.write(stderr);
        resolve(c);
      });
    });
    assert.equal(code, 0);
    const result = JSON.parse(readFileSync(out, 'utf8'));
    assert.equal(result.overlappingIntervals, 0);
    assert.deepEqual(
      result.phases.map((p: { phase: string; replicas: number }) => [p.phase, p.replicas]),
      [
        ['start 1', 1],
        ['scale 1→3', 3],
        ['scale 3→5', 5],
        ['scale 5→3 (SIGTERM)', 3],
        ['kill -9 one of 3', 2],
      ],
    );
    for (const p of result.phases) {
      assert.equal(p.withoutOwner, 0, p.phase);
      assert.equal(p.withTwoOwners, 0, p.phase);
      assert.equal(p.singleChangeReplicas, 1, p.phase);
      assert.equal(p.perReplica.reduce((a: number, r: { cached: number }) => a + r.cached, 0), 200, p.phase);
    }
    // The killed replica's objects were only taken over once its lease could have expired: the lease
    // (2,000 ms) counts from its last renewal, which came at most one retry period (500 ms) before the kill.
    assert.ok(result.phases[4].movedReconciledByOwnerMs >= 2000 - 500, String(result.phases[4].movedReconciledByOwnerMs));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
