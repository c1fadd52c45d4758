import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap } from '../api/core/v1.ts';
import { isNotFound } from '../apimachinery/errors.ts';
import { startApiServer, type ApiServer } from '../apiserver/index.ts';
import { RestClient } from '../rest/client.ts';
import { FakeClock } from '../util/clock/clock.ts';
import { InformerCache, ResourceNotCachedError, CacheNotStartedError, UnsupportedFieldSelectorError, metadataOnly } from '../cache/cache.ts';
import { compareResourceVersions } from '../cache/resource-version.ts';
import { Client } from './client.ts';
import { deepCopy } from './deep-copy.ts';
import { kinds } from './kinds.ts';

const cms = kinds.coreV1.configMaps;

async function setup(t: import('node:test').TestContext, cacheOptions: Partial<ConstructorParameters<typeof InformerCache>[0]> = {}): Promise<{ server: ApiServer; rest: RestClient; cache: InformerCache; stop: AbortController }> {
  const server = await startApiServer();
  const rest = new RestClient({ host: server.url, qps: -1 });
  const cache = new InformerCache({ rest, ...cacheOptions });
  const stop = new AbortController();
  let running: Promise<void> | undefined;
  t.after(async () => {
    stop.abort();
    await running;
    await rest.close();
    await server.stop();
  });
  // Started lazily by the tests that need it.
  (cache as unknown as { run: () => void }).run = () => {
    running = cache.start(stop.signal);
  };
  return { server, rest, cache, stop };
}

function start(cache: InformerCache): void {
  (cache as unknown as { run: () => void }).run();
}

test('cache reads fail before start; a read of a new kind starts its informer and waits for it to sync', async (t) => {
  const { rest, cache } = await setup(t);
  const writer = new Client({ rest });
  await writer.create(cms, { metadata: { namespace: 'default', name: 'a' }, data: { k: '1' } });
  await assert.rejects(cache.get(cms, { namespace: 'default', name: 'a' }), CacheNotStartedError);
  start(cache);
  const got = await cache.get(cms, { namespace: 'default', name: 'a' });
  assert.equal(got.data?.['k'], '1');
  assert.ok(Object.isFrozen(got));
  await assert.rejects(cache.get(cms, { namespace: 'default', name: 'missing' }), (e) => isNotFound(e));
});

test('readerFailOnMissingInformer refuses reads of kinds without an informer', async (t) => {
  const { cache } = await setup(t, { readerFailOnMissingInformer: true });
  cache.informerFor(kinds.coreV1.secrets);
  start(cache);
  await assert.rejects(cache.list(cms), ResourceNotCachedError);
  assert.deepEqual(await cache.list(kinds.coreV1.secrets, { namespace: 'default' }), []);
});

test('defaultNamespaces, byObject selectors and transforms decide what is cached', async (t) => {
  const { rest, cache } = await setup(t, {
    defaultNamespaces: ['a'],
    byObject: [[kinds.coreV1.secrets, { labelSelector: 'keep=yes', transform: (o) => ({ ...o, metadata: { ...o.metadata, annotations: { transformed: 'true' } } }) }]],
  });
  const writer = new Client({ rest });
  for (const ns of ['a', 'b']) {
    await writer.create(kinds.coreV1.namespaces, { metadata: { name: ns } });
    await writer.create(cms, { metadata: { namespace: ns, name: 'x' } });
    await writer.create(kinds.coreV1.secrets, { metadata: { namespace: ns, name: 'kept', labels: { keep: 'yes' } } });
    await writer.create(kinds.coreV1.secrets, { metadata: { namespace: ns, name: 'dropped' } });
  }
  start(cache);
  assert.deepEqual((await cache.list(cms)).map((o) => o.metadata?.namespace), ['a']);
  // byObject names no namespaces: the default ones (as upstream), only labelled secrets, transformed.
  const secrets = await cache.list(kinds.coreV1.secrets);
  assert.deepEqual(secrets.map((s) => `${s.metadata?.namespace}/${s.metadata?.name}/${s.metadata?.annotations?.['transformed']}`).sort(), ['a/kept/true']);
});

test('list selects by label, and by indexed fields per namespace and across namespaces', async (t) => {
  const { rest, cache } = await setup(t);
  const writer = new Client({ rest });
  await writer.create(kinds.coreV1.namespaces, { metadata: { name: 'other' } });
  for (const [ns, name, owner] of [['default', 'a', 'x'], ['default', 'b', 'y'], ['other', 'c', 'x']] as const) {
    await writer.create(cms, { metadata: { namespace: ns, name, labels: { tier: name === 'b' ? 'db' : 'web' } }, data: { owner } });
  }
  cache.indexField(cms, 'data.owner', (cm: ConfigMap) => [cm.data?.['owner'] ?? '']);
  start(cache);
  const names = (l: ConfigMap[]): string[] => l.map((o) => o.metadata!.name!).sort();
  assert.deepEqual(names(await cache.list(cms, { labelSelector: 'tier=web' })), ['a', 'c']);
  assert.deepEqual(names(await cache.list(cms, { fieldSelector: 'data.owner=x' })), ['a', 'c']);
  assert.deepEqual(names(await cache.list(cms, { namespace: 'default', fieldSelector: 'data.owner=x' })), ['a']);
  assert.deepEqual(names(await cache.list(cms, { fieldSelector: 'data.owner=x,metadata.namespace=other' })), ['c']);
  await assert.rejects(cache.list(cms, { fieldSelector: 'data.owner!=x' }), UnsupportedFieldSelectorError);
  await assert.rejects(cache.list(cms, { fieldSelector: 'data.other=x' }), UnsupportedFieldSelectorError);
});

