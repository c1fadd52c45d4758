import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { FakeClock } from '../util/clock/clock.ts';
import { NetworkError, reachabilityOf } from './errors.ts';
import { Reachability, isServingStatus, isUnreachableError } from './reachability.ts';

const never = (): Promise<number> => new Promise<number>(() => {});

test('a serving answer to any request ends the outage and wakes every waiter, spread over wakeSpreadMs', async () => {
  const clock = new FakeClock();
  const r = new Reachability({ clock, httpProbe: never, wakeSpreadMs: 500, random: () => 0.5 });
  const start = clock.now();
  assert.equal(r.reachable, true);
  await r.whenReachable(new AbortController().signal); // nothing known: at once
  r.reportUnreachable();
  assert.equal(r.reachable, false);
  const woken: number[] = [];
  const waiters = [r.whenReachable(new AbortController().signal), r.whenReachable(new AbortController().signal)].map(async (p) => {
    await p;
    woken.push(clock.now() - start);
  });
  assert.equal(r.waiterCount(), 2);
  // 429 and 5xx are a server that is up but cannot serve: still waiting.
  r.reportResponse(429);
  r.reportResponse(503);
  await clock.step(1_000);
  assert.deepEqual(woken, []);
  r.reportResponse(200);
  assert.equal(r.reachable, true);
  await clock.step(249);
  assert.deepEqual(woken, []);
  await clock.step(1);
  await Promise.all(waiters);
  assert.deepEqual(woken, [1_250, 1_250]);
  assert.deepEqual(r.stats(), { outages: 1, recoveries: 1, tcpProbes: 0, httpProbes: 1 });
  r.close();
});

test('without a TCP stage (a proxy in between) the HTTP probe runs at most every 4 s once backed off, and only while someone waits', async () => {
  const clock = new FakeClock();
  const start = clock.now();
  const probes: number[] = [];
  const r = new Reachability({
    clock,
    httpProbe: () => {
      probes.push(clock.now() - start);
      return Promise.reject(new Error('socket hang up'));
    },
  });
  r.reportUnreachable();
  const waiting = new AbortController();
  const p = r.whenReachable(waiting.signal).catch(() => 'aborted');
  for (let i = 0; i < 300; i++) await clock.step(100);
  // TCP-stage ticks at 250, 750, 1 750, then every 1 000; HTTP at most after 1, 2, 4, 4, … s.
  assert.deepEqual(probes.slice(0, 4), [250, 1_750, 3_750, 7_750]);
  for (let i = 4; i < probes.length; i++) assert.ok(probes[i]! - probes[i - 1]! >= 4_000);
  assert.ok(probes.length <= 3 + Math.ceil(30_000 / 4_000));
  waiting.abort();
  assert.equal(await p, 'aborted');
  const count = probes.length;
  for (let i = 0; i < 100; i++) await clock.step(100);
  assert.equal(probes.length, count, 'no probe once nobody waits');
  r.close();
});

test('the TCP stage sends no request while connections are refused, and probes over HTTP once one is accepted', async () => {
  const clock = new FakeClock();
  // A port that refuses: bound once, then closed.
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', () => resolve()));
  const port = (holder.address() as { port: number }).port;
  await new Promise<void>((resolve) => holder.close(() => resolve()));
  let http = 0;
  const r = new Reachability({
    clock,
    tcpTarget: { host: '127.0.0.1', port },
    httpProbe: () => {
      http++;
      return Promise.resolve(200);
    },
    wakeSpreadMs: 0,
  });
  r.reportUnreachable();
  let woken = false;
  const p = r.whenReachable(new AbortController().signal).then(() => (woken = true));
  const realTurn = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 5));
  for (let i = 0; i < 50; i++) {
    await clock.step(100);
    await realTurn();
  }
  assert.equal(http, 0);
  assert.ok(r.stats().tcpProbes >= 4, `tcp probes: ${r.stats().tcpProbes}`);
  assert.equal(woken, false);
  const server = createServer((s) => s.destroy());
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  try {
    for (let i = 0; i < 30 && !woken; i++) {
      await clock.step(100);
      await realTurn();
    }
    await p;
    assert.equal(http, 1);
    assert.equal(r.reachable, true);
  } finally {
    r.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

test('errors: which ones mean unreachable, and a NetworkError carries its client’s Reachability', () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
  assert.equal(isUnreachableError(refused), true);
  assert.equal(isUnreachableError(new Error('outer', { cause: Object.assign(new Error('x'), { code: 'UND_ERR_SOCKET' }) })), true);
  assert.equal(isUnreachableError(new AggregateError([Object.assign(new Error('x'), { code: 'ECONNRESET' })])), true);
  assert.equal(isUnreachableError(new Error('bad json')), false);
  assert.deepEqual([200, 401, 404, 429, 500, 503].map(isServingStatus), [true, true, true, false, false, false]);
  const r = new Reachability({ clock: new FakeClock(), httpProbe: never });
  const err = new NetworkError('GET http://x/api', refused, r);
  assert.equal(reachabilityOf(err), r);
  assert.equal(reachabilityOf(new Error('wrapped', { cause: err })), r);
  assert.equal(reachabilityOf(refused), undefined);
  assert.equal(Object.keys(err).includes('reachability'), false, 'not enumerable: logs stay short');
});
