import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { FakeClock } from '../util/clock/clock.ts';
import { TerminalError, type Request, type Result } from '../reconcile/reconcile.ts';
import type { Source } from '../source/source.ts';
import { ManagedController } from './controller.ts';
import { newControllerMetrics } from './metrics.ts';

async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise<void>((r) => setImmediate(r));
}

const synced: Source = { description: 'test', start() {}, hasSynced: () => true };
const quiet = { debug() {}, info() {}, error() {} };

function scripted(script: Record<string, (Result | Error | 'hang')[]>) {
  const calls: string[] = [];
  const signals: AbortSignal[] = [];
  return {
    calls,
    signals,
    reconcile: async (req: Request, ctx: { signal: AbortSignal }): Promise<Result> => {
      calls.push(req.name);
      signals.push(ctx.signal);
      const next = script[req.name]?.shift();
      if (next === 'hang') await new Promise<void>((r) => ctx.signal.addEventListener('abort', () => r(), { once: true }));
      else if (next instanceof Error) throw next;
      else return next;
    },
  };
}

test('ManagedController: errors retry with backoff, terminal errors do not, panics are counted, requeueAfter waits', async () => {
  const clock = new FakeClock();
  const registry = new Registry();
  const { calls, reconcile } = scripted({ err: [new Error('boom'), undefined], term: [new TerminalError('bad spec')], panic: [new TypeError('x is undefined'), undefined], later: [{ requeueAfterMs: 1000 }, undefined] });
  const c = new ManagedController({ name: 'ctl', reconcile, clock, logger: quiet, metrics: newControllerMetrics(registry) });
  c.watch(synced);
  const stop = new AbortController();
  const running = c.start(stop.signal);
  for (const k of ['ns/err', 'ns/term', 'ns/panic', 'ns/later']) c.queue.add(k);
  await settle();
  assert.deepEqual(calls, ['err', 'term', 'panic', 'later']);
  await clock.step(5); // first backoff: 5 ms
  await settle();
  assert.deepEqual(calls.slice(4).sort(), ['err', 'panic']);
  await clock.step(1000);
  await settle();
  assert.deepEqual(calls.slice(6), ['later']);
  await clock.step(60_000);
  await settle();
  assert.equal(calls.filter((c) => c === 'term').length, 1, 'a terminal error is not retried');
  assert.deepEqual({ ...c.stats(), queueDepth: 0 }, { success: 3, requeueAfter: 1, error: 3, terminal: 1, panics: 1, active: 0, queueDepth: 0 });
  const text = await registry.metrics();
  assert.match(text, /controller_runtime_reconcile_total\{controller="ctl",result="success"\} 3/);
  assert.match(text, /controller_runtime_reconcile_total\{controller="ctl",result="error"\} 3/);
  assert.match(text, /controller_runtime_reconcile_total\{controller="ctl",result="requeue_after"\} 1/);
  assert.match(text, /controller_runtime_reconcile_total\{controller="ctl",result="requeue"\} 0/);
  assert.match(text, /controller_runtime_reconcile_errors_total\{controller="ctl"\} 3/);
  assert.match(text, /controller_runtime_terminal_reconcile_errors_total\{controller="ctl"\} 1/);
  assert.match(text, /controller_runtime_reconcile_panics_total\{controller="ctl"\} 1/);
  assert.match(text, /controller_runtime_max_concurrent_reconciles\{controller="ctl"\} 1/);
  assert.match(text, /controller_runtime_active_workers\{controller="ctl"\} 0/);
  assert.match(text, /controller_runtime_reconcile_time_seconds_count\{controller="ctl"\} 7/);
  stop.abort();
  await running;
});

test('ManagedController never runs one request on two workers at once', async () => {
  const clock = new FakeClock();
  let active = 0;
  let maxActive = 0;
  const releases: (() => void)[] = [];
  const c = new ManagedController({
    name: 'c2',
    clock,
    logger: quiet,
    maxConcurrentReconciles: 4,
    reconcile: async () => {
      active++;
      maxActive = Math.max(maxActive, active);
      await new Promise<void>((r) => releases.push(r));
      active--;
    },
  });
  c.watch(synced);
  const stop = new AbortController();
  const running = c.start(stop.signal);
  c.queue.add('ns/a');
  await settle();
  c.queue.add('ns/a');
  c.queue.add('ns/a');
  await settle();
  assert.equal(maxActive, 1);
  releases.shift()!();
  await settle();
  assert.equal(releases.length, 1, 'the re-added request runs once more, after the first finished');
  releases.shift()!();
  await settle();
  stop.abort();
  await running;
});

