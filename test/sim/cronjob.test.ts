// The CronJob example (examples/cronjob, unchanged) under the simulator (test/sim/cronjob.sim.ts): 40 seeds
// here (`node --conditions=kubeloom-source bench/sim.ts --only coverage --coverage cronjob` runs 1,000), and
// the schedule that found the simulator's time-jump bug, as a regression. The example imports
// `kubeloom/...`, which resolve to src/ only under the `kubeloom-source` export condition: without it, this
// file runs itself again under that condition.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';

if (!process.execArgv.includes('--conditions=kubeloom-source')) {
  test('the CronJob simulation tests pass (run under --conditions=kubeloom-source)', async () => {
    const run = promisify(execFile);
    // Run as a plain program (not as a child of this test runner: NODE_TEST_CONTEXT removed), its node:test
    // tests report in TAP on stdout and set the exit code.
    const { NODE_TEST_CONTEXT: _context, ...env } = process.env;
    const { stdout } = await run(process.execPath, ['--conditions=kubeloom-source', '--test-reporter=tap', import.meta.filename], { timeout: 600_000, env }).catch((err: { stdout?: string; stderr?: string }) =>
      assert.fail(`${err.stdout ?? ''}${err.stderr ?? ''}`),
    );
    assert.match(stdout, /# fail 0/, stdout);
    assert.match(stdout, /# pass 3/, stdout);
  });
} else {
  const { assertSimulation, explore, formatReport, runSimulation } = await import('../../src/sim/index.ts');
  const { cronJobSchedule } = await import('./cronjob.sim.ts');

  test('the CronJob example: no missed or duplicate run, concurrency policies and history limits hold under 40 seeds', async () => {
    const r = await explore(cronJobSchedule, { seeds: 40 });
    assert.equal(r.failure, undefined, r.shrunk === undefined ? '' : formatReport(r.shrunk));
    assert.equal(r.runs, 40);
  });

  test('the CronJob example runs every slot: Allow and Replace five times, Forbid every other minute', async () => {
    const r = await runSimulation(cronJobSchedule, { seed: 3 });
    assert.equal(r.failure, undefined, formatReport(r));
    const created = (name: string): number => r.trace.filter((l) => new RegExp(`API manager POST jobs -n default -> 201 default/${name}-`).test(l)).length;
    assert.deepEqual([created('allow'), created('forbid'), created('replace')], [5, 3, 5], formatReport(r, 400));
  });

  // A Manager's reconcile error path takes several event-loop turns; the simulator advanced virtual time
  // before the next reconcile's requests were posted, so a Forbid CronJob's requeue at its schedule slot
  // ran 31 s late and missed the slot.
  test('regression: work posted a few event-loop turns after a step runs before virtual time moves', async () => {
    await assertSimulation(cronJobSchedule, { seed: 61, keep: [0, 1, 5, 6, 7, 8, 9, 10, 12, 13, 15, 17, 18] });
  });
}
