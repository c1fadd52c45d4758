/**
 * The min-heap of items waiting in a delaying queue (upstream waitForPriorityQueue on container/heap).
 *
 * Entries are ordered by ready time; entries ready at the same time come out in insertion order (upstream
 * leaves ties unordered), which keeps delayed adds fair and tests deterministic. Each entry tracks its own
 * index so that its ready time can be moved earlier in O(log n).
 */

/** An item waiting to be added to the queue. */
export interface WaitFor<T> {
  readonly item: T;
  /** Clock time (ms) at which the item becomes ready. */
  readyAt: number;
  /** Insertion sequence, the tie-breaker between equal ready times. */
  readonly seq: number;
  /** Position in the heap array; -1 once popped. */
  index: number;
}

/** A binary min-heap of {@link WaitFor} entries. */
export class WaitForHeap<T> {
  readonly #entries: WaitFor<T>[] = [];
  #seq = 0;

  get size(): number {
    return this.#entries.length;
  }

  /** The entry that becomes ready first, without removing it. */
  peek(): WaitFor<T> | undefined {
    return this.#entries[0];
  }

  /** Adds a new entry and returns it. */
  push(item: T, readyAt: number): WaitFor<T> {
    const entry: WaitFor<T> = { item, readyAt, seq: this.#seq++, index: this.#entries.length };
    this.#entries.push(entry);
    this.#up(entry.index);
    return entry;
  }

  /** Removes and returns the entry that becomes ready first. */
  pop(): WaitFor<T> | undefined {
    const entries = this.#entries;
    const top = entries[0];
    if (top === undefined) return undefined;
    const last = entries.pop()!;
    if (last !== top) {
      entries[0] = last;
      last.index = 0;
      this.#down(0);
    }
    top.index = -1;
    return top;
  }

  /** Restores heap order after `entry.readyAt` was lowered. */
  fixEarlier(entry: WaitFor<T>): void {
    this.#up(entry.index);
  }

  /** Removes every entry. */
  clear(): void {
    for (const e of this.#entries) e.index = -1;
    this.#entries.length = 0;
  }

  #up(i: number): void {
    const entries = this.#entries;
    const entry = entries[i]!;
    const readyAt = entry.readyAt;
    const seq = entry.seq;
    while (i > 0) {
      const parentIndex = (i - 1) >> 1;
      const parent = entries[parentIndex]!;
      if (parent.readyAt < readyAt || (parent.readyAt === readyAt && parent.seq < seq)) break;
      entries[i] = parent;
      parent.index = i;
      i = parentIndex;
    }
    entries[i] = entry;
    entry.index = i;
  }

  #down(i: number): void {
    const entries = this.#entries;
    const n = entries.length;
    const entry = entries[i]!;
    const readyAt = entry.readyAt;
    const seq = entry.seq;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      let c = entries[child]!;
      const right = child + 1;
      if (right < n) {
        const r = entries[right]!;
        if (r.readyAt < c.readyAt || (r.readyAt === c.readyAt && r.seq < c.seq)) {
          child = right;
          c = r;
        }
      }
      if (readyAt < c.readyAt || (readyAt === c.readyAt && seq < c.seq)) break;
      entries[i] = c;
      c.index = i;
      i = child;
    }
    entries[i] = entry;
    entry.index = i;
  }
}
