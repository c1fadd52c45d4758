// The StorageInterface contract (storage/interface.ts), run against every backend: memory, and SQLite
// both as written and reopened from disk (what a restarted server reads).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RevisionCompactedError, Storage, type Change } from '../storage.ts';
import { DataDirectoryError, SqliteBackend } from './sqlite-backend.ts';
import type { StorageBackend, StorageSnapshot } from './interface.ts';

type Obj = Record<string, unknown>;

interface Harness {
  storage: Storage;
  /** The store as a server started again on the same data would see it (memory: the same store). */
  reopen(): Storage;
  close(): void;
}

const historySize = 1000;

const backends: ReadonlyArray<{ name: string; open(): Harness }> = [
  {
    name: 'memory',
    open: () => {
      const storage = new Storage(historySize);
      return { storage, reopen: () => storage, close: () => {} };
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
];

const cm = (ns: string, name: string, v: string): Obj => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data: { v } });
const view = (items: Iterable<{ key: string; rv: number; obj: Obj }>): string[] => [...items].map((s) => `${s.key}@${s.rv}=${(s.obj.data as { v: string }).v}`);
const changes = (cs: Change[]): string[] => cs.map((c) => `${c.type} ${c.key}@${c.rv}${c.prev === undefined ? '' : ` prev@${c.prev.rv}`}`);

for (const backend of backends) {
  test(`[${backend.name}] writes take revision + 1, stamped as resourceVersion; lists are in key order, by namespace`, () => {
    const h = backend.open();
    try {
      const s = h.storage;
      assert.equal(s.write('configmaps', 'b/x', 'ADDED', cm('b', 'x', '1')).rv, 1);
      const stored = s.write('configmaps', 'a/y', 'ADDED', cm('a', 'y', '1'));
      assert.equal(stored.rv, 2);
      assert.equal((stored.obj.metadata as Obj).resourceVersion, '2');
      assert.equal(stored.json, JSON.stringify(stored.obj));
      s.write('configmaps', 'a/x', 'ADDED', cm('a', 'x', '1'));
      s.write('secrets', 'a/x', 'ADDED', cm('a', 'x', 's'));
      for (const r of [s, h.reopen()]) {
        assert.equal(r.revision, 4);
        assert.deepEqual(view(r.listAt('configmaps', r.revision)), ['a/x@3=1', 'a/y@2=1', 'b/x@1=1']);
        assert.deepEqual(view(r.listAt('configmaps', r.revision, { namespace: 'a' })), ['a/x@3=1', 'a/y@2=1']);
        assert.deepEqual(view(r.scan('configmaps', r.revision, { namespace: 'a', startKey: 'a/x\u0000' }).items), ['a/y@2=1']);
        assert.equal(r.count('configmaps'), 3);
        assert.equal(r.get('secrets', 'a/x')?.rv, 4);
      }
    } finally {
      h.close();
    }
  });

  test(`[${backend.name}] lists at an older revision and the changes since one, across updates and deletes`, () => {
    const h = backend.open();
    try {
      const s = h.storage;
      s.write('configmaps', 'ns/a', 'ADDED', cm('ns', 'a', '1'));
      s.write('configmaps', 'ns/b', 'ADDED', cm('ns', 'b', '1'));
      s.write('configmaps', 'ns/a', 'MODIFIED', cm('ns', 'a', '2'));
      const gone = s.write('configmaps', 'ns/b', 'DELETED', cm('ns', 'b', '1'));
      assert.equal(gone.rv, 4);
      for (const r of [s, h.reopen()]) {
        assert.equal(r.get('configmaps', 'ns/b'), undefined);
        assert.deepEqual(view(r.listAt('configmaps', 2)), ['ns/a@1=1', 'ns/b@2=1']);
        assert.deepEqual(view(r.listAt('configmaps', 3)), ['ns/a@3=2', 'ns/b@2=1']);
        assert.deepEqual(view(r.listAt('configmaps', 4)), ['ns/a@3=2']);
        assert.deepEqual(changes(r.changesSince('configmaps', 1)), ['ADDED ns/b@2', 'MODIFIED ns/a@3 prev@1', 'DELETED ns/b@4 prev@2']);
      }
    } finally {
      h.close();
    }
  });

  test(`[${backend.name}] compaction: reads before the compacted revision are 410, the revision stays monotonic`, () => {
    const h = backend.open();
    try {
      const s = h.storage;
      s.write('configmaps', 'ns/a', 'ADDED', cm('ns', 'a', '1'));
      s.write('configmaps', 'ns/a', 'MODIFIED', cm('ns', 'a', '2'));
      s.write('configmaps', 'ns/b', 'ADDED', cm('ns', 'b', '1'));
      s.write('configmaps', 'ns/b', 'DELETED', cm('ns', 'b', '1'));
      s.compact(4);
      for (const r of [s, h.reopen()]) {
        assert.equal(r.compactedRevision, 4);
        assert.equal(r.revision, 4);
        assert.throws(() => r.changesSince('configmaps', 3), RevisionCompactedError);
        assert.throws(() => r.listAt('configmaps', 3), RevisionCompactedError);
        assert.deepEqual(view(r.listAt('configmaps', 4)), ['ns/a@2=2']);
      }
      // The deletion at the latest revision was compacted away; the next write still takes 5.
      assert.equal(h.reopen().write('configmaps', 'ns/c', 'ADDED', cm('ns', 'c', '1')).rv, 5);
    } finally {
      h.close();
    }
  });

  test(`[${backend.name}] listeners see each committed change once; a write the backend refuses changes nothing`, () => {
    const h = backend.open();
    try {
      const s = h.storage;
      const seen: string[] = [];
      const off = s.subscribe('configmaps', (c) => seen.push(`${c.type} ${c.key}@${c.rv}`));
      s.subscribeAll((c) => seen.push(`all ${c.store}@${c.rv}`));
      s.write('configmaps', 'ns/a', 'ADDED', cm('ns', 'a', '1'));
      off();
      s.write('configmaps', 'ns/b', 'ADDED', cm('ns', 'b', '1'));
      assert.deepEqual(seen, ['ADDED ns/a@1', 'all configmaps@1', 'all configmaps@2']);
      // A backend that cannot make a change durable: the write throws, the store is as before.
      const failing = new Storage(historySize, 0, refusing(s.snapshot()));
      assert.throws(() => failing.write('configmaps', 'ns/c', 'ADDED', cm('ns', 'c', '1')), /disk full/);
      assert.equal(failing.revision, 2);
      assert.equal(failing.get('configmaps', 'ns/c'), undefined);
      assert.deepEqual(changes(failing.changesSince('configmaps', 0)), ['ADDED ns/a@1', 'ADDED ns/b@2']);
    } finally {
      h.close();
    }
  });

  test(`[${backend.name}] a store restored from a snapshot is isolated from the original and continues its revisions`, () => {
    const h = backend.open();
    try {
      const s = h.storage;
      s.write('configmaps', 'ns/a', 'ADDED', cm('ns', 'a', '1'));
      const snap = s.snapshot();
      const copy = new Storage(historySize);
      copy.restore(snap);
      assert.equal(copy.write('configmaps', 'ns/b', 'ADDED', cm('ns', 'b', 'copy')).rv, 2);
      assert.equal(s.write('configmaps', 'ns/a', 'MODIFIED', cm('ns', 'a', 'orig')).rv, 2);
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