test('ManagedController: on stop, in-flight reconciles keep their signal for the grace period, then it aborts', async () => {
  const clock = new FakeClock();
  const { signals, reconcile } = scripted({ a: ['hang'] });
  const c = new ManagedController({ name: 'c3', reconcile, clock, logger: quiet, shutdownGracePeriodMs: 30_000 });
  c.watch(synced);
  const stop = new AbortController();
  const running = c.start(stop.signal);
  c.queue.add('ns/a');
  await settle();
  stop.abort();
  c.queue.add('ns/b'); // intake is closed
  await clock.step(29_999);
  assert.equal(signals[0]!.aborted, false);
  await clock.step(1);
  await running;
  assert.equal(signals[0]!.aborted, true);
  assert.equal(signals.length, 1);
});

test('ManagedController: reconcileTimeoutMs aborts one reconcile; reconcileEveryMs reconciles again after success', async () => {
  const clock = new FakeClock();
  const { calls, signals, reconcile } = scripted({ a: ['hang', undefined, undefined] });
  const c = new ManagedController({ name: 'c4', reconcile, clock, logger: quiet, reconcileTimeoutMs: 100, reconcileEveryMs: 60_000 });
  c.watch(synced);
  const stop = new AbortController();
  const running = c.start(stop.signal);
  c.queue.add('ns/a');
  await settle();
  await clock.step(100);
  await settle();
  assert.equal(signals[0]!.aborted, true);
  assert.equal(c.stats().success, 1, 'the reconcile returned after its signal aborted');
  await clock.step(59_999);
  await settle();
  assert.equal(calls.length, 1);
  await clock.step(1);
  await settle();
  assert.equal(calls.length, 2);
  stop.abort();
  await running;
});

test('ManagedController: reconcileEveryMs as a function gives each object its own period, none when it returns undefined', async () => {
  const clock = new FakeClock();
  const { calls, reconcile } = scripted({ fast: [undefined, undefined, undefined], slow: [undefined, undefined], never: [undefined, undefined] });
  const periods: Record<string, number | undefined> = { fast: 1_000, slow: 5_000, never: undefined };
  const c = new ManagedController({ name: 'c4b', reconcile, clock, logger: quiet, reconcileEveryMs: (r) => periods[r.name] });
  c.watch(synced);
  const stop = new AbortController();
  const running = c.start(stop.signal);
  c.queue.add('ns/fast');
  c.queue.add('ns/slow');
  c.queue.add('ns/never');
  await settle();
  for (let i = 0; i < 5; i++) {
    await clock.step(1_000);
    await settle();
  }
  const count = (name: string): number => calls.filter((k) => k === name).length;
  assert.deepEqual([count('fast'), count('slow'), count('never')], [6, 2, 1]);
  stop.abort();
  await running;
});

test('ManagedController fails to start when its sources do not sync within cacheSyncTimeoutMs', async () => {
  const clock = new FakeClock();
  const c = new ManagedController({ name: 'c5', reconcile: () => undefined, clock, logger: quiet, cacheSyncTimeoutMs: 1000 });
  c.watch({ description: 'kind source: v1, Kind=Never', start() {}, hasSynced: () => false });
  const running = assert.rejects(c.start(new AbortController().signal), /timed out waiting for cache to be synced for kind source: v1, Kind=Never/);
  for (let i = 0; i < 101; i++) await clock.step(10);
  await running;
});

function recording(): { logger: { debug(): void; info(): void; error(m: string, f?: Record<string, unknown>): void }; lines: Array<[string, Record<string, unknown>]> } {
  const lines: Array<[string, Record<string, unknown>]> = [];
  return { lines, logger: { debug() {}, info() {}, error: (m, f) => lines.push([m, f ?? {}]) } };
}

