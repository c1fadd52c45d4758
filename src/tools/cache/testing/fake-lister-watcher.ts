/**
 * A scripted in-memory {@link ListerWatcher} for tests of reflectors and informers: queue list
 * results, watch streams and errors in the order the code under test will ask for them, drive each
 * watch by hand, and inspect the options of every call.
 */
import type { Status } from '../../../api/meta/v1.ts';
import type { KubeList } from '../../../apimachinery/object.ts';
import type { ListOptions } from '../../../apimachinery/options.ts';
import { InitialEventsEndAnnotation, type Watch, type WatchEvent, type WatchEventBatchIterator } from '../../../apimachinery/watch.ts';
import type { ListerWatcher } from '../listwatch.ts';
import { RingBuffer } from '../ring-buffer.ts';

/**
 * A watch stream driven by the test. Events are delivered in order; `end()` closes it. With
 * `{ batches: true }` its iterator also offers `nextBatch()`, handing over every queued event at
 * once (up to a queued failure), as a network watch hands over the events of a chunk.
 */
export class FakeWatch<T> implements Watch<T> {
  /** The options the watch was opened with (signal removed). */
  options: ListOptions = {};
  readonly #batches: boolean;
  readonly #events = new RingBuffer<WatchEvent<T> | { fail: unknown }>();
  #ended = false;
  #stoppedReason: unknown;
  #stopped = false;
  #wake: (() => void) | undefined;

  constructor(options: { batches?: boolean } = {}) {
    this.#batches = options.batches === true;
  }

  /** Queues an ADDED event. */
  add(obj: T): this {
    return this.emit({ type: 'ADDED', object: obj });
  }

  /** Queues a MODIFIED event. */
  modify(obj: T): this {
    return this.emit({ type: 'MODIFIED', object: obj });
  }

  /** Queues a DELETED event. */
  delete(obj: T): this {
    return this.emit({ type: 'DELETED', object: obj });
  }

  /** Queues a BOOKMARK at `resourceVersion`, optionally marking the end of the initial events. */
  bookmark(resourceVersion: string, initialEventsEnd = false): this {
    const metadata: { resourceVersion: string; annotations?: Record<string, string> } = { resourceVersion };
    if (initialEventsEnd) metadata.annotations = { [InitialEventsEndAnnotation]: 'true' };
    return this.emit({ type: 'BOOKMARK', object: { metadata } as T });
  }

  /** Queues an ERROR event carrying `status`. */
  error(status: Status): this {
    return this.emit({ type: 'ERROR', object: status });
  }

  /** Makes the iteration throw `err` after the events queued so far (a cut connection). */
  fail(err: unknown): this {
    this.#events.push({ fail: err });
    this.#notify();
    return this;
  }

  /** Queues any event. */
  emit(event: WatchEvent<T>): this {
    this.#events.push(event);
    this.#notify();
    return this;
  }

  /** Ends the stream cleanly after the queued events (the server closed the watch). */
  end(): this {
    this.#ended = true;
    this.#notify();
    return this;
  }

  /** True once the consumer stopped the watch (abort or break). */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** The abort reason, if the consumer aborted it. */
  get stoppedReason(): unknown {
    return this.#stoppedReason;
  }

