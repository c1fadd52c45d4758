/**
 * The embedded API server as the benchmarks run it: the same request handler, storage and watch
 * streams as `startApiServer()`, assembled here so that the harness can write objects straight into
 * the storage. Seeding 100,000 Pods or producing 200,000 MODIFIED events over HTTP would make the
 * server's write path (request parsing, admission, managed fields) the bottleneck; written directly,
 * the server only encodes and streams, which is what the client libraries are measured against.
 */
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { stringify as toYaml } from 'yaml';
import { realClock } from '../../src/util/clock/clock.ts';
import { ResourceRegistry, storageKey } from '../../src/apiserver/resources.ts';
import { Storage } from '../../src/apiserver/storage.ts';
import { Faults } from '../../src/apiserver/faults.ts';
import { ApiHandler } from '../../src/apiserver/handler.ts';
import { benchPod, modifiedPod, type BenchPod } from './workload.ts';

/** What {@link BenchServer.modifyPods} measured on the server side. */
export interface WriteFigures {
  events: number;
  /** Wall time of the write loop (new object, resourceVersion stamp, JSON encoding, fan-out). */
  ms: number;
  /** CPU time of the server process during the loop. */
  cpuMs: number;
}

/** A running benchmark server. */
export interface BenchServer {
  readonly url: string;
  /** A kubeconfig for the server; the cluster is marked insecure-skip-tls-verify, which client-node 2.x needs for plain HTTP. */
  readonly kubeconfig: string;
  /** Stores `count` Pods `benchPod(0..count-1, namespace)` directly (one revision each). */
  createPods(namespace: string, count: number): void;
  /**
   * Writes `events` MODIFIED states round-robin over the first `pods` Pods of `namespace`, all in one
   * synchronous loop: watch streams queue the changes and stream them as fast as each client reads.
   */
  modifyPods(namespace: string, pods: number, events: number): WriteFigures;
  revision(): number;
  stop(): Promise<void>;
}

const podsStore = storageKey('', 'pods');

/** Starts the server on 127.0.0.1, any free port. */
export async function startBenchServer(options: { watchHistorySize?: number } = {}): Promise<BenchServer> {
  const storage = new Storage(options.watchHistorySize ?? 100_000);
  const sockets = new Set<Socket>();
  const faults: Faults = new Faults({
    closeWatches: (r) => handler.closeWatches(r),
    injectMalformedLine: (r) => handler.injectMalformedLine(r),
    compact: (rv) => storage.compact(rv),
    restart: async () => undefined,
  });
  const handler: ApiHandler = new ApiHandler(new ResourceRegistry(), storage, faults, {
    token: undefined,
    bookmarkIntervalMs: 60_000,
    defaultWatchTimeoutSeconds: 1800,
    maxRequestBodyBytes: 3 * 1024 * 1024,
    clock: realClock,
  });
  const bases = new Map<string, BenchPod[]>();
  const server: Server = createServer((req, res) => handler.handle(req, res));
  server.timeout = 0;
  server.requestTimeout = 0;
  server.keepAliveTimeout = 60_000;
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  const url = `http://127.0.0.1:${address.port}`;
  handler.setServerAddress(`127.0.0.1:${address.port}`);
  const kubeconfig = toYaml({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'bench', cluster: { server: url, 'insecure-skip-tls-verify': true } }],
    users: [{ name: 'bench', user: {} }],
    contexts: [{ name: 'bench', context: { cluster: 'bench', user: 'bench', namespace: 'default' } }],
    'current-context': 'bench',
  });
  for (const name of ['default', 'kube-system']) {
    handler.seed('', 'v1', 'namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }
  return {
    url,
    kubeconfig,
    createPods(namespace, count) {
      handler.seed('', 'v1', 'namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
      const list: BenchPod[] = [];
      for (let i = 0; i < count; i++) {
        const pod = benchPod(i, namespace);
        list.push(pod);
        storage.write(podsStore, `${namespace}/${pod.metadata.name}`, 'ADDED', pod);
      }
      bases.set(namespace, list);
    },
    modifyPods(namespace, pods, events) {
      const list = bases.get(namespace);
      if (list === undefined || list.length < pods) throw new Error(`namespace ${namespace} has fewer than ${pods} pods`);
      const cpu = process.cpuUsage();
      const t0 = performance.now();
      for (let e = 0; e < events; e++) {
        const base = list[e % pods]!;
        storage.write(podsStore, `${namespace}/${base.metadata.name}`, 'MODIFIED', modifiedPod(base, e + 1));
      }
      const ms = performance.now() - t0;
      const used = process.cpuUsage(cpu);
      return { events, ms, cpuMs: (used.user + used.system) / 1000 };
    },
    revision: () => storage.revision,
    async stop() {
      handler.destroyStreams();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}
