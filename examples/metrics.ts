/**
 * Prometheus metrics with prom-client, an optional peer dependency of kubeloom (`npm install
 * prom-client`): work queue metrics under client-go's names, and a Controller's reconcile metrics.
 * Needs no cluster: `node examples/metrics.ts`.
 */
// #region metrics
import { Registry } from 'prom-client';
import { newPrometheusMetricsProvider, RateLimitingQueue, setGlobalMetricsProvider } from 'kubeloom/util/workqueue';

const registry = new Registry(); // yours: kubeloom registers into it and never imports prom-client otherwise
const queue = new RateLimitingQueue<string>({ name: 'pods', metricsProvider: newPrometheusMetricsProvider(registry) });
// or, for every queue created afterwards (only the first call counts, as upstream's SetProvider):
setGlobalMetricsProvider(newPrometheusMetricsProvider(registry));
// #endregion

// #region controller-metrics
import { Controller } from 'kubeloom/controller';

const controller = new Controller({
  name: 'example',
  metrics: registry, // controller_reconcile_total, controller_reconcile_errors_total, ..._duration_seconds, and its queue's
  reconcile: async () => undefined,
});
// #endregion

queue.add('default/web');
controller.add('default/app');
const stop = new AbortController();
const running = controller.run({ signal: stop.signal });
while (controller.stats().success === 0) await new Promise((resolve) => setImmediate(resolve));
stop.abort();
await running;
queue.shutDown();
const text = await registry.metrics();
console.log(text.split('\n').filter((line) => /^(workqueue_adds_total|controller_reconcile_total)\{/.test(line)));
