/**
 * The small logging interface used by the events and leader-election packages, standing in for klog.
 * Pass your own to route messages to a structured logger; the default writes errors to stderr and
 * discards the rest.
 */

/** Structured fields attached to a log line. */
export type LogFields = Record<string, unknown>;

/** A leveled logger. `debug` matches klog's verbose levels, `info` its default level. */
export interface Logger {
  /** Detail useful when diagnosing (klog V(4) and above). */
  debug(message: string, fields?: LogFields): void;
  /** Normal operation worth noting (klog Info). */
  info(message: string, fields?: LogFields): void;
  /** Something failed or data was dropped (klog Error). */
  error(message: string, fields?: LogFields): void;
}

/** Discards everything. */
export const noopLogger: Logger = {
  debug() {},
  info() {},
  error() {},
};

/** The default: errors go to `console.error` (with their fields), debug and info are discarded. */
export const defaultLogger: Logger = {
  debug() {},
  info() {},
  error(message, fields) {
    if (fields === undefined) console.error(message);
    else console.error(message, fields);
  },
};
