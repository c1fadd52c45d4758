/**
 * The webhook server's Prometheus metrics (controller-runtime pkg/webhook/internal/metrics/metrics.go):
 * `controller_runtime_webhook_latency_seconds{webhook}` (histogram of the time to serve a request, the
 * client library's default buckets as upstream), `controller_runtime_webhook_requests_total{webhook,code}`
 * (requests by HTTP status code) and `controller_runtime_webhook_requests_in_flight{webhook}`, the
 * `webhook` label being the registered path. Created on the first server given a registry; servers
 * sharing a registry share the metrics.
 */
import type { Counter, Gauge, Histogram } from 'prom-client';
import { asPromRegistry, promClient } from '../util/prometheus/prom-client.ts';
import type { PrometheusRegistry } from '../util/prometheus/registry.ts';

/** The three metrics of a webhook server. */
export interface WebhookMetrics {
  readonly latency: Histogram<'webhook'>;
  readonly total: Counter<'webhook' | 'code'>;
  readonly inFlight: Gauge<'webhook'>;
}

/** The webhook metrics of `registry`, registering them when missing. */
export function webhookMetrics(registry: PrometheusRegistry): WebhookMetrics {
  const { Counter, Gauge, Histogram } = promClient();
  const r = asPromRegistry(registry);
  const existing = <M>(name: string): M | undefined => r.getSingleMetric(name) as M | undefined;
  return {
    latency:
      existing<Histogram<'webhook'>>('controller_runtime_webhook_latency_seconds') ??
      new Histogram({ name: 'controller_runtime_webhook_latency_seconds', help: 'Histogram of the latency of processing admission requests', labelNames: ['webhook'], registers: [r] }),
    total:
      existing<Counter<'webhook' | 'code'>>('controller_runtime_webhook_requests_total') ??
      new Counter({ name: 'controller_runtime_webhook_requests_total', help: 'Total number of admission requests by HTTP status code.', labelNames: ['webhook', 'code'], registers: [r] }),
    inFlight:
      existing<Gauge<'webhook'>>('controller_runtime_webhook_requests_in_flight') ??
      new Gauge({ name: 'controller_runtime_webhook_requests_in_flight', help: 'Current number of admission requests being served.', labelNames: ['webhook'], registers: [r] }),
  };
}
