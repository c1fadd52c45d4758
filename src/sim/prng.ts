/**
 * The seeded pseudo-random generator behind every choice a simulation makes (no upstream counterpart:
 * client-go has no simulator; FoundationDB's and TigerBeetle's deterministic simulators are the model).
 * SplitMix32: tiny, fast, and good enough to pick schedules; it is not for cryptography.
 */

/** A seeded stream of pseudo-random numbers: the same seed yields the same stream on every machine. */
export class Prng {
  #state: number;

  /** @param seed any integer; only its low 32 bits are used. */
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** The next 32-bit unsigned integer. */
  nextUint32(): number {
    this.#state = (this.#state + 0x9e3779b9) >>> 0;
    let z = this.#state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  }

  /** The next number in [0, 1), as `Math.random` returns. */
  next(): number {
    return this.nextUint32() / 0x1_0000_0000;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** A new generator derived from this one, so two consumers do not shift each other's draws. */
  fork(salt: number): Prng {
    return new Prng((this.nextUint32() ^ Math.imul(salt, 0x27d4eb2d)) >>> 0);
  }
}
