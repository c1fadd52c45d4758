import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../util/clock/clock.ts';
import { ProcessClock } from './process-clock.ts';

test('ProcessClock reads the virtual time with its offset and drift, and its durations run at its rate', async () => {
  const base = new FakeClock(1_000_000);
  const c = new ProcessClock(base, { offsetMs: 500, drift: 0.01 }, () => 0);
  assert.equal(c.now(), 1_000_500);
  let fired = -1;
  c.afterFunc(1010, () => (fired = base.now()));
  await base.step(999);
  assert.equal(fired, -1);
  await base.step(1);
  // 1010 local ms at 1.01 local ms per virtual ms: 1000 virtual ms.
  assert.equal(fired, 1_001_000);
  assert.equal(c.now(), 1_000_500 + 1010);
});

test('ProcessClock: a positive wait always moves virtual time (no spinning on a wait that rounds to 0)', async () => {
  const base = new FakeClock(0);
  const c = new ProcessClock(base, { offsetMs: 0, drift: 0.5 }, () => 0);
  let at = -1;
  c.afterFunc(0.3, () => (at = base.now()));
  await base.step(1);
  assert.equal(at, 1);
});

test('ProcessClock: timers due while the process is paused fire when it resumes, in order', async () => {
  const base = new FakeClock(0);
  let pausedUntil = 0;
  const c = new ProcessClock(base, { offsetMs: 0, drift: 0 }, () => pausedUntil);
  const fired: string[] = [];
  c.afterFunc(100, () => fired.push(`a@${base.now()}`));
  c.afterFunc(200, () => fired.push(`b@${base.now()}`));
  const t = c.newTicker(300, () => fired.push(`tick@${base.now()}`));
  pausedUntil = 5_000;
  await base.step(4_999);
  assert.deepEqual(fired, []);
  await base.step(1);
  assert.deepEqual(fired, ['a@5000', 'b@5000', 'tick@5000']);
  await base.step(300);
  assert.deepEqual(fired.at(-1), 'tick@5300');
  t.stop();
});
