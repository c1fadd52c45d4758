export { Backoff, ExponentialBackoffManager, jitter } from './backoff.ts';
export type { BackoffManager, BackoffOptions, ExponentialBackoffManagerOptions, RandomSource } from './backoff.ts';
