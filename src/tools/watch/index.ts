/**
 * kubeloom/tools/watch: waiting for conditions on watched collections (client-go tools/watch).
 */
export { untilWithoutRetry, untilWithSync, waitFor, WaitTimeoutError, WatchClosedError } from './until.ts';
export type { ConditionFunc, InformerEventSource, ObjectEvent, PreconditionFunc, UntilOptions, UntilWithSyncOptions } from './until.ts';