test('a metadata-only kind caches PartialObjectMetadata without the data', async (t) => {
  const { rest, cache } = await setup(t);
  await new Client({ rest }).create(cms, { metadata: { namespace: 'default', name: 'big', labels: { a: 'b' } }, data: { payload: 'x'.repeat(1000) } });
  start(cache);
  const meta = await cache.get(metadataOnly(cms), { namespace: 'default', name: 'big' });
  assert.equal(meta.kind, 'PartialObjectMetadata');
  assert.deepEqual(meta.metadata?.labels, { a: 'b' });
  assert.equal((meta as { data?: unknown }).data, undefined);
  assert.equal(cache.hasInformer(cms), false);
});

/** Stalls the configmaps watch: the next reconnect is held `ms` by the server, then the current watches are closed. */
function stallWatch(server: ApiServer, ms: number): void {
  server.faults.delay({ verb: 'watch', resource: 'configmaps', ms, count: 1 });
  server.faults.closeWatches('configmaps');
}

test('read-your-writes: behind a stalled watch, a cached get and list return the written object once the bound passes', async (t) => {
  const { server, rest, cache } = await setup(t);
  const clock = new FakeClock();
  const client = new Client({ rest, cache, clock, readYourWritesTimeoutMs: 5_000 });
  await client.create(cms, { metadata: { namespace: 'default', name: 'a' }, data: { v: '1' } });
  start(cache);
  const first = await client.get(cms, { namespace: 'default', name: 'a' });
  assert.equal(first.data?.['v'], '1');
  stallWatch(server, 60_000);
  const copy = deepCopy(first);
  copy.data = { v: '2' };
  const written = await client.update(cms, copy);

  const reading = client.get(cms, { namespace: 'default', name: 'a' });
  const listing = client.list(cms, { namespace: 'default' });
  await clock.step(4_999);
  assert.equal(cache.peek(cms, 'default', 'a')?.data?.['v'], '1', 'the cache is stale');
  await clock.step(1);
  const got = await reading;
  assert.equal(got.metadata?.resourceVersion, written.metadata?.resourceVersion);
  assert.equal(got.data?.['v'], '2');
  await clock.step(5_000);
  const listed = await listing;
  assert.deepEqual(listed.map((o) => o.data?.['v']), ['2']);

  // A delete behind the stalled watch reads as NotFound, and disappears from lists.
  await client.delete(cms, got);
  const afterDelete = assert.rejects(client.get(cms, { namespace: 'default', name: 'a' }), (e) => isNotFound(e));
  await clock.step(5_000);
  await afterDelete;
  assert.ok(cache.peek(cms, 'default', 'a') !== undefined, 'the cache still holds the deleted object');
});

test('read-your-writes: a cached get after a write waits for the slow watch and returns the cache object at or past the written version', async (t) => {
  const { server, rest, cache } = await setup(t);
  // The bound is on a clock nobody steps: only the cache catching up can end the wait.
  const client = new Client({ rest, cache, clock: new FakeClock() });
  await client.create(cms, { metadata: { namespace: 'default', name: 'a' }, data: { v: '1' } });
  start(cache);
  const first = await client.get(cms, { namespace: 'default', name: 'a' });
  stallWatch(server, 300);
  const written = await client.update(cms, { ...first, data: { v: '2' } });
  const staleRv = cache.peek(cms, 'default', 'a')?.metadata?.resourceVersion ?? '';
  assert.equal(compareResourceVersions(staleRv, written.metadata!.resourceVersion!), -1, 'the cache is behind the write');
  const got = await client.get(cms, { namespace: 'default', name: 'a' });
  assert.equal(got, cache.peek(cms, 'default', 'a'), 'answered from the cache');
  assert.ok(compareResourceVersions(got.metadata!.resourceVersion!, written.metadata!.resourceVersion!)! >= 0);
  assert.equal(got.data?.['v'], '2');
});

