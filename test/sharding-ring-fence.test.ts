import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newClientset } from '../src/kubernetes/index.ts';
import { startApiServer } from '../src/testing/index.ts';
import { FakeClock } from '../src/util/clock/index.ts';
import { HASH_SPACE_END, ShardRing, intersectRanges, type RingLeaseClient, type ShardRange } from '../src/sharding/index.ts';

const everything = (r: readonly ShardRange[]): boolean => r.length === 1 && r[0]!.start === 0n && r[0]!.end === HASH_SPACE_END;

test('a replica that cannot renew gives up its ranges at its renew deadline, and the other takes them only after the lease duration', async () => {
  const server = await startApiServer({ controllers: { garbageCollector: false, namespace: false } });
  const cs = newClientset({ host: server.url, qps: -1 }, { maxRetries: 0 });
  const clock = new FakeClock();
  const leases = cs.coordinationV1().leases('default');
  let partitioned = false;
  // A's view of the API: writes fail while "partitioned".
  const clientA: RingLeaseClient = {
    get: (n, o) => leases.get(n, o),
    create: (l, o) => (partitioned ? Promise.reject(new Error('partitioned')) : leases.create(l, o)),
    update: (l, o) => (partitioned ? Promise.reject(new Error('partitioned')) : leases.update(l, o)),
    delete: (n, o) => leases.delete(n, o),
    list: (o) => leases.list(o),
    watch: (o) => leases.watch(o),
  };
  const events: string[] = [];
  const opts = { name: 'fence', namespace: 'default', clock, leaseDurationMs: 10_000, renewDeadlineMs: 6_000, retryPeriodMs: 1_000, deadLeaseCleanupMs: 0, logger: { debug() {}, info() {}, error() {} } };
  const a = new ShardRing({ ...opts, identity: 'a', client: clientA });
  const b = new ShardRing({ ...opts, identity: 'b', client: leases });
  a.addListener({ onRevoke: async () => void events.push(`${clock.now()} a revoke`), onGrant: () => void events.push(`${clock.now()} a grant`) });
  b.addListener({ onRevoke: async () => void events.push(`${clock.now()} b revoke`), onGrant: () => void events.push(`${clock.now()} b grant`) });
  const stopA = new AbortController();
  const stopB = new AbortController();
  const runA = a.run({ signal: stopA.signal });
  let runB: Promise<void> | undefined;
  const step = async (ms: number): Promise<void> => {
    await clock.step(ms);
    await new Promise((r) => setTimeout(r, 30));
  };
  try {
    // A alone holds the whole ring.
    while (!everything(a.activeRanges())) await step(500);
    runB = b.run({ signal: stopB.signal });
    // B joins: the ranges split with no overlap at any step.
    while (!(a.activeRanges().length > 0 && b.activeRanges().length > 0 && everything([...a.activeRanges(), ...b.activeRanges()].sort((x, y) => (x.start < y.start ? -1 : 1)).reduce<ShardRange[]>((acc, r) => (acc.length > 0 && acc[acc.length - 1]!.end === r.start ? [...acc.slice(0, -1), { start: acc[acc.length - 1]!.start, end: r.end }] : [...acc, r]), [])))) {
      assert.deepEqual(intersectRanges(a.activeRanges(), b.activeRanges()), []);
      await step(500);
    }
    // A is cut off from the API: it revokes everything at its renew deadline; B waits a lease duration.
    partitioned = true;
    const cutAt = clock.now();
    const lastRenewalA = a.status().lastRenewal!;
    events.length = 0;
    while (!everything(b.activeRanges())) {
      assert.deepEqual(intersectRanges(a.activeRanges(), b.activeRanges()), []);
      await step(250);
      assert.ok(clock.now() - cutAt < 60_000, 'B never took over');
    }
    const revokeAt = Number(events.find((e) => e.endsWith('a revoke'))!.split(' ')[0]);
    const grantAt = Number(events.find((e) => e.endsWith('b grant'))!.split(' ')[0]);
    assert.ok(revokeAt <= lastRenewalA + 6_000 + 250, `A revoked at +${revokeAt - lastRenewalA} ms`);
    assert.ok(grantAt >= lastRenewalA + 10_000, `B took over at +${grantAt - lastRenewalA} ms`);
    assert.ok(revokeAt < grantAt);
    assert.deepEqual(a.activeRanges(), []);
  } finally {
    stopA.abort();
    stopB.abort();
    partitioned = false;
    await Promise.all([runA, runB]);
    await server.stop();
  }
});
