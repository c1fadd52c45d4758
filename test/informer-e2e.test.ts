/**
 * End-to-end: a SharedIndexInformer over HTTP, through the typed clientset, against either backend
 * (see test/support/backend.ts) and, on the embedded server, under injected faults. After every
 * scenario the informer's cache must equal the server's contents exactly (keys and resourceVersions).
 */
import assert from 'node:assert/strict';
import type { ConfigMap, Event as CoreEvent } from '../src/api/core/v1.ts';
import type { KubeObject } from '../src/apimachinery/object.ts';
import type { ListOptions } from '../src/apimachinery/options.ts';
import type { ResourceClient } from '../src/kubernetes/index.ts';
import { DeletedFinalStateUnknown, ListWatch, SharedIndexInformer, newListWatchFromClient, waitForCacheSync, type ListerWatcher } from '../src/tools/cache/index.ts';
import { Capability, e2eTest, type E2eEnv } from './support/backend.ts';

type Obj = KubeObject;

/** What the informer follows: a namespaced resource and how to make one of its objects. */
interface Subject {
  client: ResourceClient<Obj>;
  make(name: string): Obj;
}

const configMaps = (env: E2eEnv): Subject => ({
  client: env.cs.coreV1().configMaps(env.namespace) as ResourceClient<Obj>,
  make: (name) => ({ metadata: { name }, data: { v: '0' } }) satisfies ConfigMap,
});

/**
 * core/v1 Events: kube-apiserver serves them without a watch cache, so a watch resumed from a
 * resourceVersion etcd has compacted away gets 410 (cached resources are resumed from the watch
 * cache's window whatever etcd compacted). The embedded server compacts every resource alike.
 */
const events = (env: E2eEnv): Subject => ({
  client: env.cs.coreV1().events(env.namespace) as ResourceClient<Obj>,
  make: (name) => ({ metadata: { name }, involvedObject: { kind: 'Pod', name: 'p', namespace: env.namespace }, reason: 'Test', message: name, type: 'Normal' }) satisfies CoreEvent,
});

interface Harness {
  env: E2eEnv;
  subject: Subject;
  informer: SharedIndexInformer<Obj>;
  lw: RecordingListerWatcher;
  deletes: string[];
  adds: string[];
}

type RecordingListerWatcher = ListerWatcher<Obj> & { lists: ListOptions[]; watches: ListOptions[]; holdWatches(): () => void };

/**
 * Wraps the clientset's ListerWatcher to record calls and optionally hold new watches back; with
 * `watchTimeoutSeconds` every watch asks the server to end it after that long (a real server closing
 * watches, on either backend).
 */
