/**
 * An async iterator over items pushed in batches by a producer (a streamed LIST), with
 * backpressure: the producer's `deliver` resolves only once the consumer took the whole batch, so a
 * slow loop body pauses the reading of the response instead of letting items pile up.
 *
 * Items already delivered are handed out as resolved promises, without awaiting anything; only a
 * `next()` that finds the batch used up waits. Breaking out of the loop (`return()`) aborts the
 * producer's signal, releases a paused producer and ignores what it does afterwards.
 */
import { KubeloomError } from '../../apimachinery/errors.ts';

/** The reason a producer's signal carries when the consumer stopped early. */
export class ItemIteratorClosedError extends KubeloomError {
  constructor() {
    super('ERR_ITEM_ITERATOR_CLOSED', 'the items were no longer wanted');
  }
}

/**
 * Produces the items: calls `deliver` with each batch in order (awaiting it) and resolves when
 * there are no more; a rejection is raised to the consumer after the items delivered before it.
 */
export type ItemProducer<T> = (deliver: (items: T[]) => Promise<void>, signal: AbortSignal) => Promise<void>;

const finished: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/** See the module comment. Iterate it once. */
export class ItemIterator<T> implements AsyncIterableIterator<T> {
  #batch: T[] = [];
  #index = 0;
  /** Releases the producer waiting in `deliver` once the batch is used up. */
  #release: (() => void) | undefined;
  #waiting: Array<() => void> = [];
  #ended = false;
  #failed = false;
  #failure: unknown;
  #closed = false;
  readonly #abort = new AbortController();
  readonly #unlink: () => void;

  /** Starts `producer` at once; `signal` (optional) aborts it, and iteration then fails with its reason. */
  constructor(producer: ItemProducer<T>, signal?: AbortSignal) {
    const onAbort = (): void => this.#abort.abort(signal!.reason);
    if (signal?.aborted === true) this.#abort.abort(signal.reason);
    else signal?.addEventListener('abort', onAbort, { once: true });
    this.#unlink = () => signal?.removeEventListener('abort', onAbort);
    producer(this.#deliver, this.#abort.signal).then(
      () => this.#end(false, undefined),
      (err: unknown) => this.#end(true, err),
    );
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<T>> {
    if (this.#index < this.#batch.length) return Promise.resolve({ done: false, value: this.#batch[this.#index++]! });
    return this.#nextSlow();
  }

  /** Stops: the producer's signal aborts and every later `next()` is done. */
  return(): Promise<IteratorResult<T>> {
    if (!this.#closed) {
      this.#closed = true;
      this.#batch = [];
      this.#index = 0;
      if (!this.#ended) this.#abort.abort(new ItemIteratorClosedError());
      this.#releaseProducer();
      this.#unlink();
      this.#wake();
    }
    return Promise.resolve(finished);
  }

  async #nextSlow(): Promise<IteratorResult<T>> {
    for (;;) {
      if (this.#closed) return finished;
      if (this.#index < this.#batch.length) return { done: false, value: this.#batch[this.#index++]! };
      this.#releaseProducer();
      if (this.#ended) {
        this.#closed = true;
        this.#unlink();
        if (this.#failed) {
          this.#failed = false;
          throw this.#failure;
        }
        return finished;
      }
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
  }

  readonly #deliver = (items: T[]): Promise<void> => {
    if (this.#closed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.#batch = items;
      this.#index = 0;
      this.#release = resolve;
      this.#wake();
    });
  };

  #releaseProducer(): void {
    const release = this.#release;
    this.#release = undefined;
    this.#batch = [];
    this.#index = 0;
    release?.();
  }

  #end(failed: boolean, err: unknown): void {
    this.#ended = true;
    // After return(), what the aborted producer ends with is of no interest.
    if (failed && !this.#closed) {
      this.#failed = true;
      this.#failure = err;
    }
    this.#wake();
  }

  #wake(): void {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const w of waiting) w();
  }
}
