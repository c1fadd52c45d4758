/**
 * The exec credential plugin hooks of client-go's tools/metrics (metrics.go: `ExecPluginCalls`,
 * `ClientCertExpiry`, `ClientCertRotationAge`) and the expiry tracker of plugin/pkg/client/auth/exec
 * (metrics.go, `certificateExpirationTracker`).
 *
 * Exec authenticators are process-wide (one per plugin configuration, as client-go caches them), so
 * their metrics are too: the authenticator reports here, and each Prometheus registry that asked for
 * them (`registerExecPluginMetrics` in kubeloom/manager, which the Manager calls for its registry, as
 * component-base's restclient package registers them with the legacy registry) gets every report.
 * client-go's request metrics are not here: kubeloom observes those on the RestClient itself
 * (`RestClient.observeRequests`).
 */

/**
 * The `call_status` label of `rest_client_exec_plugin_call_total` (exec.go's constants), as a const
 * object plus its union type.
 */
export const ExecPluginCallStatus = {
  /** The plugin ran and exited 0 (its output may still have been refused). */
  noError: 'no_error',
  /** The plugin ran and exited non-zero, or was killed. */
  pluginExecutionError: 'plugin_execution_error',
  /** The plugin's binary was not found or not executable. */
  pluginNotFoundError: 'plugin_not_found_error',
  /** Anything else that went wrong starting or reading the plugin. */
  clientInternalError: 'client_internal_error',
} as const;

/** A value of {@link ExecPluginCallStatus}. */
export type ExecPluginCallStatusValue = (typeof ExecPluginCallStatus)[keyof typeof ExecPluginCallStatus];

/** Receives what exec authenticators report (client-go's `metrics.RegisterOpts` exec plugin fields). */
export interface ExecPluginObserver {
  /** A plugin run ended: `code` is its exit code (0 if and only if `callStatus` is `no_error`). */
  call(code: number, callStatus: ExecPluginCallStatusValue): void;
  /** A client certificate was replaced by a different one after living `seconds` (since its notBefore). */
  certRotationAge(seconds: number): void;
}

const observers = new Set<ExecPluginObserver>();
// Per authenticator: the notAfter (ms since the epoch) of the client certificate it holds.
const expiries = new Map<object, number>();

/**
 * Adds an observer of every exec authenticator in the process (client-go's `metrics.Register`, which
 * may be called once; here any number may observe). Returns the function that removes it.
 */
export function observeExecPlugins(observer: ExecPluginObserver): () => void {
  observers.add(observer);
  return () => observers.delete(observer);
}

/** Reports a finished plugin run to every observer. */
export function reportExecPluginCall(code: number, callStatus: ExecPluginCallStatusValue): void {
  for (const o of observers) o.call(code, callStatus);
}

/** Reports that a client certificate was rotated after living `seconds`. */
export function reportExecPluginCertRotation(seconds: number): void {
  for (const o of observers) o.certRotationAge(seconds);
}

/**
 * Records the expiry of the client certificate `authenticator` now holds (`undefined`: none, e.g. it
 * authenticates with a token), as exec.go's `expirationMetrics.set(a, expiry)`.
 */
export function setExecPluginCertExpiry(authenticator: object, notAfterMs: number | undefined): void {
  if (notAfterMs === undefined) expiries.delete(authenticator);
  else expiries.set(authenticator, notAfterMs);
}

/**
 * The earliest expiry (ms since the epoch) of the client certificates held by exec authenticators,
 * or `undefined` when none holds one: what `rest_client_exec_plugin_ttl_seconds` counts down to.
 */
export function earliestExecPluginCertExpiry(): number | undefined {
  let earliest: number | undefined;
  for (const t of expiries.values()) if (earliest === undefined || t < earliest) earliest = t;
  return earliest;
}
