import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { FakeClock } from '../util/clock/clock.ts';
import type { Pod } from '../api/core/v1.ts';
import { SharedIndexInformer } from '../tools/cache/shared-informer.ts';
import { FakeListerWatcher } from '../tools/cache/testing/fake-lister-watcher.ts';
import { Controller, ControllerError, type ReconcileResult } from './controller.ts';

/** Lets queued promise callbacks run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
}

/** A reconcile that records calls and answers from a script per key. */
function scripted(script: Record<string, (ReconcileResult | Error)[]>): { calls: string[]; reconcile: (key: string) => Promise<ReconcileResult> } {
  const calls: string[] = [];
  return {
    calls,
    reconcile: (key) => {
      calls.push(key);
      const next = script[key]?.shift();
      return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
    },
  };
}

test('Controller does not start workers before every informer has synced', async () => {
  const clock = new FakeClock();
  let synced = false;
  const { calls, reconcile } = scripted({});
  const controller = new Controller({ name: 't', clock, informers: [{ hasSynced: () => true }, { hasSynced: () => synced }], reconcile });
  controller.add('ns/a');
  const ac = new AbortController();
  const running = controller.run({ signal: ac.signal });
  await settle();
  await clock.step(500);
  assert.deepEqual(calls, []);
  assert.equal(controller.hasSynced(), false);
  synced = true;
  await clock.step(100);
  await settle();
  assert.deepEqual(calls, ['ns/a']);
  assert.equal(controller.hasSynced(), true);
  ac.abort();
  await running;
});

test('Controller: success forgets, requeueAfter adds back after the delay, a throw retries with the rate limiter', async () => {
  const clock = new FakeClock();
  const { calls, reconcile } = scripted({ 'ns/a': [new Error('boom'), new Error('boom'), undefined], 'ns/b': [{ requeueAfterMs: 1000 }, undefined] });
  const errors: string[] = [];
  const controller = new Controller({ name: 't', clock, reconcile, onError: (err, key) => errors.push(`${key}: ${(err as Error).message}`) });
  const ac = new AbortController();
  const running = controller.run({ signal: ac.signal });
  controller.add('ns/a');
  controller.add('ns/b');
  await settle();
  assert.deepEqual(calls, ['ns/a', 'ns/b']);
  assert.equal(controller.queue.numRequeues('ns/a'), 1);
  // Default per-item backoff: 5 ms, then 10 ms.
  await clock.step(5);
  await settle();
  assert.deepEqual(calls, ['ns/a', 'ns/b', 'ns/a']);
  await clock.step(10);
  await settle();
  assert.deepEqual(calls, ['ns/a', 'ns/b', 'ns/a', 'ns/a']);
  assert.equal(controller.queue.numRequeues('ns/a'), 0, 'success forgets the failures');
  await clock.step(985);
  await settle();
  assert.deepEqual(calls, ['ns/a', 'ns/b', 'ns/a', 'ns/a', 'ns/b']);
  assert.deepEqual(errors, ['ns/a: boom', 'ns/a: boom']);
  assert.deepEqual(controller.stats(), { success: 2, requeueAfter: 1, error: 2, inFlight: 0, queueDepth: 0 });
  ac.abort();
  await running;
});

test('Controller never reconciles one key on two workers at once, and runs distinct keys in parallel', async () => {
  const clock = new FakeClock();
  const active = new Set<string>();
  let maxParallel = 0;
  const releases: (() => void)[] = [];
  const log: string[] = [];
  const controller = new Controller({
    name: 't',
    clock,
    workers: 3,
    reconcile: async (key) => {
      assert.ok(!active.has(key), `${key} reconciled twice at once`);
      active.add(key);
      maxParallel = Math.max(maxParallel, active.size);
      log.push(`start ${key}`);
      await new Promise<void>((r) => releases.push(r));
      active.delete(key);
      log.push(`end ${key}`);
    },
  });
  const ac = new AbortController();
  const running = controller.run({ signal: ac.signal });
  controller.add('a');
  controller.add('b');
  await settle();
  controller.add('a'); // while `a` is in flight: queued again for afterwards
  await settle();
  assert.deepEqual(log, ['start a', 'start b']);
  for (const r of releases.splice(0)) r();
  await settle();
  assert.deepEqual(log, ['start a', 'start b', 'end a', 'end b', 'start a']);
  for (const r of releases.splice(0)) r();
  await settle();
  assert.equal(maxParallel, 2);
  ac.abort();
  await running;
});