function recordingListerWatcher(base: ListerWatcher<Obj>, watchTimeoutSeconds: number | undefined): RecordingListerWatcher {
  const lists: ListOptions[] = [];
  const watches: ListOptions[] = [];
  let gate: Promise<void> | undefined;
  const lw = new ListWatch<Obj>({
    list: (o) => {
      const { signal: _s, ...rest } = o;
      lists.push(rest);
      return base.list(o);
    },
    watch: async (o) => {
      const options = watchTimeoutSeconds !== undefined ? { ...o, timeoutSeconds: watchTimeoutSeconds } : o;
      const { signal: _s, ...rest } = options;
      watches.push(rest);
      if (gate !== undefined) await gate;
      return base.watch(options);
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

/** Polls `cond` (a guard against hanging, not a timing assertion). */
async function until(what: string, cond: () => boolean | Promise<boolean>, limitMs = 60_000): Promise<void> {
  const deadline = performance.now() + limitMs;
  while (!(await cond())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const state = (objects: Obj[]): string[] => objects.map((c) => `${c.metadata?.name ?? ''}@${c.metadata?.resourceVersion ?? ''}`).sort();

async function converged(h: Harness): Promise<void> {
  let last: [string[], string[]] = [[], []];
  try {
    await until('the cache to equal the server', async () => {
      last = [state(h.informer.getStore().list()), state((await h.subject.client.list()).items)];
      return JSON.stringify(last[0]) === JSON.stringify(last[1]);
    });
  } catch (err) {
    assert.deepEqual(last[0], last[1]);
    throw err;
  }
}

interface HarnessOptions {
  useWatchList?: boolean;
  subject?: (env: E2eEnv) => Subject;
  watchTimeoutSeconds?: number;
}

async function withInformer(env: E2eEnv, fn: (h: Harness) => Promise<void>, options: HarnessOptions = {}): Promise<void> {
  const subject = (options.subject ?? configMaps)(env);
  const stop = new AbortController();
  for (let i = 0; i < 5; i++) await subject.client.create(subject.make(`obj-${i}`));
  const lw = recordingListerWatcher(newListWatchFromClient(subject.client), options.watchTimeoutSeconds);
  const informer = new SharedIndexInformer<Obj>(lw, {
    objectDescription: subject.client.resource,
    // Short backoffs keep the test quick; the backoff policy itself is unit-tested on a fake clock.
    reflector: { backoffManager: { nextDelay: () => 20 }, useWatchList: options.useWatchList ?? true },
  });
  informer.setWatchErrorHandler(() => {});
  const deletes: string[] = [];
  const adds: string[] = [];
  informer.addEventHandler({
    onAdd: (c) => void adds.push(c.metadata?.name ?? ''),
    onDelete: (c) => void deletes.push(c instanceof DeletedFinalStateUnknown ? `tombstone ${c.key}` : `delete ${c.metadata?.name ?? ''}`),
  });
  const running = informer.run({ signal: stop.signal });
  try {
    assert.equal(await waitForCacheSync(stop.signal, () => informer.hasSynced()), true);
    const h: Harness = { env, subject, informer, lw, deletes, adds };
    await converged(h);
    await fn(h);
  } finally {
    stop.abort();
    await running;
  }
}

e2eTest('informer e2e: initial sync by watch-list where the server streams lists, by LIST after the fallback where it does not; then live changes', async (env) => {
  await withInformer(env, async (h) => {
    assert.equal(h.lw.watches[0]?.sendInitialEvents, true, 'the first request is a watch-list');
    if (env.has(Capability.WatchList)) {
      assert.equal(h.lw.lists.length, 0);
    } else {
      // A server without the WatchList feature refuses the watch-list (1.24: 422): the reflector falls back to LIST.
      // The first LIST of a freezing informer without a transform shares identical parts (protobuf answers).
      assert.deepEqual(h.lw.lists[0], { resourceVersion: '0', limit: 500, internManagedFields: true, shareIdenticalParts: true });
    }
    const cms = h.subject.client;
    await cms.create({ metadata: { name: 'new' } });
    await cms.delete('obj-0');
    await cms.update({ metadata: { name: 'obj-1' }, data: { v: '1' } } as ConfigMap);
    await converged(h);
    assert.ok(h.deletes.includes('delete obj-0'));
  });
});

e2eTest('informer e2e: initial sync by LIST when watch-list is off', async (env) => {
  await withInformer(
    env,
    async (h) => {
      // The first LIST of a freezing informer without a transform shares identical parts (protobuf answers).
      assert.deepEqual(h.lw.lists[0], { resourceVersion: '0', limit: 500, internManagedFields: true, shareIdenticalParts: true });
      await h.subject.client.create({ metadata: { name: 'new' } });
      await converged(h);
    },
    { useWatchList: false },
  );
});

e2eTest('informer e2e: the server ends the watch (timeoutSeconds); the informer resumes without relisting', async (env) => {
  await withInformer(
    env,
    async (h) => {
      const lists = h.lw.lists.length;
      const watches = h.lw.watches.length;
      await until('a new watch', () => h.lw.watches.length > watches);
      await h.subject.client.create({ metadata: { name: 'after-close' } });
      await until('another new watch', () => h.lw.watches.length > watches + 1);
      await h.subject.client.create({ metadata: { name: 'after-second-close' } });
      await converged(h);
      assert.equal(h.lw.lists.length, lists);
      assert.deepEqual(
        h.lw.watches.slice(watches).map((w) => w.sendInitialEvents),
        h.lw.watches.slice(watches).map(() => undefined),
        'plain watches resumed from the last resourceVersion, no watch-list relist',
      );
      assert.ok(h.adds.includes('after-close') && h.adds.includes('after-second-close'));
    },
    // Two seconds: a watch that ends within a second with no event counts as failed (client-go's
    // "very short watch"), and that makes the reflector relist.
    { watchTimeoutSeconds: 2 },
  );
});

e2eTest('informer e2e: the server closes the watch at once; the informer resumes without relisting', { needs: [Capability.Faults] }, async (env) => {
  await withInformer(env, async (h) => {
    const lists = h.lw.lists.length;
    const watches = h.lw.watches.length;
    env.faults.closeWatches('configmaps');
    await h.subject.client.create({ metadata: { name: 'after-close' } });
    await until('a new watch', () => h.lw.watches.length > watches);
    await converged(h);
    assert.equal(h.lw.lists.length, lists);
  });
});

e2eTest('informer e2e: a watch cut in the middle of an event is resumed and the event is not lost', { needs: [Capability.Faults] }, async (env) => {
  await withInformer(env, async (h) => {
    env.faults.cutNextWatchEvent('configmaps');
    await h.subject.client.create({ metadata: { name: 'cut' } });
    await h.subject.client.create({ metadata: { name: 'after-cut' } });
    await converged(h);
    assert.ok(h.adds.includes('cut') && h.adds.includes('after-cut'));
  });
});

e2eTest('informer e2e: a watch resumed after etcd compaction gets 410; the informer relists, converges and reports the deletes it missed', async (env, t) => {
  await withInformer(
    env,
    async (h) => {
      // The server ends the watch after two seconds; the informer's next watch (a plain resume from
      // the last resourceVersion) is held back.
      const release = h.lw.holdWatches();
      const watches = h.lw.watches.length;
      await until('the informer to re-watch', () => h.lw.watches.length > watches);
      const resumed = h.lw.watches[watches]!;
      assert.equal(resumed.sendInitialEvents, undefined);
      const resumeFrom = resumed.resourceVersion!;
      const lists = h.lw.lists.length;
      // While it is disconnected: deletions it will never see as events, then compaction past them.
      await h.subject.client.delete('obj-2');
      await h.subject.client.delete('obj-3');
      await h.subject.client.create(h.subject.make('while-away'));
      await env.waitForCompaction(resumeFrom);
      release();
      await converged(h);
      // The relist is a watch-list where the server streams lists, a LIST where it does not.
      const relists = h.lw.lists.length - lists + h.lw.watches.slice(watches + 1).filter((w) => w.sendInitialEvents === true).length;
      assert.ok(h.adds.includes('while-away'));
      if (relists === 0 && env.backend === 'real') {
        // kube-apiserver serves a resumed watch from its watch cache, which answers 410 only once the
        // revision has left the cache's window (sized by recent traffic, cacher/watch_cache.go), not when
        // etcd compacts: when it still holds the revision, the missed changes arrive as ordinary events.
        t.diagnostic('the watch cache still held the resumed revision: no 410, the deletions came as events');
        assert.ok(h.deletes.includes('delete obj-2') && h.deletes.includes('delete obj-3'), h.deletes.join());
        return;
      }
      assert.ok(relists > 0, 'the 410 made the informer relist');
      assert.ok(h.deletes.includes(`tombstone ${env.namespace}/obj-2`), h.deletes.join());
      assert.ok(h.deletes.includes(`tombstone ${env.namespace}/obj-3`), h.deletes.join());
    },
    { subject: events, watchTimeoutSeconds: 2 },
  );
});

e2eTest('informer e2e: a 429 storm on watch is retried with backoff without relisting', { needs: [Capability.Faults] }, async (env) => {
  await withInformer(env, async (h) => {
    const lists = h.lw.lists.length;
    const watches = h.lw.watches.length;
    env.faults.failNext({ verb: 'watch', resource: 'configmaps', status: 429, count: 5, retryAfterSeconds: 0 });
    env.faults.closeWatches('configmaps');
    await h.subject.client.create({ metadata: { name: 'after-storm' } });
    await converged(h);
    assert.ok(h.lw.watches.length >= watches + 6, `${h.lw.watches.length - watches} watch attempts`);
    assert.equal(h.lw.lists.length, lists);
  });
});

e2eTest('informer e2e: the server restarts; the informer reconnects and catches up', { needs: [Capability.Faults] }, async (env) => {
  await withInformer(env, async (h) => {
    await env.faults.restart();
    await h.subject.client.create({ metadata: { name: 'after-restart' } });
    await h.subject.client.delete('obj-4');
    await converged(h);
    assert.ok(h.deletes.includes('delete obj-4') || h.deletes.includes(`tombstone ${env.namespace}/obj-4`));
  });
});

for (const useWatchList of [false, true]) {
  e2eTest(`informer e2e: objects written alike share one frozen managedFields fieldsV1, from the initial sync (${useWatchList ? 'watch-list' : 'LIST'}) and from watch events`, async (env) => {
    await withInformer(
      env,
      async (h) => {
        await h.subject.client.create({ metadata: { name: 'later' }, data: { v: '9' } } as Obj, { fieldManager: 'kubectl-create' });
        await converged(h);
        const fieldsOf = (name: string): unknown => h.informer.getStore().getByKey(`${env.namespace}/${name}`)?.metadata?.managedFields?.[0]?.fieldsV1;
        const first = fieldsOf('obj-0');
        assert.ok(first !== undefined && Object.isFrozen(first), 'the server records managedFields');
        for (const name of ['obj-1', 'obj-4', 'later']) assert.equal(fieldsOf(name), first, name);
      },
      { useWatchList },
    );
  });
}
