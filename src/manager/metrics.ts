/**
 * The controller metrics of controller-runtime (pkg/internal/controller/metrics/metrics.go), under the
 * same names, labels and buckets, registered once per registry and shared by every controller of a
 * manager: `controller_runtime_reconcile_total{controller,result}`, `_reconcile_errors_total`,
 * `_terminal_reconcile_errors_total`, `_reconcile_panics_total`, `_reconcile_time_seconds`,
 * `_max_concurrent_reconciles`, `_active_workers`; and `rest_client_requests_total{code,method,host}`
 * (k8s.io/client-go/tools/metrics, as controller-runtime's pkg/metrics/client_go_adapter.go registers it)
 * with `rest_client_request_duration_seconds{verb,host}`, `rest_client_request_size_bytes{verb,host}`,
 * `rest_client_response_size_bytes{verb,host}` and `rest_client_rate_limiter_duration_seconds{verb,host}`
 * (k8s.io/component-base/metrics/prometheus/restclient/metrics.go: names, help, labels and buckets), and
 * from the same file the exec credential plugin's `rest_client_exec_plugin_ttl_seconds`,
 * `rest_client_exec_plugin_certificate_rotation_age` and `rest_client_exec_plugin_call_total{code,call_status}`.
 */
import type { Counter, Gauge, Histogram } from 'prom-client';
import { asPromRegistry, promClient } from '../util/prometheus/prom-client.ts';
import type { PrometheusRegistry } from '../util/prometheus/registry.ts';
import type { RateLimiterObserver, RequestObserver } from '../rest/client.ts';
import { earliestExecPluginCertExpiry, observeExecPlugins } from '../tools/metrics/exec-plugin.ts';
import { realClock, type Clock } from '../util/clock/clock.ts';

/** Reconcile result labels of `controller_runtime_reconcile_total`. */
export const ReconcileResultLabel = {
  /** The reconcile returned nothing. */
  Success: 'success',
  /** The reconcile threw. */
  Error: 'error',
  /** The reconcile returned `{ requeueAfterMs }`. */
  RequeueAfter: 'requeue_after',
  /** Upstream's deprecated `Result{Requeue: true}`; never counted by kubeloom, initialised at 0. */
  Requeue: 'requeue',
} as const;
/** One of {@link ReconcileResultLabel}. */
export type ReconcileResultLabelValue = (typeof ReconcileResultLabel)[keyof typeof ReconcileResultLabel];

// controller-runtime's ReconcileTime buckets.
const reconcileTimeBuckets = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

/** What a controller records; a no-op when the manager has no metrics registry. */
export interface ControllerMetrics {
  /** Initialises every series of `controller` at zero (controller-runtime's initMetrics). */
  init(controller: string, maxConcurrent: number): void;
  /** Counts a finished reconcile by result. */
  result(controller: string, result: ReconcileResultLabelValue): void;
  /** Counts a reconcile error (terminal or not). */
  error(controller: string, terminal: boolean): void;
  /** Counts a panic (a programming error thrown by the reconciler). */
  panic(controller: string): void;
  /** Observes a reconcile's duration in seconds. */
  time(controller: string, seconds: number): void;
  /** Adds `delta` to the active workers of `controller`. */
  activeWorkers(controller: string, delta: number): void;
}

/** Records nothing. */
export const noopControllerMetrics: ControllerMetrics = { init() {}, result() {}, error() {}, panic() {}, time() {}, activeWorkers() {} };

function shared<M>(registry: PrometheusRegistry, name: string, make: () => M): M {
  return (registry.getSingleMetric(name) as M | undefined) ?? make();
}

/** Registers (or reuses) controller-runtime's controller metrics in `registry`. Loads prom-client. */
export function newControllerMetrics(registry: PrometheusRegistry): ControllerMetrics {
  const { Counter, Gauge, Histogram } = promClient();
  const reg = asPromRegistry(registry);
  const counter = (name: string, help: string, labelNames: string[]): Counter<string> => shared(registry, name, () => new Counter({ name, help, labelNames, registers: [reg] }));
  const gauge = (name: string, help: string): Gauge<string> => shared(registry, name, () => new Gauge({ name, help, labelNames: ['controller'], registers: [reg] }));
  const total = counter('controller_runtime_reconcile_total', 'Total number of reconciliations per controller', ['controller', 'result']);
  const errors = counter('controller_runtime_reconcile_errors_total', 'Total number of reconciliation errors per controller', ['controller']);
  const terminal = counter('controller_runtime_terminal_reconcile_errors_total', 'Total number of terminal reconciliation errors per controller', ['controller']);
  const panics = counter('controller_runtime_reconcile_panics_total', 'Total number of reconciliation panics per controller', ['controller']);
  const time: Histogram<string> = shared(
    registry,
    'controller_runtime_reconcile_time_seconds',
    () => new Histogram({ name: 'controller_runtime_reconcile_time_seconds', help: 'Length of time per reconciliation per controller', labelNames: ['controller'], buckets: reconcileTimeBuckets, registers: [reg] }),
  );
  const max = gauge('controller_runtime_max_concurrent_reconciles', 'Maximum number of concurrent reconciles per controller');
  const active = gauge('controller_runtime_active_workers', 'Number of currently used workers per controller');
  return {
    init(controller, maxConcurrent) {
      for (const result of Object.values(ReconcileResultLabel)) total.inc({ controller, result }, 0);
      errors.inc({ controller }, 0);
      terminal.inc({ controller }, 0);
      panics.inc({ controller }, 0);
      max.set({ controller }, maxConcurrent);
      active.set({ controller }, 0);
    },
    result: (controller, result) => total.inc({ controller, result }),
    error(controller, isTerminal) {
      errors.inc({ controller });
      if (isTerminal) terminal.inc({ controller });
    },
    panic: (controller) => panics.inc({ controller }),
    time: (controller, seconds) => time.observe({ controller }, seconds),
    activeWorkers: (controller, delta) => active.inc({ controller }, delta),
  };
}