test('Controller stop drains: in-flight reconciles finish, queued keys are not started, run resolves after', async () => {
  const clock = new FakeClock();
  const log: string[] = [];
  let release = (): void => {};
  let seenSignal: AbortSignal | undefined;
  const controller = new Controller({
    name: 't',
    clock,
    reconcile: async (key, { signal }) => {
      seenSignal = signal;
      log.push(`start ${key}`);
      await new Promise<void>((r) => (release = r));
      log.push(`end ${key}`);
    },
  });
  const ac = new AbortController();
  let done = false;
  const running = controller.run({ signal: ac.signal }).then(() => (done = true));
  controller.add('a');
  controller.add('b');
  await settle();
  ac.abort();
  await settle();
  assert.equal(done, false, 'run waits for the in-flight reconcile');
  assert.equal(seenSignal?.aborted, false, 'the in-flight reconcile is not aborted within the grace period');
  release();
  await running;
  assert.deepEqual(log, ['start a', 'end a']);
  assert.equal(controller.queue.shuttingDown(), true);
});

test('Controller aborts the reconcile signal when the shutdown grace period runs out', async () => {
  const clock = new FakeClock();
  const controller = new Controller({
    name: 't',
    clock,
    shutdownGracePeriodMs: 1000,
    onError: () => {},
    reconcile: (_key, { signal }) => clock.sleep(60_000, signal),
  });
  const ac = new AbortController();
  const running = controller.run({ signal: ac.signal });
  controller.add('a');
  await settle();
  ac.abort(new Error('stopping'));
  await clock.step(999);
  assert.equal(controller.stats().inFlight, 1);
  await clock.step(1);
  await running;
  assert.deepEqual(controller.stats(), { success: 0, requeueAfter: 0, error: 1, inFlight: 0, queueDepth: 0 });
});

test('Controller run resolves without starting workers when stopped before the caches sync', async () => {
  const clock = new FakeClock();
  const { calls, reconcile } = scripted({});
  const controller = new Controller({ name: 't', clock, informers: [{ hasSynced: () => false }], reconcile });
  controller.add('a');
  const ac = new AbortController();
  const running = controller.run({ signal: ac.signal });
  await clock.step(300);
  ac.abort();
  await running;
  assert.deepEqual(calls, []);
  await assert.rejects(controller.run({ signal: ac.signal }), ControllerError);
});

test('Controller rejects a worker count that is not a positive integer', () => {
  for (const workers of [0, -1, 1.5]) {
    assert.throws(() => new Controller({ name: 't', workers, reconcile: () => Promise.resolve() }), ControllerError);
  }
});

test('Controller metrics: reconcile totals by result, errors, durations and the queue metrics under the controller name', async () => {
  const clock = new FakeClock();
  const registry = new Registry();
  const { reconcile } = scripted({ a: [new Error('x'), undefined], b: [{ requeueAfterMs: 0 }, undefined] });
  const controller = new Controller({ name: 'podsets', clock, reconcile, metrics: registry, onError: () => {} });
  // A second controller on the same registry shares the metric families.
  new Controller({ name: 'other', clock, reconcile, metrics: registry });
  const ac = new AbortController();
  const running = controller.run({ signal: ac.signal });
  controller.add('a');
  controller.add('b');
  await settle();
  await clock.step(5);
  await settle();
  ac.abort();
  await running;
  const text = await registry.metrics();
  assert.match(text, /controller_reconcile_total\{controller="podsets",result="error"\} 1/);
  assert.match(text, /controller_reconcile_total\{controller="podsets",result="success"\} 2/);
  assert.match(text, /controller_reconcile_total\{controller="podsets",result="requeue_after"\} 1/);
  assert.match(text, /controller_reconcile_errors_total\{controller="podsets"\} 1/);
  assert.match(text, /controller_reconcile_duration_seconds_count\{controller="podsets"\} 4/);
  assert.match(text, /workqueue_adds_total\{name="podsets"\} 4/);
  assert.match(text, /workqueue_retries_total\{name="podsets"\} 2/);
});

