// The StorageInterface contract (storage/interface.ts), run against every backend: memory, SQLite
// both as written and reopened from disk (what a restarted server reads), and etcd (a test etcd started
// here; skipped without an etcd binary unless KUBELOOM_REQUIRE_ETCD is set). etcd's revisions start where
// the etcd is, so every revision is read relative to the store's first (`base`).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ResourceVersionConflictError, RevisionCompactedError, Storage, type Change } from '../storage.ts';
import { DataDirectoryError, SqliteBackend } from './sqlite-backend.ts';
import { EtcdBackend } from './etcd-backend.ts';
import type { StorageBackend, StorageSnapshot } from './interface.ts';
import { etcdSkipReason, startTestEtcd, type TestEtcd } from '../../../test/support/etcd.ts';

type Obj = Record<string, unknown>;

interface Harness {
  storage: Storage;
  /** The revision of the empty store: 0, or where the etcd was. */
  base: number;
  /** The store as a server started again on the same data would see it (memory: the same store). */
  reopen(): Storage;
  close(): void;
}

const historySize = 1000;

const etcdSkip = etcdSkipReason();
let etcd: TestEtcd | undefined;
let etcdPrefixes = 0;
if (etcdSkip === undefined) {
  before(async () => {
    etcd = await startTestEtcd();
  });
  after(async () => {
    await etcd?.stop();
  });
}

const backends: ReadonlyArray<{ name: string; skip?: string; open(): Harness }> = [
  {
    name: 'memory',
    open: () => {
      const storage = new Storage(historySize);
      return { storage, base: 0, reopen: () => storage, close: () => {} };
    },
  },
  {
    name: 'sqlite',
    open: () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'kubeloom-storage-'));
      let storage = new Storage(historySize, 0, SqliteBackend.open(dir, { synchronous: 'normal' }));
      return {
        get storage() {
          return storage;
        },
        base: 0,
        reopen: () => {
          storage.backend?.close();
          storage = new Storage(historySize, 0, SqliteBackend.open(dir, { synchronous: 'normal' }));
          return storage;
        },
        close: () => {
          storage.backend?.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    // One etcd for the file, a key prefix per test. etcd keeps no state in the server, and a store opened
    // on the same etcd starts without history (etcd-backend.test.ts covers it), so `reopen` is the store.
    name: 'etcd',
    ...(etcdSkip === undefined ? {} : { skip: etcdSkip }),
    open: () => {
      const storage = new Storage(historySize, 0, EtcdBackend.open([etcd!.url], { prefix: `/contract${++etcdPrefixes}` }));
      return { storage, base: storage.revision, reopen: () => storage, close: () => storage.backend?.close() };
    },
  },
];

const cm = (ns: string, name: string, v: string): Obj => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data: { v } });
// Revisions are shown relative to the store's first (`base`).
let base = 0;
const view = (items: Iterable<{ key: string; rv: number; obj: Obj }>): string[] => [...items].map((s) => `${s.key}@${s.rv - base}=${(s.obj.data as { v: string }).v}`);
const changes = (cs: Change[]): string[] => cs.map((c) => `${c.type} ${c.key}@${c.rv - base}${c.prev === undefined ? '' : ` prev@${c.prev.rv - base}`}`);

