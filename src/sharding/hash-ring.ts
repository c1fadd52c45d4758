/**
 * Consistent hashing with virtual nodes over the 64-bit FNV-1a space of KEP-5866 (the ring of
 * timebertt/kubernetes-controller-sharding pkg/sharding/consistenthash/ring.go: each member places
 * `virtualNodes` tokens at hash(`<member>-<i>`), 100 by default, and a key belongs to the first token
 * at or after its hash, wrapping around). Differences: tokens are placed by FNV-1a 64 with a MurmurHash3
 * finalizer rather than xxhash, and the ring also answers the other way round — the hash ranges a member owns — which is
 * what a shard selector needs.
 *
 * Why consistent hashing (see docs/sharding.md): the assignment is a pure function of the member
 * set, so every replica computes the same ranges from the same Leases with no stored state, and a
 * membership change moves only the ranges of the member that joined or left (about 1/N of the
 * space), spread evenly over the others.
 */
import { fnv1a64BigInt } from '../apimachinery/sharding/hash.ts';
import { HASH_SPACE_END, normalizeRanges, type ShardRange } from '../apimachinery/sharding/selector.ts';

const MASK64 = (1n << 64n) - 1n;

/**
 * A token's place: FNV-1a of `<member>-<i>` followed by MurmurHash3's 64-bit finalizer. FNV-1a alone
 * mixes its last bytes poorly, so the tokens of one member (names differing only at the end) would
 * cluster; the finalizer spreads them (kubernetes-controller-sharding uses xxhash for this).
 */
export function tokenOf(name: string): bigint {
  let k = fnv1a64BigInt(name);
  k ^= k >> 33n;
  k = (k * 0xff51afd7ed558ccdn) & MASK64;
  k ^= k >> 33n;
  k = (k * 0xc4ceb9fe1a85ec53n) & MASK64;
  k ^= k >> 33n;
  return k;
}

/** Tokens per member (kubernetes-controller-sharding's DefaultTokensPerNode). */
export const defaultVirtualNodes = 100;

/**
 * An immutable ring of members.
 *
 * @example
 * const ring = new HashRing(['a', 'b', 'c']);
 * ring.ownerOf(fnv1a64BigInt(pod.metadata.uid)); // 'b'
 * ring.rangesOf('b'); // about a third of the space, in ~100 ranges
 */
export class HashRing {
  /** The members, sorted. */
  readonly members: readonly string[];
  readonly #tokens: bigint[];
  readonly #owners: string[];
  readonly #ranges = new Map<string, ShardRange[]>();

  constructor(members: Iterable<string>, virtualNodes = defaultVirtualNodes) {
    this.members = [...new Set(members)].sort();
    const placed: Array<{ token: bigint; member: string }> = [];
    for (const member of this.members) {
      for (let i = 0; i < virtualNodes; i++) placed.push({ token: tokenOf(`${member}-${i}`), member });
    }
    // Equal tokens (vanishingly rare): the smaller member name keeps it, on every replica alike.
    placed.sort((a, b) => (a.token < b.token ? -1 : a.token > b.token ? 1 : a.member < b.member ? -1 : a.member > b.member ? 1 : 0));
    this.#tokens = [];
    this.#owners = [];
    for (const p of placed) {
      if (this.#tokens.length > 0 && this.#tokens[this.#tokens.length - 1] === p.token) continue;
      this.#tokens.push(p.token);
      this.#owners.push(p.member);
    }
    const byMember = new Map<string, ShardRange[]>(this.members.map((m) => [m, []]));
    const n = this.#tokens.length;
    for (let i = 0; i < n; i++) {
      // Token i owns (token i-1, token i], i.e. [token i-1 + 1, token i + 1); token 0 also the wrap-around.
      const list = byMember.get(this.#owners[i]!)!;
      const end = this.#tokens[i]! + 1n;
      if (i === 0) {
        list.push({ start: 0n, end });
        if (n > 0) list.push({ start: this.#tokens[n - 1]! + 1n, end: HASH_SPACE_END });
      } else list.push({ start: this.#tokens[i - 1]! + 1n, end });
    }
    for (const [m, list] of byMember) this.#ranges.set(m, normalizeRanges(list));
  }

  /** The member owning a hash (undefined for an empty ring). */
  ownerOf(hash: bigint): string | undefined {
    const n = this.#tokens.length;
    if (n === 0) return undefined;
    let a = 0;
    let b = n;
    while (a < b) {
      const m = (a + b) >> 1;
      if (this.#tokens[m]! < hash) a = m + 1;
      else b = m;
    }
    return this.#owners[a === n ? 0 : a];
  }

  /** The ranges a member owns, merged and ascending (empty for a non-member). */
  rangesOf(member: string): ShardRange[] {
    return this.#ranges.get(member) ?? [];
  }
}