test('Controller logs once when caches have not synced after cacheSyncWarningMs, naming informers never started', async () => {
  const clock = new FakeClock();
  const lw = new FakeListerWatcher<Pod>();
  const pods = new SharedIndexInformer<Pod>(lw, { objectDescription: 'pods', clock });
  const podSets = new SharedIndexInformer<Pod>(new FakeListerWatcher<Pod>(), { objectDescription: 'podsets.demo.kubeloom.dev', clock });
  const registration = podSets.addEventHandler({ onAdd() {}, onUpdate() {}, onDelete() {} });
  const logged: Array<[string, string, unknown]> = [];
  const logger = { debug() {}, info: (m: string, f?: unknown) => logged.push(['info', m, f]), error: (m: string, f?: unknown) => logged.push(['error', m, f]) };
  const controller = new Controller({ name: 'podsets', clock, logger, informers: [pods, registration, { hasSynced: () => false }], reconcile: async () => undefined });
  const stopInformers = new AbortController();
  // pods runs (its LIST blocks, so it stays unsynced); podsets is never started.
  const informerRun = pods.run({ signal: stopInformers.signal });
  const ac = new AbortController();
  const running = controller.run({ signal: ac.signal });
  await settle();
  await clock.step(9_900);
  assert.deepEqual(logged, []);
  await clock.step(100);
  assert.deepEqual(logged, [
    [
      'error',
      "controller podsets: caches have not synced after 10 s; workers start once they do. Never started: informer for podsets.demo.kubeloom.dev (call the informer factory's start() or the informer's run()). Still syncing: informer for pods, informers[2].",
      { controller: 'podsets', neverStarted: ['informer for podsets.demo.kubeloom.dev'], syncing: ['informer for pods', 'informers[2]'] },
    ],
  ]);
  await clock.step(60_000);
  assert.equal(logged.length, 1, 'logged once');
  ac.abort();
  await running;
  stopInformers.abort();
  await informerRun;
});

test('Controller logs slow syncs at info level when every informer was started, and nothing when they sync in time', async () => {
  const clock = new FakeClock();
  const logged: string[] = [];
  const logger = { debug() {}, info: (m: string) => logged.push(`info: ${m}`), error: (m: string) => logged.push(`error: ${m}`) };
  let synced = false;
  const slow = new Controller({ name: 'slow', clock, logger, cacheSyncWarningMs: 2_000, informers: [{ hasSynced: () => synced, hasStarted: () => true, objectDescription: 'pods' }], reconcile: async () => undefined });
  const ac = new AbortController();
  const running = slow.run({ signal: ac.signal });
  await settle();
  await clock.step(2_000);
  assert.deepEqual(logged, ['info: controller slow: caches have not synced after 2 s; workers start once they do. Still syncing: informer for pods.']);
  synced = true;
  await clock.step(100);
  assert.equal(slow.hasSynced(), true);
  ac.abort();
  await running;

  logged.length = 0;
  const fast = new Controller({ name: 'fast', clock, logger, informers: [{ hasSynced: () => true }], reconcile: async () => undefined });
  const ac2 = new AbortController();
  const running2 = fast.run({ signal: ac2.signal });
  await clock.step(60_000);
  ac2.abort();
  await running2;
  assert.deepEqual(logged, []);
});