for (const backend of backends) {
  const opts = backend.skip === undefined ? {} : { skip: backend.skip };
  const open = (): Harness => {
    const h = backend.open();
    base = h.base;
    return h;
  };
  test(`[${backend.name}] writes take revision + 1, stamped as resourceVersion; lists are in key order, by namespace`, opts, () => {
    const h = open();
    try {
      const s = h.storage;
      assert.equal(s.write('configmaps', 'b/x', 'ADDED', cm('b', 'x', '1')).rv - base, 1);
      const stored = s.write('configmaps', 'a/y', 'ADDED', cm('a', 'y', '1'));
      assert.equal(stored.rv - base, 2);
      assert.equal((stored.obj.metadata as Obj).resourceVersion, String(base + 2));
      assert.equal(stored.json, JSON.stringify(stored.obj));
      s.write('configmaps', 'a/x', 'ADDED', cm('a', 'x', '1'));
      s.write('secrets', 'a/x', 'ADDED', cm('a', 'x', 's'));
      for (const r of [s, h.reopen()]) {
        assert.equal(r.revision - base, 4);
        assert.deepEqual(view(r.listAt('configmaps', r.revision)), ['a/x@3=1', 'a/y@2=1', 'b/x@1=1']);
        assert.deepEqual(view(r.listAt('configmaps', r.revision, { namespace: 'a' })), ['a/x@3=1', 'a/y@2=1']);
        assert.deepEqual(view(r.scan('configmaps', r.revision, { namespace: 'a', startKey: 'a/x\u0000' }).items), ['a/y@2=1']);
        assert.equal(r.count('configmaps'), 3);
        assert.equal(r.get('secrets', 'a/x')!.rv - base, 4);
      }
    } finally {
      h.close();
    }
  });

  test(`[${backend.name}] lists at an older revision and the changes since one, across updates and deletes`, opts, () => {
    const h = open();
    try {
      const s = h.storage;
      s.write('configmaps', 'ns/a', 'ADDED', cm('ns', 'a', '1'));
      s.write('configmaps', 'ns/b', 'ADDED', cm('ns', 'b', '1'));
      s.write('configmaps', 'ns/a', 'MODIFIED', cm('ns', 'a', '2'));
      const gone = s.write('configmaps', 'ns/b', 'DELETED', cm('ns', 'b', '1'));
      assert.equal(gone.rv - base, 4);
      for (const r of [s, h.reopen()]) {
        assert.equal(r.get('configmaps', 'ns/b'), undefined);
        assert.deepEqual(view(r.listAt('configmaps', base + 2)), ['ns/a@1=1', 'ns/b@2=1']);
        assert.deepEqual(view(r.listAt('configmaps', base + 3)), ['ns/a@3=2', 'ns/b@2=1']);
        assert.deepEqual(view(r.listAt('configmaps', base + 4)), ['ns/a@3=2']);
        assert.deepEqual(changes(r.changesSince('configmaps', base + 1)), ['ADDED ns/b@2', 'MODIFIED ns/a@3 prev@1', 'DELETED ns/b@4 prev@2']);
      }
    } finally {
      h.close();
    }
  });

  test(`[${backend.name}] compaction: reads before the compacted revision are 410, the revision stays monotonic`, opts, () => {
    const h = open();
    try {
      const s = h.storage;
      s.write('configmaps', 'ns/a', 'ADDED', cm('ns', 'a', '1'));
      s.write('configmaps', 'ns/a', 'MODIFIED', cm('ns', 'a', '2'));
      s.write('configmaps', 'ns/b', 'ADDED', cm('ns', 'b', '1'));
      s.write('configmaps', 'ns/b', 'DELETED', cm('ns', 'b', '1'));
      s.compact(base + 4);
      for (const r of [s, h.reopen()]) {
        assert.equal(r.compactedRevision - base, 4);
        assert.equal(r.revision - base, 4);
        assert.throws(() => r.changesSince('configmaps', base + 3), RevisionCompactedError);
        assert.throws(() => r.listAt('configmaps', base + 3), RevisionCompactedError);
        assert.deepEqual(view(r.listAt('configmaps', base + 4)), ['ns/a@2=2']);
      }
      // The deletion at the latest revision was compacted away; the next write still takes 5 (on etcd 6:
      // compact.go's compact_rev_key put took 5, outside the watched prefix).
      assert.equal(h.reopen().write('configmaps', 'ns/c', 'ADDED', cm('ns', 'c', '1')).rv - base, backend.name === 'etcd' ? 6 : 5);
    } finally {
      h.close();
    }
  });

  test(`[${backend.name}] listeners see each committed change once; a write the backend refuses changes nothing`, opts, () => {
    const h = open();
    try {
      const s = h.storage;
      const seen: string[] = [];
      const off = s.subscribe('configmaps', (c) => seen.push(`${c.type} ${c.key}@${c.rv - base}`));
      s.subscribeAll((c) => seen.push(`all ${c.store}@${c.rv - base}`));
      s.write('configmaps', 'ns/a', 'ADDED', cm('ns', 'a', '1'));
      off();
      s.write('configmaps', 'ns/b', 'ADDED', cm('ns', 'b', '1'));
      assert.deepEqual(seen, ['ADDED ns/a@1', 'all configmaps@1', 'all configmaps@2']);
      // A backend that cannot make a change durable: the write throws, the store is as before.
      const failing = new Storage(historySize, 0, refusing(s.snapshot()));
      assert.throws(() => failing.write('configmaps', 'ns/c', 'ADDED', cm('ns', 'c', '1')), /disk full/);
      assert.equal(failing.revision - base, 2);
      assert.equal(failing.get('configmaps', 'ns/c'), undefined);
      assert.deepEqual(changes(failing.changesSince('configmaps', base + 0)), ['ADDED ns/a@1', 'ADDED ns/b@2']);
    } finally {
      h.close();
    }
  });

  test(`[${backend.name}] a write pinned to a revision the key is no longer at is a ResourceVersionConflictError and changes nothing`, opts, () => {
    const h = open();
    try {
      const s = h.storage;
      const a1 = s.write('configmaps', 'ns/a', 'ADDED', cm('ns', 'a', '1'));
      const a2 = s.write('configmaps', 'ns/a', 'MODIFIED', cm('ns', 'a', '2'), a1.rv);
      assert.equal(a2.rv - base, 2);
      for (const [type, expected] of [['MODIFIED', a1.rv], ['DELETED', a1.rv], ['MODIFIED', a2.rv + 5]] as const) {
        assert.throws(
          () => s.write('configmaps', 'ns/a', type, cm('ns', 'a', 'stale'), expected),
          (err: unknown) => err instanceof ResourceVersionConflictError && err.expected === expected && err.actual === a2.rv && err.status.code === 409 && err.status.reason === 'Conflict',
        );
      }
      // A key that is gone: actual 0.
      assert.throws(() => s.write('configmaps', 'ns/none', 'MODIFIED', cm('ns', 'none', 'x'), a1.rv), (err: unknown) => err instanceof ResourceVersionConflictError && err.actual === 0);
      assert.equal(s.revision - base, 2);
      assert.deepEqual(view(s.listAt('configmaps', s.revision)), ['ns/a@2=2']);
      assert.equal(s.write('configmaps', 'ns/a', 'DELETED', cm('ns', 'a', '2'), a2.rv).rv - base, 3);
    } finally {
      h.close();
    }
  });

  test(`[${backend.name}] a store restored from a snapshot is isolated from the original and continues its revisions`, opts, () => {
    const h = open();
    try {
      const s = h.storage;
      s.write('configmaps', 'ns/a', 'ADDED', cm('ns', 'a', '1'));
      const snap = s.snapshot();
      const copy = new Storage(historySize);
      copy.restore(snap);
      assert.equal(copy.write('configmaps', 'ns/b', 'ADDED', cm('ns', 'b', 'copy')).rv - base, 2);
      assert.equal(s.write('configmaps', 'ns/a', 'MODIFIED', cm('ns', 'a', 'orig')).rv - base, 2);
      assert.deepEqual(view(copy.listAt('configmaps', copy.revision)), ['ns/a@1=1', 'ns/b@2=copy']);
      assert.deepEqual(view(s.listAt('configmaps', s.revision)), ['ns/a@2=orig']);
      assert.deepEqual(view(snap.objects.get('configmaps')!.values()), ['ns/a@1=1']);
    } finally {
      h.close();
    }
  });
}

