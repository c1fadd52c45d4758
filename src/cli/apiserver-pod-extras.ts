/**
 * What `kubeloom apiserver --pod-logs` and `--metrics` add to a developer's cluster, in place of the
 * kubelets' logs and metrics-server: a log line per container of every running pod (served at
 * pods/log), and metrics.k8s.io usage refreshed every 15 s (metrics-server's default resolution) —
 * each container using what it requests (1m CPU and 4Mi memory when it requests nothing), each node the
 * sum of its pods.
 */
import type { Pod } from '../api/core/v1.ts';
import type { ApiServer } from '../apiserver/server.ts';
import { newClientset } from '../kubernetes/clientset.ts';
import { newSharedInformerFactory } from '../informers/factory.ts';
import { parseQuantity, formatQuantity, QuantityFormat } from '../apimachinery/quantity.ts';
import { realClock } from '../util/clock/clock.ts';

// metrics-server's --metric-resolution default.
const metricResolutionMs = 15_000;

/** Starts the extras; returns a function that stops them. */
export function startPodExtras(server: ApiServer, options: { logs: boolean; metrics: boolean }): () => Promise<void> {
  const client = newClientset({ host: server.url, ...(server.caCertPem === undefined ? {} : { tls: { caData: server.caCertPem } }) });
  const factory = newSharedInformerFactory(client);
  const pods = factory.coreV1().pods();
  const logged = new Set<string>();
  if (options.logs) {
    pods.informer().addEventHandler({
      onAdd: (p) => log(p),
      onUpdate: (_o, p) => log(p),
      onDelete: () => undefined,
    });
  }
  function log(pod: Pod): void {
    const uid = pod.metadata?.uid ?? '';
    if (pod.status?.phase !== 'Running' || logged.has(uid)) return;
    logged.add(uid);
    for (const c of pod.spec?.containers ?? []) server.setPodLogs(pod.metadata?.namespace ?? '', pod.metadata?.name ?? '', [`kubeloom: container ${c.name} started (image ${c.image ?? ''})`], c.name);
  }
  const sample = (): void => {
    const running = pods.lister().list().filter((p) => p.status?.phase === 'Running');
    const byNode = new Map<string, { cpu: bigint; memory: bigint }>();
    server.setPodMetrics(
      running.map((p) => ({
        namespace: p.metadata?.namespace ?? '',
        name: p.metadata?.name ?? '',
        containers: (p.spec?.containers ?? []).map((c) => {
          const cpu = parseQuantity(c.resources?.requests?.cpu ?? '1m').nanos;
          const memory = parseQuantity(c.resources?.requests?.memory ?? '4Mi').nanos;
          const node = byNode.get(p.spec?.nodeName ?? '') ?? { cpu: 0n, memory: 0n };
          byNode.set(p.spec?.nodeName ?? '', { cpu: node.cpu + cpu, memory: node.memory + memory });
          return { name: c.name, usage: { cpu: formatQuantity({ nanos: cpu, format: QuantityFormat.DecimalSI }), memory: formatQuantity({ nanos: memory, format: QuantityFormat.BinarySI }) } };
        }),
      })),
    );
    server.setNodeMetrics(
      [...byNode].filter(([n]) => n !== '').map(([name, u]) => ({ name, usage: { cpu: formatQuantity({ nanos: u.cpu, format: QuantityFormat.DecimalSI }), memory: formatQuantity({ nanos: u.memory, format: QuantityFormat.BinarySI }) } })),
    );
  };
  const stop = new AbortController();
  factory.start({ signal: stop.signal });
  let ticker: { stop(): void } | undefined;
  if (options.metrics) {
    void factory.waitForCacheSync({ signal: stop.signal }).then(() => {
      if (stop.signal.aborted) return;
      sample();
      ticker = realClock.newTicker(metricResolutionMs, sample);
    });
  }
  return async () => {
    ticker?.stop();
    stop.abort();
    await factory.shutdown();
    await client.close();
  };
}
