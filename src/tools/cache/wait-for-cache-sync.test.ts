import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../util/clock/clock.ts';
import { waitForCacheSync, waitForNamedCacheSync } from './wait-for-cache-sync.ts';

test('waitForCacheSync resolves true at once when everything synced, and polls every 100 ms otherwise', async () => {
  const clock = new FakeClock();
  assert.equal(await waitForCacheSync({ clock }, () => true), true);
  let a = false;
  let polls = 0;
  const waiting = waitForCacheSync({ clock }, () => true, () => {
    polls++;
    return a;
  });
  await clock.step(100);
  await clock.step(100);
  a = true;
  await clock.step(100);
  assert.equal(await waiting, true);
  assert.equal(polls, 4);
});

test('waitForCacheSync resolves false when the signal aborts first; waitForNamedCacheSync too', async () => {
  const clock = new FakeClock();
  const stop = new AbortController();
  const waiting = waitForCacheSync({ clock, signal: stop.signal }, () => false);
  await clock.step(300);
  stop.abort();
  assert.equal(await waiting, false);
  // The functions are checked once even after the abort, as upstream's immediate poll does.
  assert.equal(await waitForCacheSync(stop.signal, () => true), true);
  assert.equal(await waitForCacheSync(stop.signal, () => false), false);
  const errors: unknown[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void errors.push(args.join(' '));
  try {
    assert.equal(await waitForNamedCacheSync('pod-controller', stop.signal, () => false), false);
  } finally {
    console.error = original;
  }
  assert.deepEqual(errors, ['unable to sync caches for pod-controller']);
});
