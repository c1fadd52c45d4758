import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap } from '../src/api/core/v1.ts';
import type { Lease } from '../src/api/coordination/v1.ts';
import { newClientset, type Clientset } from '../src/kubernetes/index.ts';
import { startApiServer } from '../src/testing/index.ts';
import { newListWatchFromClient, SharedIndexInformer } from '../src/tools/cache/index.ts';
import { HASH_SPACE_END, ShardSelector, ShardRing, ShardedController, ClaimsAnnotation, intersectRanges, parseRanges, unionRanges } from '../src/sharding/index.ts';

interface Interval {
  key: string;
  replica: string;
  start: number;
  end: number;
}

class Replica {
  readonly ring: ShardRing;
  readonly informer: SharedIndexInformer<ConfigMap>;
  readonly controller: ShardedController;
  readonly stop = new AbortController();
  done: Promise<unknown> = Promise.resolve();
  readonly id: string;
  constructor(id: string, cs: Clientset, log: Interval[], seen: Map<string, Set<string>>) {
    this.id = id;
    this.ring = new ShardRing({ name: 'ring', namespace: 'default', identity: id, client: cs.coordinationV1().leases('default'), leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 250 });
    this.informer = new SharedIndexInformer<ConfigMap>(newListWatchFromClient(cs.coreV1().configMaps('work')), { shardSelector: ShardSelector.none() });
    this.controller = new ShardedController({
      name: `cm-${id}`,
      ring: this.ring,
      informers: [this.informer],
      workers: 3,
      reconcile: async (key) => {
        const start = performance.now();
        await new Promise((r) => setTimeout(r, 2));
        log.push({ key, replica: id, start, end: performance.now() });
        let s = seen.get(id);
        if (s === undefined) seen.set(id, (s = new Set()));
        s.add(key);
      },
    });
    this.controller.watchFor(this.informer);
  }
  start(): void {
    const signal = this.stop.signal;
    this.done = Promise.all([this.ring.run({ signal }), this.informer.run({ signal }), this.controller.run({ signal })]);
  }
  async halt(): Promise<void> {
    this.stop.abort();
    await this.done;
  }
}

async function until(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await cond())) {
    if (performance.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function assertNoOverlap(log: readonly Interval[]): void {
  const byKey = new Map<string, Interval[]>();
  for (const i of log) {
    let l = byKey.get(i.key);
    if (l === undefined) byKey.set(i.key, (l = []));
    l.push(i);
  }
  for (const [key, list] of byKey) {
    list.sort((a, b) => a.start - b.start);
    for (let i = 1; i < list.length; i++) {
      const a = list[i - 1]!;
      const b = list[i]!;
      assert.ok(!(b.start < a.end && a.replica !== b.replica), `${key}: ${a.replica} [${a.start}, ${a.end}) overlaps ${b.replica} [${b.start}, ${b.end})`);
    }
  }
}

test('three replicas on a shard ring split the objects, hand ranges over without overlap when one leaves, and cover everything', async () => {
  const server = await startApiServer({ controllers: { garbageCollector: false, namespace: false } });
  const cs = newClientset({ host: server.url, qps: -1 }, { maxRetries: 0 });
  const replicas: Replica[] = [];
  try {
    await cs.coreV1().namespaces().create({ metadata: { name: 'work' } });
    const keys: string[] = [];
    for (let i = 0; i < 60; i++) {
      await cs.coreV1().configMaps('work').create({ metadata: { name: `cm-${i}` } });
      keys.push(`work/cm-${i}`);
    }
    const log: Interval[] = [];
    const seen = new Map<string, Set<string>>();
    for (const id of ['r-0', 'r-1', 'r-2']) replicas.push(new Replica(id, cs, log, seen));
    for (const r of replicas) r.start();

    const covered = (rs: Replica[]): boolean => {
      const active = rs.map((r) => r.ring.activeRanges());
      const all = unionRanges([], active.flat());
      return all.length === 1 && all[0]!.start === 0n && all[0]!.end === HASH_SPACE_END && rs.every((r) => r.ring.status().members.length === rs.length);
    };
    await until('three replicas cover the ring', () => covered(replicas));
    // Disjoint ranges, every object reconciled by the replica owning it.
    for (let i = 0; i < 3; i++) for (let j = i + 1; j < 3; j++) assert.deepEqual(intersectRanges(replicas[i]!.ring.activeRanges(), replicas[j]!.ring.activeRanges()), []);
    const ownerOf = (key: string, rs: Replica[]): Replica[] => rs.filter((r) => r.controller.owns(key));
    await until('every object reconciled by its owner', () => keys.every((k) => ownerOf(k, replicas).length === 1 && seen.get(ownerOf(k, replicas)[0]!.id)?.has(k) === true));
    for (const r of replicas) {
      const status = r.controller.status();
      assert.ok(status.activeFraction > 0.1 && status.activeFraction < 0.7, JSON.stringify(status));
      assert.equal(r.controller.readyz()(), undefined);
    }
    // The Leases say who holds what.
    const leases = await cs.coordinationV1().leases('default').list({ labelSelector: 'sharding.kubeloom.io/ring=ring' });
    assert.equal(leases.items.length, 3);
    const claims = leases.items.map((l: Lease) => parseRanges(l.metadata?.annotations?.[ClaimsAnnotation]));
    assert.deepEqual(unionRanges([], claims.flat()), [{ start: 0n, end: HASH_SPACE_END }]);

    // One replica leaves: the other two take its ranges; each of its objects is reconciled again by its new owner.
    const leaving = replicas[1]!;
    const mine = keys.filter((k) => leaving.controller.owns(k));
    assert.ok(mine.length > 0);
    const before = log.length;
    await leaving.halt();
    const rest = [replicas[0]!, replicas[2]!];
    await until('two replicas cover the ring', () => covered(rest));
    await until('moved objects reconciled again', () => mine.every((k) => log.slice(before).some((i) => i.key === k && ownerOf(k, rest).some((r) => r.id === i.replica))));
    assert.equal((await cs.coordinationV1().leases('default').list({ labelSelector: 'sharding.kubeloom.io/ring=ring' })).items.length, 2);

    // A change to one object is reconciled by exactly one replica.
    const mark = log.length;
    await cs.coreV1().configMaps('work').patch('cm-7', 'application/merge-patch+json', { data: { x: '1' } });
    await until('change reconciled', () => log.slice(mark).some((i) => i.key === 'work/cm-7'));
    assert.deepEqual(new Set(log.slice(mark).filter((i) => i.key === 'work/cm-7').map((i) => i.replica)).size, 1);

    // A replica joins again: ranges move back, still without overlap.
    const again = new Replica('r-3', cs, log, seen);
    replicas.push(again);
    again.start();
    await until('three replicas cover the ring again', () => covered([replicas[0]!, replicas[2]!, again]));
    assertNoOverlap(log);
  } finally {
    await Promise.all(replicas.map((r) => r.halt()));
    await server.stop();
  }
});
