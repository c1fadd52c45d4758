/**
 * A growable FIFO ring buffer (k8s.io/utils/buffer.RingGrowing): O(1) push and shift without the
 * O(n) cost of `Array.prototype.shift` on large arrays. Used by the queues and by each handler's
 * notification buffer.
 */
export class RingBuffer<T> {
  #buf: (T | undefined)[];
  #mask: number;
  #head = 0;
  #len = 0;
  readonly #initial: number;

  /** @param initialCapacity rounded up to a power of two (default 16). */
  constructor(initialCapacity = 16) {
    let cap = 1;
    while (cap < initialCapacity) cap <<= 1;
    this.#initial = cap;
    this.#buf = new Array<T | undefined>(cap);
    this.#mask = cap - 1;
  }

  /** Number of elements held. */
  get length(): number {
    return this.#len;
  }

  /** Appends `value` at the tail, doubling the capacity when full. */
  push(value: T): void {
    if (this.#len === this.#buf.length) this.#grow();
    this.#buf[(this.#head + this.#len) & this.#mask] = value;
    this.#len++;
  }

  /** Removes and returns the head, or undefined when empty. */
  shift(): T | undefined {
    if (this.#len === 0) return undefined;
    const value = this.#buf[this.#head];
    // Drop the reference so the element can be collected.
    this.#buf[this.#head] = undefined;
    this.#head = (this.#head + 1) & this.#mask;
    this.#len--;
    // A buffer that grew for a burst (an initial list) gives its memory back once drained.
    if (this.#len === 0 && this.#buf.length > 4096) this.clear();
    return value;
  }

  /** The element at position `i` from the head (0 = next to shift), or undefined. */
  at(i: number): T | undefined {
    if (i < 0 || i >= this.#len) return undefined;
    return this.#buf[(this.#head + i) & this.#mask];
  }

  /** Removes every element and shrinks back to the initial capacity. */
  clear(): void {
    this.#buf = new Array<T | undefined>(this.#initial);
    this.#mask = this.#initial - 1;
    this.#head = 0;
    this.#len = 0;
  }

  /** Iterates from head to tail without removing. */
  *[Symbol.iterator](): IterableIterator<T> {
    for (let i = 0; i < this.#len; i++) yield this.#buf[(this.#head + i) & this.#mask] as T;
  }

  #grow(): void {
    const old = this.#buf;
    const next = new Array<T | undefined>(old.length * 2);
    for (let i = 0; i < this.#len; i++) next[i] = old[(this.#head + i) & this.#mask];
    this.#buf = next;
    this.#mask = next.length - 1;
    this.#head = 0;
  }
}
