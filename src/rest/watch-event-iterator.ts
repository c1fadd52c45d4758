/**
 * The event iterator of a watch response: decodes the body chunk by chunk and hands out the events
 * of each chunk from a buffer.
 *
 * This is a hot path. An async generator costs several promise hops per `yield` (the yielded value
 * is awaited, then the consumer's request is resolved); here an event that is already decoded is
 * returned as one resolved promise, and only the call that needs the next network chunk awaits.
 * `nextBatch()` hands over all the events of a chunk at once, for consumers that handle them in
 * one synchronous loop.
 */
import type { WatchEvent, WatchEventBatchIterator } from '../apimachinery/watch.ts';
import type { ManagedFieldsInterner } from './managed-fields-interner.ts';
import { WatchStreamDecoder } from './watch-decoder.ts';

/** How the stream's owner maps the byte source's failures and ends. */
export interface WatchEventSource {
  /** The body's chunks. */
  readonly chunks: AsyncIterator<Uint8Array>;
  /**
   * The error to raise for a failure of `chunks`, or undefined to end the stream cleanly (e.g. a
   * connection reset between events). `midEvent` tells whether part of an event had arrived.
   */
  readError(err: unknown, midEvent: boolean): unknown;
  /** True when the consumer stopped the stream: its end is then not decoded. */
  stopped(): boolean;
  /** Runs once, when the iteration ends for any reason (end, error or `return()`). */
  cleanup(): void;
  /** Shares managedFields fieldsV1 values between the decoded objects (see ManagedFieldsInterner). */
  readonly interner?: ManagedFieldsInterner;
  /** The body's decoder (default: JSON lines, WatchStreamDecoder; a protobuf stream brings its own). */
  readonly decoder?: WatchBodyDecoder;
}

/** What decodes a watch body: WatchStreamDecoder (JSON) and ProtobufWatchDecoder. */
export interface WatchBodyDecoder {
  /** Decodes what `chunk` completes into `out`; returns the first decode error. */
  write(chunk: Uint8Array, out: Array<WatchEvent<never>>): Error | undefined;
  /** Finishes the stream; returns an error for a truncated event. */
  end(out: Array<WatchEvent<never>>): Error | undefined;
  /** Part of an event has arrived but not all of it. */
  readonly midEvent: boolean;
}

const finished: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * An AsyncIterableIterator over a watch stream's events. Events decoded before a bad line or a
 * failure are handed out first; then the error is thrown once and the iterator is done.
 */
export class WatchEventIterator<T> implements AsyncIterableIterator<WatchEvent<T>>, WatchEventBatchIterator<T> {
  readonly #source: WatchEventSource;
  readonly #decoder: WatchBodyDecoder;
  #buffer: Array<WatchEvent<T>> = [];
  #index = 0;
  #failed = false;
  #failure: unknown;
  #ended = false;
  #cleanedUp = false;
  /** Calls waiting for a chunk; while there are any, later calls queue behind them (order is kept). */
  #waiting = 0;
  #reading: Promise<void> | undefined;

  constructor(source: WatchEventSource) {
    this.#source = source;
    this.#decoder = source.decoder ?? new WatchStreamDecoder<T>(source.interner === undefined ? {} : { interner: source.interner });
  }

  /** Iterating yields the events. */
  [Symbol.asyncIterator](): this {
    return this;
  }

  /** The next event; done when the stream ends or was stopped. */
  next(): Promise<IteratorResult<WatchEvent<T>>> {
    if (this.#waiting === 0 && this.#index < this.#buffer.length) {
      return Promise.resolve({ done: false, value: this.#buffer[this.#index++]! });
    }
    return this.#nextSlow();
  }

  /** Every event decoded and not yet handed out (at least one), or undefined once the stream ended. */
  nextBatch(): Promise<ReadonlyArray<WatchEvent<T>> | undefined> {
    if (this.#waiting === 0 && this.#index < this.#buffer.length) return Promise.resolve(this.#takeAll());
    return this.#fill(this.#takeAll);
  }

  readonly #takeOne = (): IteratorResult<WatchEvent<T>> => ({ done: false, value: this.#buffer[this.#index++]! });

  readonly #takeAll = (): Array<WatchEvent<T>> => {
    const batch = this.#index === 0 ? this.#buffer : this.#buffer.slice(this.#index);
    this.#buffer = [];
    this.#index = 0;
    return batch;
  };

  /** Ends the iteration: the source is released and every later `next()` is done. */
  return(): Promise<IteratorResult<WatchEvent<T>>> {
    this.#ended = true;
    this.#failed = false;
    this.#buffer = [];
    this.#index = 0;
    this.#cleanup();
    return Promise.resolve(finished);
  }

  async #nextSlow(): Promise<IteratorResult<WatchEvent<T>>> {
    return (await this.#fill(this.#takeOne)) ?? finished;
  }

  /**
   * Waits, behind any earlier waiting call, until an event is buffered, then hands `take`'s result
   * over (taken at once, so that no other call can take the same events); undefined once the
   * stream ended. Throws the failure once.
   */
  async #fill<R>(take: () => R): Promise<R | undefined> {
    this.#waiting++;
    try {
      for (;;) {
        if (this.#reading !== undefined) {
          await this.#reading;
          continue;
        }
        if (this.#index < this.#buffer.length) return take();
        if (this.#failed) {
          this.#failed = false;
          this.#ended = true;
          this.#cleanup();
          throw this.#failure;
        }
        if (this.#ended) {
          this.#cleanup();
          return undefined;
        }
        this.#reading = this.#read();
        try {
          await this.#reading;
        } finally {
          this.#reading = undefined;
        }
      }
    } finally {
      this.#waiting--;
    }
  }

  /** Reads one chunk into the (consumed) buffer, or records the end or the failure. */
  async #read(): Promise<void> {
    this.#buffer = [];
    this.#index = 0;
    let step: IteratorResult<Uint8Array>;
    try {
      step = await this.#source.chunks.next();
    } catch (err) {
      if (this.#ended) return;
      const raised = this.#source.readError(err, this.#decoder.midEvent);
      if (raised === undefined) this.#ended = true;
      else this.#fail(raised);
      return;
    }
    if (this.#ended) return;
    if (step.done === true) {
      const error = this.#source.stopped() ? undefined : this.#decoder.end(this.#buffer as Array<WatchEvent<never>>);
      if (error !== undefined) this.#fail(error);
      else this.#ended = true;
      return;
    }
    const error = this.#decoder.write(step.value, this.#buffer as Array<WatchEvent<never>>);
    if (error !== undefined) this.#fail(error);
  }

  #fail(err: unknown): void {
    this.#failed = true;
    this.#failure = err;
  }

  #cleanup(): void {
    if (this.#cleanedUp) return;
    this.#cleanedUp = true;
    this.#source.cleanup();
  }
}

/**
 * Decodes a byte stream into watch events. Throws a WatchDecodeError after yielding every event
 * that preceded a bad line, or when the stream ends mid-event; a failure of `source` is rethrown as
 * it is, after the events decoded before it.
 */
export function decodeWatchEvents<T>(source: AsyncIterable<Uint8Array>): AsyncIterableIterator<WatchEvent<T>> {
  const chunks = source[Symbol.asyncIterator]();
  return new WatchEventIterator<T>({
    chunks,
    readError: (err) => err,
    stopped: () => false,
    cleanup: () => void chunks.return?.()?.catch(() => undefined),
  });
}
