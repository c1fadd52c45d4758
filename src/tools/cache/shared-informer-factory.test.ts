import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../util/clock/clock.ts';
import type { GroupVersionResource, KubeList } from '../../apimachinery/object.ts';
import { FakeListerWatcher, FakeWatch } from './testing/fake-lister-watcher.ts';
import { SharedInformerFactory, gvrKey } from './shared-informer-factory.ts';
import { SharedIndexInformer } from './shared-informer.ts';
import { stripManagedFields } from './transforms.ts';
import type { KubeObject } from '../../apimachinery/object.ts';

const pods: GroupVersionResource = { group: '', version: 'v1', resource: 'pods' };
const deployments: GroupVersionResource = { group: 'apps', version: 'v1', resource: 'deployments' };
const list = (rv: string, items: KubeObject[]): KubeList<KubeObject> => ({ metadata: { resourceVersion: rv }, items });

async function flush(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

function setup(extra: Partial<ConstructorParameters<typeof SharedInformerFactory>[0]> = {}) {
  const clock = new FakeClock();
  const sources = new Map<string, FakeListerWatcher<KubeObject>>();
  const requested: string[] = [];
  const factory = new SharedInformerFactory({
    clock,
    namespace: 'team-a',
    listerWatcherFor: <T>(gvr: GroupVersionResource, namespace: string) => {
      requested.push(`${gvrKey(gvr)}@${namespace}`);
      const lw = new FakeListerWatcher<KubeObject>({ watchListUnsupported: true });
      sources.set(gvrKey(gvr), lw);
      return lw as unknown as FakeListerWatcher<T>;
    },
    informerOptions: { reflector: { random: () => 0.5, backoffManager: { nextDelay: () => 1000 } } },
    ...extra,
  });
  return { clock, factory, sources, requested };
}

test('SharedInformerFactory shares one informer per resource and builds it for the factory namespace', () => {
  const { factory, requested } = setup();
  const a = factory.informerFor(pods);
  assert.equal(factory.informerFor(pods), a);
  assert.equal(factory.forResource(pods).informer(), a);
  assert.notEqual(factory.informerFor(deployments), a);
  assert.deepEqual(requested, ['/v1/pods@team-a', 'apps/v1/deployments@team-a']);
  const custom = factory.informerFor<KubeObject>(
    { group: 'x', version: 'v1', resource: 'widgets' },
    (ctx) => new SharedIndexInformer(ctx.listerWatcher, { ...ctx.informerOptions, indexers: { byName: (o: KubeObject) => [o.metadata?.name ?? ''] } }),
  );
  assert.deepEqual(Object.keys(custom.getIndexer().getIndexers()).sort(), ['byName', 'namespace']);
});

test('SharedInformerFactory: start is idempotent, waitForCacheSync maps started resources, tweaks and the transform apply, shutdown stops all', async () => {
  const { factory, sources } = setup({
    tweakListOptions: (o) => (o.labelSelector = 'tier=web'),
    defaultResyncMs: 0,
    customResync: new Map([['v1/pods', 30_000]]),
    transform: stripManagedFields,
  });
  const podsInformer = factory.forResource(pods);
  podsInformer.informer();
  const stop = new AbortController();
  const p = sources.get('/v1/pods')!;
  p.pushList(list('5', [{ metadata: { namespace: 'team-a', name: 'web', labels: { tier: 'web' }, managedFields: [{}] } }]));
  p.pushWatch(new FakeWatch<KubeObject>());
  factory.start({ signal: stop.signal });
  factory.start({ signal: stop.signal });
  await p.waitForCalls({ list: 1, watch: 1 });
  assert.equal(p.listCalls.length, 1);
  // internManagedFields: the informer freezes its objects, so it asks for shared fieldsV1 values.
  assert.deepEqual(p.listCalls[0], { resourceVersion: '0', limit: 500, labelSelector: 'tier=web', internManagedFields: true });
  // A resource requested after start runs only once start is called again.
  factory.informerFor(deployments);
  const d = sources.get('apps/v1/deployments')!;
  assert.equal(d.listCalls.length, 0);
  d.pushList(list('9', []));
  factory.start({ signal: stop.signal });
  await d.waitForCalls({ list: 1 });
  await flush();
  const synced = await factory.waitForCacheSync({ signal: stop.signal });
  assert.deepEqual([...synced], [
    ['/v1/pods', true],
    ['apps/v1/deployments', true],
  ]);
  const cached = podsInformer.lister().namespace('team-a').get('web');
  assert.equal(cached.metadata?.managedFields, undefined);
  assert.deepEqual(podsInformer.lister().list('tier=web').length, 1);
  await flush();
  await factory.shutdown();
  assert.equal(podsInformer.informer().isStopped(), true);
  assert.equal(factory.informerFor(deployments).isStopped(), true);
  factory.start({ signal: stop.signal });
});

test('SharedInformerFactory.shutdown() resolves only once every informer exited, an event handler in progress included (factory.go Shutdown waits for them)', async () => {
  const { factory, sources } = setup({ defaultResyncMs: 0 });
  const informer = factory.informerFor<KubeObject>(pods);
  let release!: () => void;
  const handlerBlocked = new Promise<void>((resolve) => (release = resolve));
  let entered!: () => void;
  const handlerEntered = new Promise<void>((resolve) => (entered = resolve));
  const log: string[] = [];
  informer.addEventHandler({
    onAdd: async (obj) => {
      log.push(`add ${obj.metadata?.name ?? ''}`);
      entered();
      await handlerBlocked;
      log.push('handler returned');
    },
  });
  const p = sources.get('/v1/pods')!;
  p.pushList(list('5', [{ metadata: { namespace: 'team-a', name: 'web' } }]));
  p.pushWatch(new FakeWatch<KubeObject>());
  factory.start();
  await handlerEntered;
  let shutDown = false;
  const shuttingDown = factory.shutdown().then(() => {
    shutDown = true;
    log.push('shutdown resolved');
  });
  await flush();
  // The reflector and the queue have stopped; the handler has not returned yet, so neither has shutdown().
  assert.equal(shutDown, false);
  release();
  await shuttingDown;
  assert.deepEqual(log, ['add web', 'handler returned', 'shutdown resolved']);
});
