/**
 * The min-heap of items waiting in a delaying queue (upstream waitForPriorityQueue on container/heap).
 *
 * Entries are ordered by ready time; entries ready at the same time come out in insertion order (upstream
 * leaves ties unordered), which keeps delayed adds fair and tests deterministic. Ready times and
 * insertion numbers live in typed arrays beside the entries, so sifting compares plain numbers in
 * contiguous memory instead of chasing one object per comparison.
 *
 * There is no decrease-key: to make an item ready earlier, the delaying queue pushes a new entry and
 * marks the old one superseded, and drops it when it surfaces.
 */

/** An item waiting to be added to the queue. */
export interface WaitFor<T> {
  readonly item: T;
  /** Clock time (ms) at which the item becomes ready. */
  readonly readyAt: number;
  /** Set when a sooner entry for the same item replaced this one; the heap's owner skips it. */
  superseded: boolean;
}

/** A binary min-heap of {@link WaitFor} entries ordered by (readyAt, insertion order). */
export class WaitForHeap<T> {
  // Invariant: for i < size, #times[i] and #seqs[i] are the ready time and insertion number of #entries[i].
  #times = new Float64Array(64);
  #seqs = new Float64Array(64);
  readonly #entries: WaitFor<T>[] = [];
  #nextSeq = 0;

  get size(): number {
    return this.#entries.length;
  }

  /** The entry that becomes ready first, without removing it. */
  peek(): WaitFor<T> | undefined {
    return this.#entries[0];
  }

  /** Adds a new entry and returns it. */
  push(item: T, readyAt: number): WaitFor<T> {
    const entry: WaitFor<T> = { item, readyAt, superseded: false };
    const seq = this.#nextSeq++;
    let i = this.#entries.length;
    if (i === this.#times.length) this.#grow();
    this.#entries.push(entry);
    const times = this.#times;
    const seqs = this.#seqs;
    const entries = this.#entries;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pt = times[p]!;
      if (pt < readyAt || (pt === readyAt && seqs[p]! < seq)) break;
      times[i] = pt;
      seqs[i] = seqs[p]!;
      entries[i] = entries[p]!;
      i = p;
    }
    times[i] = readyAt;
    seqs[i] = seq;
    entries[i] = entry;
    return entry;
  }

  /** Removes and returns the entry that becomes ready first. */
  pop(): WaitFor<T> | undefined {
    const entries = this.#entries;
    const top = entries[0];
    if (top === undefined) return undefined;
    const n = entries.length - 1;
    const last = entries.pop()!;
    if (n === 0) return top;
    const times = this.#times;
    const seqs = this.#seqs;
    const lt = times[n]!;
    const ls = seqs[n]!;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      let ct = times[c]!;
      let cs = seqs[c]!;
      const r = c + 1;
      if (r < n) {
        const rt = times[r]!;
        const rs = seqs[r]!;
        if (rt < ct || (rt === ct && rs < cs)) {
          c = r;
          ct = rt;
          cs = rs;
        }
      }
      if (lt < ct || (lt === ct && ls < cs)) break;
      times[i] = ct;
      seqs[i] = cs;
      entries[i] = entries[c]!;
      i = c;
    }
    times[i] = lt;
    seqs[i] = ls;
    entries[i] = last;
    return top;
  }

  /** Removes every entry. */
  clear(): void {
    this.#entries.length = 0;
  }

  #grow(): void {
    const times = new Float64Array(this.#times.length * 2);
    times.set(this.#times);
    this.#times = times;
    const seqs = new Float64Array(this.#seqs.length * 2);
    seqs.set(this.#seqs);
    this.#seqs = seqs;
  }
}
