import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Event as CoreEvent } from '../../../api/core/v1.ts';
import { FakeClock } from '../../../util/clock/clock.ts';
import { EventCorrelator } from './events-cache.ts';
import { LruCache } from './lru-cache.ts';
import { TokenBucket } from './token-bucket.ts';

function event(reason: string, message: string, name = 'p'): CoreEvent {
  return {
    metadata: { name: `${name}.${reason}.${message}`, namespace: 'ns' },
    involvedObject: { kind: 'Pod', name, namespace: 'ns', uid: 'u' },
    reason,
    message,
    type: 'Normal',
    count: 1,
    firstTimestamp: '2024-01-01T00:00:00Z',
    lastTimestamp: '2024-01-01T00:00:00Z',
    source: { component: 'c', host: 'h' },
  };
}

test('LruCache evicts the least recently used entry; get refreshes recency', () => {
  const lru = new LruCache<number>(2);
  lru.add('a', 1);
  lru.add('b', 2);
  assert.equal(lru.get('a'), 1);
  lru.add('c', 3);
  assert.equal(lru.get('b'), undefined);
  assert.deepEqual([lru.get('a'), lru.get('c'), lru.size], [1, 3, 2]);
});

test('TokenBucket starts full and refills continuously up to its burst', async () => {
  const clock = new FakeClock(0);
  const bucket = new TokenBucket(1, 2, clock);
  assert.deepEqual([bucket.tryAccept(), bucket.tryAccept(), bucket.tryAccept()], [true, true, false]);
  await clock.step(500);
  assert.equal(bucket.tryAccept(), false);
  await clock.step(500);
  assert.equal(bucket.tryAccept(), true);
  await clock.step(10_000);
  assert.deepEqual([bucket.tryAccept(), bucket.tryAccept(), bucket.tryAccept()], [true, true, false]);
});

test('the correlator counts repeats under the name the server gave the first occurrence', () => {
  const clock = new FakeClock(Date.UTC(2024, 0, 1));
  const c = new EventCorrelator({ clock });
  const first = c.eventCorrelate(event('R', 'm'));
  assert.equal(first.skip, false);
  assert.equal(first.skip === false && first.patch, undefined);
  c.updateState({ ...event('R', 'm'), metadata: { name: 'server-name', namespace: 'ns', resourceVersion: '41' } });
  const second = c.eventCorrelate({ ...event('R', 'm'), lastTimestamp: '2024-01-01T00:00:09Z' });
  assert.equal(second.skip, false);
  if (second.skip) return;
  assert.equal(second.event.metadata.name, 'server-name');
  assert.equal(second.event.metadata.resourceVersion, '41');
  assert.equal(second.event.count, 2);
  assert.deepEqual(second.patch, { count: 2, lastTimestamp: '2024-01-01T00:00:09Z', message: 'm' });
});

test('options override the aggregation threshold and spam budget', () => {
  const clock = new FakeClock(Date.UTC(2024, 0, 1));
  const c = new EventCorrelator({ clock, maxEvents: 2, burstSize: 3 });
  const r1 = c.eventCorrelate(event('R', 'a'));
  const r2 = c.eventCorrelate(event('R', 'b'));
  assert.ok(!r1.skip && r1.event.message === 'a');
  assert.ok(!r2.skip && r2.event.message === '(combined from similar events): b');
  assert.equal(c.eventCorrelate(event('S', 'x')).skip, false);
  assert.equal(c.eventCorrelate(event('T', 'x')).skip, true, 'the fourth event about the object exceeds a burst of 3');
});

test('the spam filter budgets each event type apart: a Warning still passes after 25 Normal events (getSpamKey includes the type)', () => {
  const clock = new FakeClock(Date.UTC(2024, 0, 1));
  const c = new EventCorrelator({ clock });
  for (let i = 0; i < 25; i++) assert.equal(c.eventCorrelate(event(`R${i}`, 'x')).skip, false, `normal ${i}`);
  assert.equal(c.eventCorrelate(event('R25', 'x')).skip, true, 'the 26th Normal event exceeds the default burst of 25');
  const warning = { ...event('BackOff', 'crash'), type: 'Warning' };
  assert.equal(c.eventCorrelate(warning).skip, false);
});
