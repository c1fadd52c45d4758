import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ShardRange } from '../apimachinery/sharding/selector.ts';
import { FakeClock } from '../util/clock/clock.ts';
import { noopLogger } from '../tools/events/logger.ts';
import { FakeLeaseClient, FakeLeaseStore } from '../tools/leaderelection/resourcelock/fake-lease-client.ts';
import { ShardRing } from './shard-ring.ts';

test('a member that stops renewing (kill -9) has its ranges taken over exactly one lease duration after its last renewal was seen', async () => {
  const clock = new FakeClock();
  const t0 = clock.now();
  const store = new FakeLeaseStore();
  const grants: Record<string, Array<{ at: number; ranges: readonly ShardRange[] }>> = { a: [], b: [] };
  const start = (id: string): { ring: ShardRing; client: FakeLeaseClient; stop: AbortController; run: Promise<void> } => {
    const client = new FakeLeaseClient({ store });
    const ring = new ShardRing({ name: 'r', namespace: 'default', identity: id, client, clock, logger: noopLogger, random: () => 0.5 });
    ring.addListener({ onGrant: (ranges) => grants[id]!.push({ at: clock.now() - t0, ranges }), onRevoke: () => Promise.resolve() });
    const stop = new AbortController();
    return { ring, client, stop, run: ring.run({ signal: stop.signal }) };
  };
  const a = start('a');
  const b = start('b');
  for (let i = 0; i < 100 && !(a.ring.status().members.length === 2 && a.ring.activeRanges().length > 0 && b.ring.activeRanges().length > 0); i++) await clock.step(500);
  assert.deepEqual(b.ring.status().members.sort(), ['a', 'b']);
  // a's process dies: every later call of its client hangs, so it renews no more.
  for (let i = 0; i < 200; i++) for (const verb of ['get', 'update', 'list', 'create', 'delete'] as const) a.client.inject({ verb, hang: true });
  const lastRenewal = Date.parse(store.leases.get('r-a')!.spec!.renewTime!) - t0;
  const before = grants['b']!.length;
  while (grants['b']!.length === before && clock.now() - t0 < lastRenewal + 40_000) await clock.step(100);
  const takeover = grants['b']![before]!;
  // b saw a's last renewal through its watch at once; its next wake is a's expiry, not a later retry tick.
  assert.equal(takeover.at, lastRenewal + 15_000);
  assert.ok(takeover.ranges.length > 0);
  assert.deepEqual(b.ring.status().members, ['b']);
  b.stop.abort();
  a.stop.abort();
  await b.run;
});
