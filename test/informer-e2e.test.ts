/**
 * End-to-end: a SharedIndexInformer against the embedded API server over HTTP, through the typed
 * clientset, under injected faults. After every scenario the informer's cache must equal the
 * server's contents exactly (keys and resourceVersions).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap } from '../src/api/core/v1.ts';
import { startApiServer, type ApiServer } from '../src/testing/index.ts';
import { newClientset, type Clientset } from '../src/kubernetes/index.ts';
import type { ListOptions } from '../src/apimachinery/options.ts';
import { DeletedFinalStateUnknown, ListWatch, SharedIndexInformer, newListWatchFromClient, waitForCacheSync, type ListerWatcher } from '../src/tools/cache/index.ts';

interface Harness {
  server: ApiServer;
  cs: Clientset;
  informer: SharedIndexInformer<ConfigMap>;
  lw: ListerWatcher<ConfigMap> & { lists: ListOptions[]; watches: ListOptions[]; holdWatches(): () => void };
  deletes: string[];
  adds: string[];
  stop: AbortController;
  running: Promise<void>;
}

/** Wraps the clientset's ListerWatcher to record calls and optionally hold new watches back. */
function recordingListerWatcher(base: ListerWatcher<ConfigMap>): Harness['lw'] {
  const lists: ListOptions[] = [];
  const watches: ListOptions[] = [];
  let gate: Promise<void> | undefined;
  const lw = new ListWatch<ConfigMap>({
    list: (o) => {
      const { signal: _s, ...rest } = o;
      lists.push(rest);
      return base.list(o);
    },
    watch: async (o) => {
      const { signal: _s, ...rest } = o;
      watches.push(rest);
      if (gate !== undefined) await gate;
      return base.watch(o);
    },
  });
  return Object.assign(lw, {
    lists,
    watches,
    holdWatches: (): (() => void) => {
      let release!: () => void;
      gate = new Promise<void>((r) => (release = r));
      return () => {
        gate = undefined;
        release();
      };
    },
  });
}