/**
 * `rest_client_requests_total{code,method,host}` in `registry`, as an observer for the manager's client
 * and cache (kubeloom counts at that layer: the REST client has no request hook).
 */
export function newRestClientRequestsCounter(registry: PrometheusRegistry, host: string): (method: string, code: string) => void {
  const { Counter } = promClient();
  const reg = asPromRegistry(registry);
  const c: Counter<string> = shared(
    registry,
    'rest_client_requests_total',
    () => new Counter({ name: 'rest_client_requests_total', help: 'Number of HTTP requests, partitioned by status code, method, and host.', labelNames: ['code', 'method', 'host'], registers: [reg] }),
  );
  return (method, code) => c.inc({ code, method, host });
}

// component-base restclient's requestLatency (and rateLimiterLatency) buckets.
const requestLatencyBuckets = [0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0];
// component-base restclient's requestSize and responseSize buckets: 64 bytes to 16 MiB.
const sizeBuckets = [64, 256, 512, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216];

/**
 * client-go's request metrics in `registry`, as an observer for `RestClient.observeRequests`: every
 * HTTP attempt of the manager's REST client (its client, cache, leader election, event sink, anything
 * sharing it) counts in `rest_client_requests_total{code,method,host}` and
 * `rest_client_request_duration_seconds{verb,host}` (verb: the HTTP method, as client-go's r.verb), and
 * its body sizes, when known, in `rest_client_request_size_bytes{verb,host}` and
 * `rest_client_response_size_bytes{verb,host}`.
 */
export function newRestClientMetrics(registry: PrometheusRegistry): RequestObserver {
  const { Counter, Histogram } = promClient();
  const reg = asPromRegistry(registry);
  const total: Counter<string> = shared(
    registry,
    'rest_client_requests_total',
    () => new Counter({ name: 'rest_client_requests_total', help: 'Number of HTTP requests, partitioned by status code, method, and host.', labelNames: ['code', 'method', 'host'], registers: [reg] }),
  );
  const latency: Histogram<string> = shared(
    registry,
    'rest_client_request_duration_seconds',
    () => new Histogram({ name: 'rest_client_request_duration_seconds', help: 'Request latency in seconds. Broken down by verb, and host.', labelNames: ['verb', 'host'], buckets: requestLatencyBuckets, registers: [reg] }),
  );
  const requestSize: Histogram<string> = shared(
    registry,
    'rest_client_request_size_bytes',
    () => new Histogram({ name: 'rest_client_request_size_bytes', help: 'Request size in bytes. Broken down by verb and host.', labelNames: ['verb', 'host'], buckets: sizeBuckets, registers: [reg] }),
  );
  const responseSize: Histogram<string> = shared(
    registry,
    'rest_client_response_size_bytes',
    () => new Histogram({ name: 'rest_client_response_size_bytes', help: 'Response size in bytes. Broken down by verb and host.', labelNames: ['verb', 'host'], buckets: sizeBuckets, registers: [reg] }),
  );
  return ({ method, code, host, seconds, requestBytes, responseBytes }) => {
    total.inc({ code, method, host });
    latency.observe({ verb: method, host }, seconds);
    if (requestBytes !== undefined) requestSize.observe({ verb: method, host }, requestBytes);
    if (responseBytes !== undefined) responseSize.observe({ verb: method, host }, responseBytes);
  };
}

/**
 * client-go's `rest_client_rate_limiter_duration_seconds{verb,host}` in `registry`, as an observer for
 * `RestClient.observeRateLimiter`: the time each request of the manager's REST client waited for the
 * client-side rate limiter.
 */
