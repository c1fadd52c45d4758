import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../util/clock/clock.ts';
import { Progress } from './progress.ts';
import type { DemoRuntime } from './runtime.ts';

/** Just the parts of a runtime the status line reads. */
function fakeRuntime(state: { reconciles: number; leader: boolean }): DemoRuntime {
  const keys = (n: number) => ({ getIndexer: () => ({ listKeys: () => Array.from({ length: n }, (_, i) => `k${i}`) }) });
  return {
    podSetInformer: keys(3),
    podInformer: keys(9),
    isLeader: () => state.leader,
    podSetController: { controller: { stats: () => ({ success: state.reconciles, requeueAfter: 0, error: 0, terminal: 0, panics: 0, active: 1, queueDepth: 2 }) } },
  } as unknown as DemoRuntime;
}

test('Progress on a non-TTY prints a progress line per period with reconciles per second', async () => {
  const clock = new FakeClock();
  const out: string[] = [];
  const state = { reconciles: 0, leader: false };
  const p = new Progress({ out: { write: (s: string) => out.push(s) }, runtime: fakeRuntime(state), clock, linePeriodMs: 2000 });
  p.start();
  p.setStep('step 1/6');
  p.log('step 1/6: create');
  state.reconciles = 10;
  state.leader = true;
  await clock.step(2000);
  p.setConvergence({ converged: false, reason: 'x', convergedPodSets: 1 });
  state.reconciles = 14;
  await clock.step(2000);
  p.stop();
  await clock.step(10_000);
  assert.deepEqual(out, [
    'step 1/6: create\n',
    'progress: [step 1/6] podsets 3 pods 9 | queue 2 in-flight 1 | reconciles 10 (5.0/s) | leader\n',
    'progress: [step 1/6] podsets 3 pods 9 | queue 2 in-flight 1 | reconciles 14 (2.0/s) | leader | converged 1/3\n',
  ]);
});

test('Progress on a TTY redraws one status line in place and keeps logged lines above it', async () => {
  const clock = new FakeClock();
  const out: string[] = [];
  const p = new Progress({ out: { write: (s: string) => out.push(s), isTTY: true }, runtime: fakeRuntime({ reconciles: 0, leader: true }), clock, ttyPeriodMs: 200 });
  p.start();
  await clock.step(200);
  p.log('step 2/6: scale');
  p.setConvergence({ converged: true, reason: '', convergedPodSets: 3 });
  await clock.step(200);
  p.stop();
  const line = 'podsets 3 pods 9 | queue 2 in-flight 1 | reconciles 0 (0.0/s) | leader';
  assert.deepEqual(out, [`\r\x1b[2K${line}`, '\r\x1b[2K', 'step 2/6: scale\n', `\r\x1b[2K${line}`, `\r\x1b[2K${line} | converged`, '\r\x1b[2K']);
});
