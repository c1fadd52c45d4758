/**
 * Informers after an outage, on the real clock: typed, dynamic and metadata informers on ConfigMaps
 * share one RestClient that reaches the embedded API server through a TCP forwarder; the forwarder
 * stops listening for `downSeconds` (connections refused, as while a kube-apiserver restarts), a
 * ConfigMap is created meanwhile, then the forwarder listens again on the same port. Reports, per
 * informer, the seconds from the heal until it holds the new ConfigMap, and the requests sent while
 * down, for the client's Reachability (`wakeOnReachable`, default) and for client-go's behaviour
 * (`wakeOnReachable: false`), interleaved.
 *
 * Run: node bench/informer-recovery.ts [downSeconds=90] [rounds=1]
 */
import { startApiServer } from '../src/apiserver/index.ts';
import { TcpForwarder } from '../test/support/tcp-forwarder.ts';
import { newDynamicSharedInformerFactory, newMetadataSharedInformerFactory, newSharedInformerFactory } from '../src/informers/factory.ts';
import { newClientset } from '../src/kubernetes/index.ts';
import { RestClient } from '../src/rest/client.ts';

const downSeconds = Number(process.argv[2] ?? 90);
const rounds = Number(process.argv[3] ?? 1);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function round(wakeOnReachable: boolean, n: number): Promise<string> {
  const server = await startApiServer();
  const url = new URL(server.url);
  const fwd = new TcpForwarder({ host: url.hostname, port: Number(url.port) });
  await fwd.listen();
  let down = false;
  let whileDown = 0;
  const rest = new RestClient({ host: `http://127.0.0.1:${fwd.port}`, qps: -1 }, { wakeOnReachable });
  const count = <A extends unknown[], R>(fn: (...a: A) => R) => (...a: A): R => {
    if (down) whileDown++;
    return fn(...a);
  };
  rest.do = count(rest.do.bind(rest));
  rest.list = count(rest.list.bind(rest)) as typeof rest.list;
  rest.watch = count(rest.watch.bind(rest)) as typeof rest.watch;
  const stop = new AbortController();
  const cm = { group: '', version: 'v1', resource: 'configmaps' };
  const typed = newSharedInformerFactory(rest);
  const dynamic = newDynamicSharedInformerFactory(rest);
  const metadata = newMetadataSharedInformerFactory(rest);
  const informers = { typed: typed.coreV1().configMaps().informer(), dynamic: dynamic.forResource(cm).informer(), metadata: metadata.forResource(cm).informer() };
  for (const f of [typed, dynamic, metadata]) f.start({ signal: stop.signal });
  while (!Object.values(informers).every((i) => i.hasSynced())) await sleep(20);
  await fwd.close();
  down = true;
  await newClientset({ host: server.url, qps: -1 }).coreV1().configMaps('default').create({ metadata: { name: `during-${n}` } });
  await sleep(downSeconds * 1000);
  const cpu0 = process.cpuUsage();
  await fwd.listen();
  down = false;
  const healed = performance.now();
  const converged: Record<string, number> = {};
  while (Object.keys(converged).length < 3 && performance.now() - healed < 120_000) {
    for (const [name, inf] of Object.entries(informers)) {
      if (converged[name] === undefined && inf.getStore().getByKey(`default/during-${n}`) !== undefined) converged[name] = (performance.now() - healed) / 1000;
    }
    await sleep(20);
  }
  const cpu = process.cpuUsage(cpu0);
  const stats = rest.reachability.stats();
  stop.abort();
  await rest.close();
  await fwd.close();
  await server.stop();
  const fmt = Object.entries(converged).map(([k, v]) => `${k} ${v.toFixed(2)} s`).join(', ');
  return `${wakeOnReachable ? 'reachability' : 'client-go backoff'}: converged after the heal: ${fmt}; requests while down ${whileDown} (+ ${stats.httpProbes} HTTP probes, ${stats.tcpProbes} TCP connects); CPU after heal ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms`;
}

for (let i = 1; i <= rounds; i++) {
  for (const wake of [true, false]) console.log(`round ${i}, ${downSeconds} s down: ${await round(wake, i)}`);
}