export function newRestClientRateLimiterMetrics(registry: PrometheusRegistry): RateLimiterObserver {
  const { Histogram } = promClient();
  const reg = asPromRegistry(registry);
  const latency: Histogram<string> = shared(
    registry,
    'rest_client_rate_limiter_duration_seconds',
    () =>
      new Histogram({
        name: 'rest_client_rate_limiter_duration_seconds',
        help: 'Client side rate limiter latency in seconds. Broken down by verb, and host.',
        labelNames: ['verb', 'host'],
        buckets: requestLatencyBuckets,
        registers: [reg],
      }),
  );
  return ({ verb, host, seconds }) => latency.observe({ verb, host }, seconds);
}

// component-base restclient's execPluginCertRotation buckets: 10 min, 30 min, 1 h, 4 h, 1 d, 1 w, 1 month,
// 3 months, 6 months, 1 year, 4 years (too fast, ideal, too slow a rotation cadence).
const certRotationBuckets = [600, 1800, 3600, 14400, 86400, 604800, 2592000, 7776000, 15552000, 31104000, 124416000];

/**
 * client-go's exec credential plugin metrics in `registry`, once per registry, fed by every exec
 * authenticator of the process (they are process-wide, as in client-go):
 * - `rest_client_exec_plugin_call_total{code,call_status}`: plugin runs by exit code and outcome
 *   (`no_error` with code 0, `plugin_execution_error` with the plugin's exit code or -1 when a signal
 *   ended it, `plugin_not_found_error` and `client_internal_error` with code 1);
 * - `rest_client_exec_plugin_certificate_rotation_age`: how long (s, since its notBefore) a client
 *   certificate lived before a plugin returned a different one;
 * - `rest_client_exec_plugin_ttl_seconds`: seconds from `clock`'s now to the earliest notAfter of the
 *   client certificates the authenticators hold, computed at scrape time; +Inf when none holds one.
 *
 * The Manager calls it for its registry. The registry's instruments are held weakly: a registry that is
 * dropped stops receiving reports and is collected.
 */
export function registerExecPluginMetrics(registry: PrometheusRegistry, clock: Clock = realClock): void {
  if (registry.getSingleMetric('rest_client_exec_plugin_call_total') !== undefined) return;
  const { Counter, Gauge, Histogram } = promClient();
  const reg = asPromRegistry(registry);
  const calls = new Counter({
    name: 'rest_client_exec_plugin_call_total',
    help:
      'Number of calls to an exec plugin, partitioned by the type of event encountered (no_error, plugin_execution_error, plugin_not_found_error, client_internal_error) and an optional exit code. The exit code will be set to 0 if and only if the plugin call was successful.',
    labelNames: ['code', 'call_status'],
    registers: [reg],
  });
  const rotation = new Histogram({
    name: 'rest_client_exec_plugin_certificate_rotation_age',
    help: 'Histogram of the number of seconds the last auth exec plugin client certificate lived before being rotated. If auth exec plugin client certificates are unused, histogram will contain no data.',
    buckets: certRotationBuckets,
    registers: [reg],
  });
  new Gauge({
    name: 'rest_client_exec_plugin_ttl_seconds',
    help: 'Gauge of the shortest TTL (time-to-live) of the client certificate(s) managed by the auth exec plugin. The value is in seconds until certificate expiry (negative if already expired). If auth exec plugins are unused or manage no TLS certificates, the value will be +INF.',
    registers: [reg],
    collect() {
      const expiry = earliestExecPluginCertExpiry();
      this.set(expiry === undefined ? Infinity : (expiry - clock.now()) / 1000);
    },
  });
  const callsRef = new WeakRef(calls);
  const rotationRef = new WeakRef(rotation);
  const remove = observeExecPlugins({
    call(code, callStatus) {
      const c = callsRef.deref();
      if (c === undefined) remove();
      else c.inc({ code: String(code), call_status: callStatus });
    },
    certRotationAge(seconds) {
      const h = rotationRef.deref();
      if (h === undefined) remove();
      else h.observe(seconds);
    },
  });
}

/**
 * The process and runtime metrics in `registry`, once: prom-client's `collectDefaultMetrics`, the
 * counterpart of the process and Go collectors controller-runtime registers on its registry
 * (client_golang collectors.NewProcessCollector and NewGoCollector, pkg/metrics/registry.go). The
 * process collector's names are the same: `process_cpu_seconds_total`, `process_resident_memory_bytes`,
 * `process_virtual_memory_bytes`, `process_open_fds`, `process_max_fds`, `process_start_time_seconds`
 * (prom-client adds `process_cpu_user_seconds_total`, `_system_seconds_total` and `process_heap_bytes`);
 * the Go collector's `go_*` become prom-client's `nodejs_*` (event loop lag, heap, GC, handles).
 * Values are read at scrape time; the event-loop delay monitor and the GC observer behind some
 * `nodejs_*` metrics stay on for the life of the process. Does nothing when `registry` has
 * `process_cpu_seconds_total` already (the program called collectDefaultMetrics itself).
 */
export function registerProcessMetrics(registry: PrometheusRegistry): void {
  if (registry.getSingleMetric('process_cpu_seconds_total') !== undefined) return;
  promClient().collectDefaultMetrics({ register: asPromRegistry(registry) });
}
