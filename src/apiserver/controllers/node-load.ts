/**
 * The scheduler stand-in's count of pods per node, indexed for its choice of the least-loaded node (then
 * the first by name), as kube-scheduler's NodeResourcesFit/LeastAllocated scoring would spread pods, reduced to a pod count.
 * kube-scheduler keeps a per-node cache (pkg/scheduler/internal/cache) and scores every feasible node; at
 * kwok scale (1,000 nodes) visiting every node for every pod was the stand-in's largest cost, so the nodes
 * are grouped by their count instead.
 */

// Index of the first name in sorted `names` that is not below `name`.
function lowerBound(names: readonly string[], name: string): number {
  let lo = 0;
  let hi = names.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (names[mid]! < name) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The count of assigned, unfinished pods per node, with the nodes grouped by that count, each group in name
 * order: the least-loaded fitting node (then the first by name) is found by looking at the emptiest nodes
 * first, instead of visiting every node for every pod (1,000 nodes per pod at kwok scale). A pod moves its
 * node from one group to the next, a binary search and one splice.
 */
export class NodeLoad {
  readonly #load = new Map<string, number>();
  readonly #byLoad = new Map<number, string[]>();

  /** The node's count (0 for a node never seen). */
  get(node: string): number {
    return this.#load.get(node) ?? 0;
  }

  /** Makes sure `node` is indexed (with 0 pods when it was never seen). */
  track(node: string): void {
    if (!this.#load.has(node)) this.#set(node, 0);
  }

  /** Adds `delta` to the node's count. */
  add(node: string, delta: number): void {
    this.#set(node, (this.#load.get(node) ?? 0) + delta);
  }

  #set(node: string, load: number): void {
    const before = this.#load.get(node);
    if (before !== undefined) {
      const group = this.#byLoad.get(before)!;
      group.splice(lowerBound(group, node), 1);
      if (group.length === 0) this.#byLoad.delete(before);
    }
    this.#load.set(node, load);
    let group = this.#byLoad.get(load);
    if (group === undefined) this.#byLoad.set(load, (group = []));
    group.splice(lowerBound(group, node), 0, node);
  }

  /** Among `fits`, the node with the fewest pods, then the first by name; undefined when none is indexed. */
  leastLoaded(fits: ReadonlySet<string>): string | undefined {
    for (const load of [...this.#byLoad.keys()].sort((a, b) => a - b)) {
      for (const node of this.#byLoad.get(load)!) if (fits.has(node)) return node;
    }
    return undefined;
  }
}
