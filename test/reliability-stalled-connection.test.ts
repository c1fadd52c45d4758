/**
 * A request sent on a pooled keep-alive connection that went half-open (the peer vanished without a
 * FIN, or a middlebox black-holes the flow) gets no answer, and nothing on the connection tells the
 * client. client-go's HTTP/2 health check closes such a connection after 30 s without a frame plus a
 * 15 s unanswered ping; the REST client bounds every non-streaming request the same way (45 s without
 * a byte of response), so a reflector's LIST cannot hang on it. Real sockets through the chaos proxy
 * on loopback; every timeout runs on a fake clock.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap } from '../src/api/core/v1.ts';
import { FakeClock } from '../src/util/clock/clock.ts';
import { startApiServer, startChaosProxy, type ChaosConnection } from '../src/testing/index.ts';
import { newClientset } from '../src/kubernetes/index.ts';
import { Cache, ListWatch, Reflector, deletionHandlingMetaNamespaceKeyFunc, newListWatchFromClient } from '../src/tools/cache/index.ts';
import { defaultReadIdleTimeoutMs } from '../src/rest/index.ts';

/** Polls `cond` until true; fails after `limitMs` of real time naming `what` (a deadline, not a timing assertion). */
async function until(what: string, cond: () => boolean, limitMs = 5_000): Promise<void> {
  const deadline = performance.now() + limitMs;
  while (!cond()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const listLine = /GET \/api\/v1\/namespaces\/default\/configmaps(\?(?!.*watch=true)\S*)? HTTP/;

// Found with the chaos property test (a watch answered 500, then every connection that last carried a
// watch went half-open): the next request reused the idle, half-open connection. A watch request is
// bounded by the reflector's idle timeout; a LIST with the default config (no timeoutMs) waited for
// undici's own 300 s headers timeout, so the informer stayed stale for five minutes.
test('a relist sent on an idle pooled connection that went half-open is abandoned after 45 s; the reflector lists again on a new connection', async () => {
  const server = await startApiServer();
  const proxy = await startChaosProxy({ targetPort: Number(new URL(server.url).port) });
  const clock = new FakeClock();
  const direct = newClientset({ host: server.url, qps: -1 });
  // The default config: no client-side timeout at all.
  const viaProxy = newClientset({ host: `http://${proxy.address}`, qps: -1 }, { clock });
  const configMaps = direct.coreV1().configMaps('default');
  const ac = new AbortController();
  let running: Promise<void> | undefined;
  try {
    await configMaps.create({ metadata: { name: 'a' } });
    const base = newListWatchFromClient(viaProxy.coreV1().configMaps('default'));
    const lists: string[] = [];
    const lw = new ListWatch<ConfigMap>({
      list: (o) => {
        lists.push(o.resourceVersion ?? '');
        return base.list(o);
      },
      watch: (o) => base.watch(o),
    });
    const errors: string[] = [];
    const store = new Cache<ConfigMap>(deletionHandlingMetaNamespaceKeyFunc);
    const reflector = new Reflector<ConfigMap>(lw, store, {
      clock,
      useWatchList: false,
      backoffManager: { nextDelay: () => 100 },
      watchErrorHandler: (_r, err) => void errors.push(String(err)),
    });
    // The first watch is answered 500: the reflector backs off and relists, and the connection that
    // carried the LIST and the watch sits idle in the pool meanwhile.
    server.faults.failNext({ verb: 'watch', resource: 'configmaps', status: 500 });
    running = reflector.run({ signal: ac.signal });
    await until('the watch to fail', () => errors.length === 1);
    assert.match(errors[0]!, /500/);
    assert.deepEqual(lists, ['0']);
    const listedAt = reflector.lastSyncResourceVersion();
    // Every connection in the pool goes half-open (as a watch500 + stallWatch interleaving left it).
    const pooled: ChaosConnection[] = proxy.connections();
    assert.ok(pooled.length >= 1);
    for (const c of pooled) c.inject({ type: 'stall' });
    await configMaps.create({ metadata: { name: 'b' } });
    await clock.waitForWaiters();
    await clock.step(100);
    const listsOn = (c: ChaosConnection): number => c.requests.filter((l) => listLine.test(l)).length;
    await until('the relist to be sent on a half-open connection', () => pooled.reduce((n, c) => n + listsOn(c), 0) === 2);
    assert.equal(lists.length, 2);
    const stalled = pooled.find((c) => c.requests.length > 0 && listLine.test(c.requests[c.requests.length - 1]!))!;
    await clock.step(defaultReadIdleTimeoutMs - 1);
    await new Promise((r) => setImmediate(r));
    assert.equal(stalled.closed, false, 'still waiting just before the read idle timeout');
    await clock.step(1);
    await until('the half-open connection to be closed', () => stalled.closed);
    // A timed-out request is not retried by the REST client: the LIST fails with ReadIdleTimeoutError,
    // the reflector backs off and lists again, on a new connection.
    await until('the stalled LIST to fail', () => errors.length === 2);
    assert.match(errors[1]!, /no response bytes for 45000 ms/);
    await clock.waitForWaiters();
    await clock.step(100);
    await until('the store to hold both configmaps', () => store.listKeys().sort().join() === 'default/a,default/b');
    assert.deepEqual(lists, ['0', listedAt, listedAt], 'the relist failed once and was sent again by the reflector, from the last resourceVersion');
    assert.ok(proxy.connections().every((c) => c.id !== stalled.id));
  } finally {
    ac.abort();
    await running;
    await proxy.stop();
    await server.stop();
    await Promise.all([direct.restClient.close(), viaProxy.restClient.close()]);
  }
});
