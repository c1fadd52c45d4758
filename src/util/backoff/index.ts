// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../../node-version.ts';
export { Backoff, ExponentialBackoffManager, jitter } from './backoff.ts';
export type { BackoffManager, BackoffOptions, ExponentialBackoffManagerOptions, RandomSource } from './backoff.ts';
