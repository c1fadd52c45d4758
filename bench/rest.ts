/**
 * REST client throughput and connection reuse against the embedded API server, kubeloom vs
 * @kubernetes/client-node in the same run. Run: ./node_modules/.bin/node bench/rest.ts
 *
 * Scenarios (each over HTTP and HTTPS): 1,000 GETs of one pod sequentially, 1,000 GETs 64 at a time,
 * and 200 LISTs of 100 pods sequentially. A TCP proxy in front of the server counts the connections
 * each client opens. kubeloom runs with client-side rate limiting disabled (qps -1) since client-node
 * has none.
 *
 * The helpers are exported for bench/run.ts, which runs the GET scenarios against its own server.
 */
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { KubeConfig, CoreV1Api } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '../src/testing/index.ts';
import { newClientset, type Clientset } from '../src/kubernetes/index.ts';

interface Row {
  transport: string;
  scenario: string;
  client: string;
  'req/s': string;
  connections: number;
  ms: string;
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

/** A TCP pass-through proxy counting the connections clients open. */
export async function countingProxy(target: URL): Promise<{ port: number; connections: () => number; reset: () => void; close: () => Promise<void> }> {
  let count = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    count++;
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => count,
    reset: () => {
      count = 0;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** A client under test. */
export interface Subject {
  name: string;
  get(name: string): Promise<unknown>;
  list(): Promise<unknown>;
  close(): Promise<void>;
}

/** The server fields the subjects need. */
export type ServerInfo = Pick<ApiServer, 'url' | 'kubeconfig' | 'caCertPem'>;

/** kubeloom's typed clientset on namespace 'bench', rate limiting off. */
export function kubeloomSubject(s: ServerInfo, url: string): Subject {
  const cs: Clientset = newClientset({ host: url, qps: -1, ...(s.caCertPem !== undefined ? { tls: { caData: s.caCertPem } } : {}) });
  const pods = cs.coreV1().pods('bench');
  return { name: 'kubeloom', get: (n) => pods.get(n), list: () => pods.list(), close: () => cs.close() };
}

/** @kubernetes/client-node's CoreV1Api on namespace 'bench'. */
export function clientNodeSubject(s: ServerInfo, url: string): Subject {
  const kc = new KubeConfig();
  kc.loadFromString(s.kubeconfig.replace(s.url, url));
  if (url.startsWith('http:')) {
    // client-node 2.x refuses plain HTTP unless TLS verification is marked as skipped.
    kc.loadFromOptions({ clusters: kc.clusters.map((c) => ({ ...c, skipTLSVerify: true })), users: kc.users, contexts: kc.contexts, currentContext: kc.currentContext });
  }
  const api = kc.makeApiClient(CoreV1Api);
  return { name: '@kubernetes/client-node', get: (n) => api.readNamespacedPod({ name: n, namespace: 'bench' }), list: () => api.listNamespacedPod({ namespace: 'bench' }), close: async () => undefined };
}

/** Runs `total` calls of `op`, `concurrency` at a time; resolves with the wall time in ms. */
export async function run(total: number, concurrency: number, op: () => Promise<unknown>): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        await op();
      }
    }),
  );
  return performance.now() - start;
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  for (const tls of [false, true]) {
    const s = await startApiServer({ tls });
    const seed = newClientset({ host: s.url, qps: -1, ...(s.caCertPem !== undefined ? { tls: { caData: s.caCertPem } } : {}) });
    await seed.coreV1().namespaces().create({ metadata: { name: 'bench' } });
    for (let i = 0; i < 100; i++) await seed.coreV1().pods('bench').create({ metadata: { name: `pod-${i}`, labels: { app: 'bench' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    await seed.close();
    const target = new URL(s.url);
    const scenarios: Array<[string, number, number, (c: Subject) => Promise<unknown>]> = [
      ['GET sequential ×1000', 1000, 1, (c) => c.get('pod-0')],
      ['GET 64-way ×1000', 1000, 64, (c) => c.get('pod-1')],
      ['LIST 100 pods sequential ×200', 200, 1, (c) => c.list()],
    ];
    for (const [scenario, total, concurrency, op] of scenarios) {
      for (const make of [kubeloomSubject, clientNodeSubject]) {
        const proxy = await countingProxy(target);
        const url = `${target.protocol}//127.0.0.1:${proxy.port}`;
        const subject = make(s, url);
        // One warm-up call so both clients have resolved config and loaded code before timing.
        await op(subject);
        proxy.reset();
        const ms = await run(total, concurrency, () => op(subject));
        rows.push({ transport: tls ? 'https' : 'http', scenario, client: subject.name, 'req/s': fmt((total * 1000) / ms), connections: proxy.connections(), ms: ms.toFixed(0) });
        await subject.close();
        await proxy.close();
      }
    }
    await s.stop();
  }
  console.table(rows);
}

if (import.meta.main) await main();
