/**
 * KEP-5866 shard selection shared by clients and the embedded server (k8s.io/apimachinery/pkg/sharding):
 * the 64-bit FNV-1a hash and `shardRange(...)` selectors.
 */
export { fnv1a64, fnv1a64BigInt, fnv1a64Hex, fnv1a64Into } from './hash.ts';
export type { Hash64 } from './hash.ts';
export {
  HASH_SPACE_END,
  ShardKeyField,
  ShardSelector,
  ShardSelectorParseError,
  evenShardSelector,
  formatShardBound,
  normalizeRanges,
  parseShardSelector,
  shardInfoOf,
} from './selector.ts';
export type { ShardInfo, ShardKeyFieldValue, ShardRange } from './selector.ts';
