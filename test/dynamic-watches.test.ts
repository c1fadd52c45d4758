/**
 * Watches added and removed at run time (controller-runtime #935 / #2983, Cache.RemoveInformer;
 * kube-rs #1630): two dynamic kind sources share one reference-counted informer; it keeps running
 * until the last of them stops, then its watch ends (counted on the wire by a proxy in front of the
 * embedded API server), no request for the kind follows, and its store is emptied.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { controllerManagedBy } from '../src/builder/builder.ts';
import { kinds } from '../src/client/kinds.ts';
import { enqueueRequestsFromMapFunc } from '../src/handler/handler.ts';
import { newManager } from '../src/manager/manager.ts';
import { dynamicKindSource } from '../src/source/source.ts';
import { eventually } from '../src/testing/eventually.ts';
import { startApiServer } from '../src/testing/index.ts';

// Forwards to `target`, counting the GETs of `resource` collections and the watches among them still open.
async function countingProxy(target: string, resource: string): Promise<{ url: string; requests: () => number; openWatches: () => number; close: () => Promise<void> }> {
  const upstream = new URL(target);
  let requests = 0;
  let open = 0;
  const server: Server = createServer((req, res) => {
    const url = req.url ?? '/';
    // Reads only (the informer's LIST and WATCH), not the test's own creates.
    const counted = req.method === 'GET' && new URL(url, 'http://x').pathname.endsWith(`/${resource}`);
    const watch = /[?&]watch=(true|1)/.test(url);
    if (counted) requests++;
    if (counted && watch) open++;
    const up = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
    let ended = false;
    res.on('close', () => {
      if (!ended && counted && watch) open--;
      ended = true;
      up.destroy();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    openWatches: () => open,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

test('a dynamic watch added after start shares a reference-counted informer; the last stop ends its watch and empties its store', async (t) => {
  const server = await startApiServer({ tls: false });
  t.after(() => server.stop());
  const proxy = await countingProxy(server.url, 'configmaps');
  t.after(() => proxy.close());
  const mgr = newManager({ host: proxy.url, qps: -1 }, { logger: { debug() {}, info() {}, error() {} }, stalledWatchDetection: false });
  const client = mgr.getClient();
  const seen: string[] = [];
  const ctrl = controllerManagedBy(mgr)
    .for(kinds.coreV1.secrets)
    .complete((req) => void seen.push(`${req.namespace}/${req.name}`));
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  t.after(async () => {
    stop.abort();
    await running;
  });
  await mgr.getCache().waitForCacheSync(stop.signal);
  const cache = mgr.getCache();
  assert.equal(cache.hasInformer(kinds.coreV1.configMaps), false);

  // Two users of the ConfigMap informer, added at run time: each maps a ConfigMap to a Secret request.
  const toSecret = (suffix: string) => enqueueRequestsFromMapFunc<{ metadata?: { namespace?: string; name?: string } }>((cm) => [{ namespace: cm.metadata?.namespace ?? '', name: `${cm.metadata?.name}-${suffix}` }]);
  const a = ctrl.watch(dynamicKindSource(cache, kinds.coreV1.configMaps, toSecret('a')));
  const b = ctrl.watch(dynamicKindSource(cache, kinds.coreV1.configMaps, toSecret('b')));
  // Started with the controller (at once if it already runs).
  await eventually(() => cache.informerUsers(kinds.coreV1.configMaps) === 2, { timeoutMs: 10_000 });
  await client.create(kinds.coreV1.configMaps, { metadata: { namespace: 'default', name: 'one' } });
  await eventually(() => seen.includes('default/one-a') && seen.includes('default/one-b'), { timeoutMs: 10_000 });
  assert.equal(proxy.openWatches(), 1, 'one informer, one watch, for both users');

  // One user stops: the other keeps the informer and its events.
  await a.stop();
  assert.equal(cache.hasInformer(kinds.coreV1.configMaps), true);
  assert.equal(cache.informerUsers(kinds.coreV1.configMaps), 1);
  await client.create(kinds.coreV1.configMaps, { metadata: { namespace: 'default', name: 'two' } });
  await eventually(() => seen.includes('default/two-b'), { timeoutMs: 10_000 });
  assert.equal(seen.includes('default/two-a'), false);
  const informer = cache.acquireInformer(kinds.coreV1.configMaps);
  const store = informer.getIndexer();
  await cache.releaseInformer(kinds.coreV1.configMaps);
  assert.deepEqual(store.list().map((o) => o.metadata?.name).filter((n) => n === 'one' || n === 'two').sort(), ['one', 'two']);

  // The last user stops: the informer is removed, its watch closed, its store emptied.
  await b.stop();
  assert.equal(cache.hasInformer(kinds.coreV1.configMaps), false);
  assert.equal(store.list().length, 0);
  await eventually(() => proxy.openWatches() === 0, { timeoutMs: 10_000 });
  const requestsAfterStop = proxy.requests();
  // Time passes on the manager (a Secret event reconciled): no ConfigMap request follows.
  await client.create(kinds.coreV1.configMaps, { metadata: { namespace: 'default', name: 'three' } });
  await client.create(kinds.coreV1.secrets, { metadata: { namespace: 'default', name: 'later' } });
  await eventually(() => seen.includes('default/later'), { timeoutMs: 10_000 });
  assert.equal(proxy.requests(), requestsAfterStop);
  assert.equal(seen.some((s) => s.startsWith('default/three')), false);
  assert.equal(proxy.openWatches(), 0);
});
