/**
 * Server-side sharded LIST and WATCH (KEP-5866, kube-apiserver 1.36 alpha behind the
 * ShardedListAndWatch feature gate; upstream: k8s.io/apiserver/pkg/sharding and the
 * SelectionPredicate / cacher filtering). With the gate on, a `shardSelector` parameter restricts a
 * list or watch to the objects whose 64-bit FNV-1a hash of the named field lies in its ranges, and a
 * filtered list echoes the selector in `metadata.shardInfo`. With the gate off (the default, as
 * upstream) the parameter is ignored and no shardInfo is sent: clients filter themselves.
 *
 * Assumptions where the public material is silent: a malformed selector is a 400 BadRequest
 * ("invalid shard selector: …"); shardInfo echoes the request's string unchanged; watches carry no
 * shardInfo (the initial-events-end bookmark of a watch-list does not either); a sharded list has
 * no remainingItemCount, as with label and field selectors.
 */
import { parseShardSelector, ShardSelectorParseError, type ShardInfo, type ShardSelector } from '../apimachinery/sharding/selector.ts';
import { badRequest } from './status.ts';
import type { WatchFilter } from './watch-stream.ts';

/** The feature gates of the embedded server (kube-apiserver `--feature-gates`). */
export interface FeatureGates {
  /** KEP-5866: honour `shardSelector` on lists and watches (default false, alpha in 1.36). */
  ShardedListAndWatch?: boolean;
}

/** The gates the embedded server knows, with their defaults. */
export const knownFeatureGates: Readonly<Required<FeatureGates>> = { ShardedListAndWatch: false };

/**
 * Parses `--feature-gates` text (`A=true,B=false`); throws for an unknown gate or a value other
 * than true/false, as component-base's flag does.
 */
export function parseFeatureGates(text: string): FeatureGates {
  const out: Record<string, boolean> = {};
  for (const part of text.split(',')) {
    const item = part.trim();
    if (item === '') continue;
    const eq = item.indexOf('=');
    const name = eq < 0 ? item : item.slice(0, eq).trim();
    const value = eq < 0 ? '' : item.slice(eq + 1).trim();
    if (!(name in knownFeatureGates)) throw new Error(`unrecognized feature gate: ${name}`);
    if (value !== 'true' && value !== 'false') throw new Error(`invalid value of ${name}=${value}, err: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
    out[name] = value === 'true';
  }
  return out as FeatureGates;
}

/** A request's shard selection: its filter and the shardInfo a list echoes. */
export interface ShardSelection {
  /** The parsed selector. */
  selector: ShardSelector;
  /** Keeps the objects of the shard. */
  filter: WatchFilter;
  /** `metadata.shardInfo` of a list served with it. */
  info: ShardInfo;
}

/**
 * The request's shard selection, or undefined when the gate is off or the parameter absent (or
 * empty: upstream treats an empty selector as none given on the wire).
 */
export function shardSelectionOf(gates: FeatureGates | undefined, q: URLSearchParams): ShardSelection | undefined {
  if (gates?.ShardedListAndWatch !== true) return undefined;
  const text = q.get('shardSelector');
  if (text === null || text.trim() === '') return undefined;
  let selector: ShardSelector;
  try {
    selector = parseShardSelector(text);
  } catch (err) {
    if (err instanceof ShardSelectorParseError) throw badRequest(`invalid shard selector: ${err.message}`);
    throw err;
  }
  return { selector, filter: (o) => selector.matches(o as { metadata?: { uid?: string; namespace?: string } }), info: { selector: text } };
}

/** `filter` restricted to the shard, when there is one. */
export function withShard(filter: WatchFilter, shard: ShardSelection | undefined): WatchFilter {
  if (shard === undefined) return filter;
  const inShard = shard.filter;
  return (o) => inShard(o) && filter(o);
}
