/**
 * kubeloom/sharding: sharded controllers on Kubernetes itself — KEP-5866 shard selectors, a
 * consistent-hash ring of replicas kept in Leases with a hand-over that never lets two replicas work
 * on one object at once, and a controller that only reconciles its replica's share. See docs/sharding.md.
 */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../node-version.ts';
export * from '../apimachinery/sharding/index.ts';
export { ShardedListWatch } from '../tools/cache/sharded-listwatch.ts';
export type { ShardedListWatchOptions } from '../tools/cache/sharded-listwatch.ts';
export { HashRing, defaultVirtualNodes, tokenOf } from './hash-ring.ts';
export { coarsenRanges, formatRanges, intersectRanges, parseRanges, rangesFraction, sameRanges, subtractRanges, unionRanges } from './ranges.ts';
export {
  ClaimsAnnotation,
  RingLabel,
  ShardRing,
  ShardRingConfigError,
  defaultRingLeaseDurationMs,
  defaultRingRenewDeadlineMs,
  defaultRingRetryPeriodMs,
} from './shard-ring.ts';
export type { RingLeaseClient, RingMember, ShardRingListener, ShardRingOptions, ShardRingStatus } from './shard-ring.ts';
export { ShardedController } from './sharded-controller.ts';
export type { ShardedControllerOptions } from './sharded-controller.ts';
export { ShardGate, ShardNotReadyError, controllerShardKey, defaultMaxSelectorRanges, informersCache, ownersOf } from './shard-gate.ts';
export type { OwnedOptions, OwnerShardKey, ShardGateOptions, ShardedCache, ShardingStatus } from './shard-gate.ts';
