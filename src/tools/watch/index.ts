/**
 * kubeloom/tools/watch: waiting for conditions on watched collections (client-go tools/watch).
 */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../../node-version.ts';
export { untilWithoutRetry, untilWithSync, waitFor, WaitTimeoutError, WatchClosedError } from './until.ts';
export type { ConditionFunc, InformerEventSource, ObjectEvent, PreconditionFunc, UntilOptions, UntilWithSyncOptions } from './until.ts';