test('ManagedController logs a reconcile panic with its stack ("Observed a panic"), then "Reconciler error" with controller, object and reconcile ID', async () => {
  const clock = new FakeClock();
  const { logger, lines } = recording();
  const c = new ManagedController({
    name: 'ctl',
    clock,
    logger,
    reconcile: function reconcileThatPanics(): Result {
      const obj: { spec?: { replicas: number } } = {};
      return { requeueAfterMs: obj.spec!.replicas };
    },
  });
  c.watch(synced);
  const stop = new AbortController();
  const running = c.start(stop.signal);
  c.queue.add('ns/a');
  await settle();
  stop.abort();
  await running;
  assert.deepEqual(lines.map(([m]) => m), ['Observed a panic', 'Reconciler error']);
  const [[, panic], [, error]] = lines as [[string, Record<string, unknown>], [string, Record<string, unknown>]];
  assert.match(String(panic['panic']), /Cannot read properties of undefined \(reading 'replicas'\)/);
  assert.match(String(panic['stacktrace']), /at (Object\.)?reconcileThatPanics .*controller\.test\.ts/);
  assert.equal(error['controller'], 'ctl');
  assert.equal(error['object'], 'ns/a');
  assert.equal(error['namespace'], 'ns');
  assert.equal(error['name'], 'a');
  assert.match(String(error['reconcileID']), /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  assert.match(String(error['err']), /^panic: Cannot read properties of undefined \(reading 'replicas'\) \[recovered\]$/);
  assert.match(String(error['stacktrace']), /at (Object\.)?reconcileThatPanics/);
});

test('ManagedController logs a reconcile error with its stack and its causes', async () => {
  const clock = new FakeClock();
  const { logger, lines } = recording();
  const c = new ManagedController({
    name: 'ctl',
    clock,
    logger,
    reconcile: function reconcileThatFails(): Result {
      throw new Error('ensure deployment', { cause: new Error('quota exceeded') });
    },
  });
  c.watch(synced);
  const stop = new AbortController();
  const running = c.start(stop.signal);
  c.queue.add('ns/a');
  await settle();
  stop.abort();
  await running;
  assert.equal(lines.length, 1);
  const [message, fields] = lines[0]!;
  assert.equal(message, 'Reconciler error');
  assert.equal(fields['err'], 'ensure deployment');
  assert.match(String(fields['stacktrace']), /^Error: ensure deployment\n\s+at (Object\.)?reconcileThatFails[\s\S]*\nCaused by: Error: quota exceeded\n/);
});

test('a write to a frozen cached object fails with FrozenObjectError: "copy it first (structuredClone / deepCopy)"', async () => {
  const clock = new FakeClock();
  const { logger, lines } = recording();
  const cached = Object.freeze({ metadata: Object.freeze({ name: 'a' }) }) as { metadata: { name: string }; status?: unknown };
  const c = new ManagedController({
    name: 'ctl',
    clock,
    logger,
    reconcile: function setStatus(): Result {
      cached.status = { ready: true };
      return undefined;
    },
  });
  c.watch(synced);
  const stop = new AbortController();
  const running = c.start(stop.signal);
  c.queue.add('ns/a');
  await settle();
  stop.abort();
  await running;
  const error = lines.find(([m]) => m === 'Reconciler error')![1];
  assert.equal(error['err'], 'panic: Cannot add property status, object is not extensible: objects read from the cache are frozen; copy it first (deepCopy(obj) from kubeloom/client) and write the copy [recovered]');
  assert.match(String(error['stacktrace']), /^FrozenObjectError: Cannot add property status[^\n]*\n\s+at (Object\.)?setStatus(?![\s\S]*Caused by)/);
  assert.equal(c.stats().panics, 1);
});

test('ManagedController: on stop, in-flight reconciles see their signal abort at once (controller-runtime cancels the reconcile context)', async () => {
  const clock = new FakeClock();
  const { signals, reconcile } = scripted({ a: ['hang'] });
  const c = new ManagedController({ name: 'c6', reconcile, clock, logger: quiet });
  c.watch(synced);
  const stop = new AbortController();
  const running = c.start(stop.signal);
  c.queue.add('ns/a');
  await settle();
  assert.equal(signals[0]!.aborted, false);
  stop.abort();
  assert.equal(signals[0]!.aborted, true);
  await running;
});