test('[sqlite] the history kept on disk follows the in-memory one: a reopened store serves watches from before the restart', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kubeloom-storage-'));
  base = 0;
  try {
    let s = new Storage(3, 0, SqliteBackend.open(dir, { synchronous: 'normal' }));
    for (let i = 1; i <= 5; i++) s.write('configmaps', `ns/c${i}`, 'ADDED', cm('ns', `c${i}`, String(i)));
    s.backend?.close();
    s = new Storage(3, 0, SqliteBackend.open(dir, { synchronous: 'normal' }));
    // Only the newest 3 changes are retained in memory, as before the restart.
    assert.equal(s.compactedRevision, 2);
    assert.deepEqual(changes(s.changesSince('configmaps', 2)), ['ADDED ns/c3@3', 'ADDED ns/c4@4', 'ADDED ns/c5@5']);
    assert.throws(() => s.changesSince('configmaps', 1), RevisionCompactedError);
    // One server per directory.
    assert.throws(() => SqliteBackend.open(dir), DataDirectoryError);
    s.backend?.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// A backend holding `state` whose appends all fail.
function refusing(state: StorageSnapshot): StorageBackend {
  return {
    kind: 'memory',
    describe: () => 'refusing',
    load: () => state,
    append: () => {
      throw new Error('disk full');
    },
    compact: () => {},
    close: () => {},
  };
}