  /** Binds the consumer's abort signal (done by {@link FakeListerWatcher}). */
  bind(signal: AbortSignal | undefined): void {
    if (signal === undefined) return;
    const onAbort = (): void => {
      this.#stopped = true;
      this.#stoppedReason = signal.reason;
      this.#notify();
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  }

  /** Iterating yields the events pushed so far, then waits for more (in batches when the watch was made with them). */
  [Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> & Partial<WatchEventBatchIterator<T>> {
    const nextBatch = async (): Promise<ReadonlyArray<WatchEvent<T>> | undefined> => {
      for (;;) {
        if (this.#stopped) throw this.#stoppedReason;
        const batch: Array<WatchEvent<T>> = [];
        for (let item = this.#events.at(0); item !== undefined && !('fail' in item); item = this.#events.at(0)) batch.push(this.#events.shift() as WatchEvent<T>);
        if (batch.length > 0) return batch;
        const item = this.#events.shift();
        if (item !== undefined && 'fail' in item) throw item.fail;
        if (this.#ended) return undefined;
        await new Promise<void>((resolve) => (this.#wake = resolve));
      }
    };
    return {
      ...(this.#batches ? { nextBatch } : {}),
      next: async (): Promise<IteratorResult<WatchEvent<T>>> => {
        for (;;) {
          if (this.#stopped) throw this.#stoppedReason;
          const item = this.#events.shift();
          if (item !== undefined) {
            if ('fail' in item) throw item.fail;
            return { done: false, value: item };
          }
          if (this.#ended) return { done: true, value: undefined };
          await new Promise<void>((resolve) => (this.#wake = resolve));
        }
      },
      return: async (): Promise<IteratorResult<WatchEvent<T>>> => {
        this.#stopped = true;
        this.#notify();
        return { done: true, value: undefined };
      },
    };
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

/** A scripted list response: a list, an error to reject with, or a function of the options. */
export type ListScript<T> = KubeList<T> | Error | ((options: ListOptions) => KubeList<T> | Promise<KubeList<T>>);

/** A scripted watch response: a stream, an error to reject with, or a function of the options. */
export type WatchScript<T> = FakeWatch<T> | Error | ((options: ListOptions) => FakeWatch<T> | Promise<FakeWatch<T>>);

/** Options of a {@link FakeListerWatcher}. */
export interface FakeListerWatcherOptions {
  /** Declare watch-list unsupported, so reflectors go straight to LIST (default false). */
  watchListUnsupported?: boolean;
  /**
   * Offer `listStream`, handing each list's items over in batches of this size (a streamed LIST);
   * the batches are recorded in {@link FakeListerWatcher.streamedBatches}. Default: no listStream.
   */
  streamBatchSize?: number;
}

function withoutSignal(options: ListOptions): ListOptions {
  const copy: ListOptions = { ...options };
  delete copy.signal;
  return copy;
}

/**
 * A {@link ListerWatcher} answering from scripts, in call order. A call with nothing scripted
 * waits for the next {@link FakeListerWatcher.pushList} / {@link FakeListerWatcher.pushWatch} (or
 * for its signal to abort, rejecting with the reason), so tests may script before or after starting.
 *
 * @example
 * const lw = new FakeListerWatcher<Pod>({ watchListUnsupported: true });
 * lw.pushList({ metadata: { resourceVersion: '10' }, items: [pod] });
 * const w = lw.pushWatch(new FakeWatch<Pod>());
 * // ...start a reflector, then: w.add(otherPod); w.end();
 * assert.deepEqual(lw.listCalls.map((o) => o.resourceVersion), ['0']);
 */
export class FakeListerWatcher<T> implements ListerWatcher<T> {
  /** Options of every list call, in order (signal removed). */
  readonly listCalls: ListOptions[] = [];
  /** Options of every watch call, in order (signal removed). */
  readonly watchCalls: ListOptions[] = [];
  /** Every watch handed out, in order. */
  readonly watches: FakeWatch<T>[] = [];
  readonly #lists: ListScript<T>[] = [];
  readonly #watchScripts: WatchScript<T>[] = [];
  readonly #unsupported: boolean;
  #waiters: (() => void)[] = [];
  /** List calls waiting for a script. */
  readonly #pendingLists: (() => void)[] = [];
  /** Watch calls waiting for a script. */
  readonly #pendingWatches: (() => void)[] = [];

  /** Sizes of the batches `listStream` handed over, per call. */
  readonly streamedBatches: number[][] = [];
  readonly listStream: ListerWatcher<T>['listStream'];

  constructor(options: FakeListerWatcherOptions = {}) {
    this.#unsupported = options.watchListUnsupported ?? false;
    const size = options.streamBatchSize;
    if (size !== undefined) {
      this.listStream = async (o, onItems) => {
        const list = await this.list(o);
        const batches: number[] = [];
        this.streamedBatches.push(batches);
        for (let i = 0; i < list.items.length; i += size) {
          const batch = list.items.slice(i, i + size);
          batches.push(batch.length);
          onItems(batch);
        }
        return list;
      };
    }
  }

  /** Queues the answer to the next unanswered list call (answering a waiting call at once). */
  pushList(script: ListScript<T>): this {
    this.#lists.push(script);
    this.#pendingLists.shift()?.();
    return this;
  }

  /** Queues the answer to the next unanswered watch call; returns it for chaining when it is a stream. */
  pushWatch<S extends WatchScript<T>>(script: S): S {
    this.#watchScripts.push(script);
    this.#pendingWatches.shift()?.();
    return script;
  }

  /** The most recent watch handed out. */
  lastWatch(): FakeWatch<T> | undefined {
    return this.watches[this.watches.length - 1];
  }

  /** Resolves once at least `list` list calls and `watch` watch calls were made. */
  async waitForCalls(counts: { list?: number; watch?: number }): Promise<void> {
    while (this.listCalls.length < (counts.list ?? 0) || this.watchCalls.length < (counts.watch ?? 0)) {
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  isWatchListSemanticsUnsupported(): boolean {
    return this.#unsupported;
  }

  /** Answers with the next queued list script (waits for one). */
  async list(options: ListOptions): Promise<KubeList<T>> {
    this.listCalls.push(withoutSignal(options));
    this.#wakeWaiters();
    if (this.#lists.length === 0) await this.#waitForScript(this.#pendingLists, options.signal);
    const script = this.#lists.shift()!;
    if (script instanceof Error) throw script;
    if (typeof script === 'function') return script(options);
    return structuredClone(script);
  }

  /** Answers with the next queued watch script (waits for one). */
  async watch(options: ListOptions): Promise<Watch<T>> {
    this.watchCalls.push(withoutSignal(options));
    this.#wakeWaiters();
    if (this.#watchScripts.length === 0) await this.#waitForScript(this.#pendingWatches, options.signal);
    const script = this.#watchScripts.shift()!;
    if (script instanceof Error) throw script;
    const w = typeof script === 'function' ? await script(options) : script;
    w.options = withoutSignal(options);
    w.bind(options.signal);
    this.watches.push(w);
    return w;
  }

  #waitForScript(pending: (() => void)[], signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        const i = pending.indexOf(ready);
        if (i >= 0) pending.splice(i, 1);
        reject(signal!.reason);
      };
      const ready = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      if (signal?.aborted) return reject(signal.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      pending.push(ready);
    });
  }

  #wakeWaiters(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }
}