async function until(what: string, cond: () => boolean | Promise<boolean>, limitMs = 15_000): Promise<void> {
  const deadline = performance.now() + limitMs;
  while (!(await cond())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function serverState(cs: Clientset): Promise<string[]> {
  const list = await cs.coreV1().configMaps('default').list();
  return list.items.map((c) => `${c.metadata?.name ?? ''}@${c.metadata?.resourceVersion ?? ''}`).sort();
}

function cacheState(informer: SharedIndexInformer<ConfigMap>): string[] {
  return informer
    .getStore()
    .list()
    .map((c) => `${c.metadata?.name ?? ''}@${c.metadata?.resourceVersion ?? ''}`)
    .sort();
}

async function converged(h: Harness): Promise<void> {
  let last: [string[], string[]] = [[], []];
  try {
    await until('the cache to equal the server', async () => {
      last = [cacheState(h.informer), await serverState(h.cs)];
      return JSON.stringify(last[0]) === JSON.stringify(last[1]);
    });
  } catch (err) {
    assert.deepEqual(last[0], last[1]);
    throw err;
  }
}

async function withInformer(fn: (h: Harness) => Promise<void>, options: { useWatchList?: boolean } = {}): Promise<void> {
  const server = await startApiServer();
  const cs = newClientset({ host: server.url, qps: -1 });
  const stop = new AbortController();
  try {
    for (let i = 0; i < 5; i++) await cs.coreV1().configMaps('default').create({ metadata: { name: `cm-${i}` }, data: { v: '0' } });
    const lw = recordingListerWatcher(newListWatchFromClient(cs.coreV1().configMaps('default')));
    const informer = new SharedIndexInformer<ConfigMap>(lw, {
      objectDescription: 'configmaps',
      // Short backoffs keep the test quick; the backoff policy itself is unit-tested on a fake clock.
      reflector: { backoffManager: { nextDelay: () => 20 }, useWatchList: options.useWatchList ?? true },
    });
    informer.setWatchErrorHandler(() => {});
    const deletes: string[] = [];
    const adds: string[] = [];
    informer.addEventHandler({
      onAdd: (c) => void adds.push(c.metadata?.name ?? ''),
      onDelete: (c) => void deletes.push(c instanceof DeletedFinalStateUnknown ? `tombstone ${c.key}` : `delete default/${c.metadata?.name ?? ''}`),
    });
    const running = informer.run({ signal: stop.signal });
    assert.equal(await waitForCacheSync(stop.signal, () => informer.hasSynced()), true);
    await converged({ server, cs, informer, lw, deletes, adds, stop, running });
    await fn({ server, cs, informer, lw, deletes, adds, stop, running });
    stop.abort();
    await running;
  } finally {
    stop.abort();
    await server.stop();
  }
}

const cms = (h: Harness) => h.cs.coreV1().configMaps('default');

test('informer e2e: initial sync by watch-list, then live changes', async () => {
  await withInformer(async (h) => {
    assert.equal(h.lw.watches[0]?.sendInitialEvents, true);
    assert.equal(h.lw.lists.length, 0);
    await cms(h).create({ metadata: { name: 'new' } });
    await cms(h).delete('cm-0');
    await cms(h).update({ metadata: { name: 'cm-1' }, data: { v: '1' } });
    await converged(h);
    assert.ok(h.deletes.includes('delete default/cm-0'));
  });
});

test('informer e2e: initial sync by LIST when watch-list is off', async () => {
  await withInformer(
    async (h) => {
      assert.deepEqual(h.lw.lists[0], { resourceVersion: '0', limit: 500 });
      await cms(h).create({ metadata: { name: 'new' } });
      await converged(h);
    },
    { useWatchList: false },
  );
});

test('informer e2e: the server closes the watch; the informer resumes without relisting', async () => {
  await withInformer(async (h) => {
    const lists = h.lw.lists.length;
    const watches = h.lw.watches.length;
    h.server.faults.closeWatches('configmaps');
    await cms(h).create({ metadata: { name: 'after-close' } });
    await until('a new watch', () => h.lw.watches.length > watches);
    await converged(h);
    assert.equal(h.lw.lists.length, lists);
  });
});

test('informer e2e: a watch cut in the middle of an event is resumed and the event is not lost', async () => {
  await withInformer(async (h) => {
    h.server.faults.cutNextWatchEvent('configmaps');
    await cms(h).create({ metadata: { name: 'cut' } });
    await cms(h).create({ metadata: { name: 'after-cut' } });
    await converged(h);
    assert.ok(h.adds.includes('cut') && h.adds.includes('after-cut'));
  });
});

test('informer e2e: 410 after compaction while objects were deleted; the handler sees those deletes', async () => {
  await withInformer(async (h) => {
    const release = h.lw.holdWatches();
    const watches = h.lw.watches.length;
    h.server.faults.closeWatches('configmaps');
    await until('the informer to re-watch', () => h.lw.watches.length > watches);
    // While the informer is disconnected: deletions it will never see as events, then compaction.
    await cms(h).delete('cm-2');
    await cms(h).delete('cm-3');
    await cms(h).create({ metadata: { name: 'while-away' } });
    h.server.faults.compact();
    release();
    await converged(h);
    assert.ok(h.deletes.includes('tombstone default/cm-2'), h.deletes.join());
    assert.ok(h.deletes.includes('tombstone default/cm-3'), h.deletes.join());
    assert.ok(h.adds.includes('while-away'));
  });
});

test('informer e2e: a 429 storm on watch is retried with backoff without relisting', async () => {
  await withInformer(async (h) => {
    const lists = h.lw.lists.length;
    const watches = h.lw.watches.length;
    h.server.faults.failNext({ verb: 'watch', resource: 'configmaps', status: 429, count: 5, retryAfterSeconds: 0 });
    h.server.faults.closeWatches('configmaps');
    await cms(h).create({ metadata: { name: 'after-storm' } });
    await converged(h);
    assert.ok(h.lw.watches.length >= watches + 6, `${h.lw.watches.length - watches} watch attempts`);
    assert.equal(h.lw.lists.length, lists);
  });
});

test('informer e2e: the server restarts; the informer reconnects and catches up', async () => {
  await withInformer(async (h) => {
    await h.server.faults.restart();
    await cms(h).create({ metadata: { name: 'after-restart' } });
    await cms(h).delete('cm-4');
    await converged(h);
    assert.ok(h.deletes.includes('delete default/cm-4') || h.deletes.includes('tombstone default/cm-4'));
  });
});