test('uncached reads and uncached kinds go to the server', async (t) => {
  const { rest, cache } = await setup(t);
  const client = new Client({ rest, cache, uncachedKinds: [kinds.coreV1.secrets] });
  await client.create(kinds.coreV1.secrets, { metadata: { namespace: 'default', name: 's' } });
  start(cache);
  assert.equal((await client.get(kinds.coreV1.secrets, { namespace: 'default', name: 's' })).metadata?.name, 's');
  assert.equal(cache.hasInformer(kinds.coreV1.secrets), false);
  const server = await client.uncached().list(cms, { namespace: 'kube-system' });
  assert.ok(Array.isArray(server));
  assert.equal(cache.hasInformer(cms), false);
});

test('writes reach the server: patch, apply with the field owner, status, deleteAllOf', async (t) => {
  const { rest } = await setup(t);
  const client = new Client({ rest, fieldOwner: 'test-owner' });
  await client.create(cms, { metadata: { namespace: 'default', name: 'a', labels: { g: '1' } } });
  await client.create(cms, { metadata: { namespace: 'default', name: 'b', labels: { g: '1' } } });
  const patched = await client.patch(cms, { namespace: 'default', name: 'a' }, 'application/merge-patch+json', { data: { x: 'y' } });
  assert.equal(patched.data?.['x'], 'y');
  const applied = await client.apply(cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name: 'c' }, data: { z: '1' } });
  assert.ok(applied.metadata?.managedFields?.some((m) => m.manager === 'test-owner'));
  const dep = await client.create(kinds.appsV1.deployments, {
    metadata: { namespace: 'default', name: 'd' },
    spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
  });
  const withStatus = await client.updateStatus(kinds.appsV1.deployments, { ...dep, status: { observedGeneration: 7 } });
  assert.equal(withStatus.status?.observedGeneration, 7);
  const scale = await client.subResource(kinds.appsV1.deployments, 'scale').get<{ spec?: { replicas?: number } }>({ namespace: 'default', name: 'd' });
  assert.equal(scale.spec?.replicas, 1);
  await client.deleteAllOf(cms, { namespace: 'default', labelSelector: 'g=1' });
  assert.deepEqual((await client.list(cms, { namespace: 'default' })).map((c) => c.metadata?.name).filter((n) => n !== 'kube-root-ca.crt'), ['c']);
});

test('read-your-writes: aborting stopSignal ends a pending wait at once (answering with the written object) and skips later ones', async (t) => {
  const { server, rest, cache } = await setup(t);
  // The bound is on a clock nobody steps: only the stop signal can end the wait.
  const stopping = new AbortController();
  const client = new Client({ rest, cache, clock: new FakeClock(), stopSignal: stopping.signal });
  await client.create(cms, { metadata: { namespace: 'default', name: 'a' }, data: { v: '1' } });
  start(cache);
  const first = await client.get(cms, { namespace: 'default', name: 'a' });
  stallWatch(server, 60_000);
  const copy = deepCopy(first);
  copy.data = { v: '2' };
  await client.update(cms, copy);
  const reading = client.get(cms, { namespace: 'default', name: 'a' });
  stopping.abort();
  assert.equal((await reading).data?.['v'], '2');
  assert.equal((await client.get(cms, { namespace: 'default', name: 'a' })).data?.['v'], '2');
});

test('apply takes an object of the kind\'s own type (apiVersion a plain string, or missing) and fills apiVersion and kind', async (t) => {
  const { rest } = await setup(t);
  const client = new Client({ rest, fieldOwner: 'diag' });
  const desired: ConfigMap = { metadata: { namespace: 'default', name: 'applied' }, data: { mode: 'fast' } };
  const out = await client.apply(cms, desired);
  assert.equal(out.data?.['mode'], 'fast');
  assert.equal(out.metadata?.managedFields?.[0]?.manager, 'diag');
  const withString: ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name: 'applied' }, data: { mode: 'slow' } };
  assert.equal((await client.apply(cms, withString)).data?.['mode'], 'slow');
});

test('an informer of a kind cached in several namespaces has one read-only indexer across them', async (t) => {
  const { rest, cache } = await setup(t, { defaultNamespaces: ['a', 'b'] });
  const writer = new Client({ rest });
  for (const ns of ['a', 'b', 'c']) {
    await fetch(`${rest.baseUrl}/api/v1/namespaces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: ns } }) });
    await writer.create(cms, { metadata: { namespace: ns, name: `in-${ns}` } });
  }
  const informer = cache.informerFor(cms);
  start(cache);
  await cache.waitForCacheSync();
  const indexer = informer.getIndexer();
  assert.deepEqual(indexer.listKeys().sort(), ['a/in-a', 'b/in-b']);
  assert.equal(indexer.getByKey('b/in-b')?.metadata?.name, 'in-b');
  assert.equal(indexer.getByKey('c/in-c'), undefined);
  assert.deepEqual(indexer.byIndex('namespace', 'a').map((o) => o.metadata?.name), ['in-a']);
  assert.throws(() => indexer.add({ metadata: { namespace: 'a', name: 'x' } }), { code: 'ERR_CACHE_READ_ONLY_INDEXER' });
});
