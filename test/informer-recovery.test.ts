/**
 * Informers of one client coming back after an outage (issue "Performance 3", item 7): a typed, a
 * dynamic and a metadata informer share one RestClient that reaches the embedded API server through a
 * TCP forwarder; the forwarder stops listening for 90 s (connections refused, as while a kube-apiserver
 * restarts), a ConfigMap is created meanwhile, then the forwarder listens again on the same port.
 * Measured on a FakeClock (the reflectors' backoff and the client's probe wait on it): the time from
 * the heal until every informer holds the new ConfigMap, and the requests the client sent while the
 * server could not be reached, with the reflectors woken by the client's Reachability and without
 * (`wakeOnReachable: false`: client-go's behaviour).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../src/apiserver/index.ts';
import { TcpForwarder } from './support/tcp-forwarder.ts';
import type { RequestOptions, DecodeOptions } from '../src/apimachinery/options.ts';
import { newDynamicSharedInformerFactory, newMetadataSharedInformerFactory, newSharedInformerFactory } from '../src/informers/factory.ts';
import { RestClient, type RestClientOptions, type WatchStream } from '../src/rest/client.ts';
import type { ListEnvelope } from '../src/rest/list-decoder.ts';
import type { RestRequest } from '../src/rest/request.ts';
import type { RestConfig } from '../src/rest/config.ts';
import { newClientset } from '../src/kubernetes/index.ts';
import { FakeClock } from '../src/util/clock/clock.ts';
import { eventually } from '../src/testing/eventually.ts';

/** Counts the requests sent while the forwarder was not listening. */
class CountingRestClient extends RestClient {
  whileDown = 0;
  forwarder: TcpForwarder | undefined;
  constructor(config: RestConfig, options: RestClientOptions) {
    super(config, options);
  }
  #count(): void {
    if (this.forwarder !== undefined && !this.forwarder.up) this.whileDown++;
  }
  override async do(req: RestRequest, options?: RequestOptions): ReturnType<RestClient['do']> {
    this.#count();
    return super.do(req, options);
  }
  override async list<T>(req: RestRequest, onItems: (items: T[], envelope: Readonly<ListEnvelope>) => void | PromiseLike<void>, options?: RequestOptions & DecodeOptions): Promise<ListEnvelope> {
    this.#count();
    return super.list<T>(req, onItems, options);
  }
  override async watch<T>(req: RestRequest, options?: RequestOptions & DecodeOptions): Promise<WatchStream<T>> {
    this.#count();
    return super.watch<T>(req, options);
  }
}

/** Lets real I/O (sockets) make progress between two fake-clock steps. */
async function settle(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 2));
  await new Promise((resolve) => setImmediate(resolve));
}

interface Outcome {
  /** Fake ms from the heal until all three informers held the ConfigMap created during the outage. */
  convergedMs: number;
  /** Requests the informers' client sent while connections were refused (probes included). */
  requestsWhileDown: number;
  tcpProbes: number;
}

async function outage(wakeOnReachable: boolean): Promise<Outcome> {
  const server = await startApiServer();
  const serverUrl = new URL(server.url);
  const forwarder = new TcpForwarder({ host: serverUrl.hostname, port: Number(serverUrl.port) });
  await forwarder.listen();
  const clock = new FakeClock();
  const rest = new CountingRestClient({ host: `http://127.0.0.1:${forwarder.port}`, qps: -1 }, { clock, wakeOnReachable, readIdleTimeoutMs: 0 });
  rest.forwarder = forwarder;
  const writer = newClientset({ host: server.url, qps: -1 });
  const stop = new AbortController();
  try {
    // Constant jitter: both runs back off on the same schedule (1.2, 2.4, 4.8, 9.6, 19.2, 38.4, 45 s).
    const options = { clock, informerOptions: { reflector: { random: () => 0.5 } } };
    const cm = { group: '', version: 'v1', resource: 'configmaps' };
    const typed = newSharedInformerFactory(rest, options);
    const dynamic = newDynamicSharedInformerFactory(rest, options);
    const metadata = newMetadataSharedInformerFactory(rest, options);
    const informers = [typed.coreV1().configMaps().informer(), dynamic.forResource(cm).informer(), metadata.forResource(cm).informer()];
    for (const f of [typed, dynamic, metadata]) f.start({ signal: stop.signal });
    await eventually(() => informers.every((i) => i.hasSynced()), { timeoutMs: 10_000 });

    await forwarder.close();
    await writer.coreV1().configMaps('default').create({ metadata: { name: 'during-outage' } });
    for (let t = 0; t < 90_000; t += 100) {
      await clock.step(100);
      await settle();
    }
    const probesBefore = rest.reachability.stats();
    const healedAt = clock.now();
    await forwarder.listen();
    const has = (): boolean => informers.every((i) => i.getStore().getByKey('default/during-outage') !== undefined);
    while (!has() && clock.now() - healedAt < 120_000) {
      await clock.step(100);
      await settle();
    }
    assert.ok(has(), 'every informer converged');
    return { convergedMs: clock.now() - healedAt, requestsWhileDown: rest.whileDown + probesBefore.httpProbes, tcpProbes: probesBefore.tcpProbes };
  } finally {
    stop.abort();
    await rest.close();
    await forwarder.close();
    await server.stop();
  }
}

test('after 90 s of refused connections the informers of one client converge within 5 s of the heal, with no more requests than client-go’s backoff sends', async () => {
  const shared = await outage(true);
  const upstream = await outage(false);
  console.log(`informer recovery: shared ${JSON.stringify(shared)}; upstream backoff ${JSON.stringify(upstream)}`);
  assert.ok(shared.convergedMs <= 5_000, `converged ${shared.convergedMs} ms after the heal`);
  assert.ok(upstream.convergedMs > 5_000, `client-go's backoff: ${upstream.convergedMs} ms (the test must tell the two apart)`);
  assert.ok(shared.requestsWhileDown <= upstream.requestsWhileDown, `requests while down: ${shared.requestsWhileDown} vs ${upstream.requestsWhileDown}`);
  assert.equal(upstream.tcpProbes, 0, 'no probe without wakeOnReachable');
});
