/**
 * One open watch: newline-delimited JSON events written to an HTTP response with backpressure.
 *
 * Events are queued by reference and encoded only when written; a change's encoded line is cached on
 * the change itself, so N watchers of the same resource share one serialisation. When the client reads
 * slowly the queue grows and writing waits for 'drain' — the server never blocks on one watcher.
 */
import type { ServerResponse } from 'node:http';
import type { Clock, Ticker, Timer } from '../util/clock/clock.ts';
import type { Change, ChangeType, StoredObject } from './storage.ts';
import type { Faults } from './faults.ts';

/** Decides whether an object is visible to this watch (selectors, namespace, name). */
export type WatchFilter = (obj: Record<string, unknown>) => boolean;

/** Encodes an object for this watch when it is not sent as stored (tables, metadata, other versions). */
export type ObjectEncoder = (object: StoredObject) => string;

/** Options of a {@link WatchStream}. */
export interface WatchStreamOptions {
  res: ServerResponse;
  /** Plural resource name, for fault matching. */
  resource: string;
  /** Storage key of the resource (group and plural): what ends when the resource stops being served. */
  store: string;
  filter: WatchFilter;
  /** Undefined: objects are sent exactly as stored, sharing the encoded line among watchers. */
  encode: ObjectEncoder | undefined;
  faults: Faults;
  clock: Clock;
  /** Ends the stream cleanly after this long. */
  timeoutMs: number;
  /** Periodic bookmarks, when the client allows them. */
  bookmarkIntervalMs: number | undefined;
  /** Builds a bookmark line for the current revision. */
  bookmark: (initialEventsEnd: boolean) => string;
  /** Called once when the stream ends for any reason. */
  onClose: () => void;
  /**
   * An asynchronous step before encoding (a CRD's conversion webhook). Events keep their order; when it
   * fails the stream ends, as kube-apiserver's watch handler stops on an object it cannot encode.
   */
  convert?: ((object: StoredObject) => Promise<StoredObject>) | undefined;
  /**
   * Turns each JSON line into the stream's wire form (protobuf frames); undefined: lines are sent as
   * they are. A line it cannot translate (a malformed-event fault) goes out as it is.
   */
  frame?: (line: string) => Buffer | undefined;
  /**
   * Encodes an event's wire frame straight from the object (protobuf), instead of rendering its JSON line
   * and turning that into a frame with {@link WatchStreamOptions.frame}; raw lines still go through
   * `frame`. With `shareFrames` the frame of a change is cached on the change, shared by every watcher
   * that sends the same event type of it (those sending objects as stored).
   */
  frameEvent?: ((type: ChangeType, object: StoredObject) => Buffer) | undefined;
  /** Cache `frameEvent`'s frames on the change (see there). */
  shareFrames?: boolean;
}

/** The state an object that left a watch's selection is reported with: its previous one, at the change's revision. */
function leftSelection(change: Change): StoredObject {
  const prev = change.prev!;
  const obj = { ...prev.obj, metadata: { ...(prev.obj.metadata as Record<string, unknown>), resourceVersion: String(change.rv) } };
  return { obj, json: JSON.stringify(obj), rv: change.rv, key: prev.key };
}

// Raw lines are strings ending in '\n'; events are encoded when written.
const endOfStream: unique symbol = Symbol('end of stream');
type Item = { type: ChangeType; object: StoredObject; change: Change | undefined } | string | typeof endOfStream;

// Coalesce queued lines into writes of about this size: one chunk per event is costly.
const writeBatchBytes = 64 * 1024;

/** An open watch response. */
export class WatchStream {
  readonly resource: string;
  readonly store: string;
  readonly #o: WatchStreamOptions;
  readonly #queue: Item[] = [];
  #qHead = 0;
  #waitingDrain = false;
  #closed = false;
  #scheduled = false;
  readonly #timer: Timer;
  readonly #ticker: Ticker | undefined;

  constructor(options: WatchStreamOptions) {
    this.#o = options;
    this.resource = options.resource;
    this.store = options.store;
    const res = options.res;
    res.on('close', () => this.#cleanup());
    res.on('drain', () => {
      this.#waitingDrain = false;
      this.#pump();
    });
    this.#timer = options.clock.afterFunc(options.timeoutMs, () => this.end());
    this.#ticker =
      options.bookmarkIntervalMs === undefined || options.bookmarkIntervalMs <= 0 ? undefined : options.clock.newTicker(options.bookmarkIntervalMs, () => this.enqueueRaw(options.bookmark(false)));
    // The watch cache also sends a bookmark right before the watch times out (2 s before its deadline) and,
    // its bookmark buckets being one second wide, once more a second later.
    if (this.#ticker !== undefined) {
      for (const before of [2000, 1000]) {
        if (options.timeoutMs - before > 0) this.#preTimeout.push(options.clock.afterFunc(options.timeoutMs - before, () => this.enqueueRaw(options.bookmark(false))));
      }
    }
    // The client may have gone while the request waited (an injected delay, a restart): its 'close' has
    // fired already, so nothing else would stop the timers. (After the caller has registered the stream.)
    if (res.destroyed) queueMicrotask(() => this.#cleanup());
  }

  readonly #preTimeout: Timer[] = [];

  /** Whether the stream has ended. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Queues an event for an object in its current form (initial ADDED events). */
  enqueueObject(type: ChangeType, object: StoredObject): void {
    this.#push({ type, object, change: undefined });
  }

  /**
   * Queues a change, translated by the filter: a modification moving the object into the selection is
   * an ADDED, out of it a DELETED carrying the previous state at the change's resourceVersion, as
   * kube-apiserver's watch cache does (cacheWatcher.convertToWatchEvent).
   */
  enqueueChange(change: Change): void {
    const now = change.type === 'DELETED' ? false : this.#o.filter(change.object.obj);
    const before = change.prev === undefined ? false : this.#o.filter(change.prev.obj);
    if (change.type === 'DELETED') {
      if (!this.#o.filter(change.object.obj) && !before) return;
      this.#push({ type: 'DELETED', object: change.object, change });
    } else if (now && before) this.#push({ type: 'MODIFIED', object: change.object, change });
    else if (now) this.#push({ type: 'ADDED', object: change.object, change });
    else if (before) this.#push({ type: 'DELETED', object: leftSelection(change), change });
  }

  /** Queues a pre-encoded line (bookmarks, errors, malformed lines); a newline is appended. */
  enqueueRaw(line: string): void {
    this.#push(`${line}\n`);
  }

  /** Ends the stream cleanly after the queued events are written. */
  end(): void {
    if (this.#closed) return;
    this.#push(endOfStream);
  }

  /**
   * Stops writing anything (events, bookmarks, the close at the timeout) while keeping the connection
   * open: the stalled-watch fault.
   */
  stall(): void {
    this.#stalled = true;
    this.#timer.stop();
    this.#ticker?.stop();
    for (const t of this.#preTimeout) t.stop();
  }

  #stalled = false;

  /** Destroys the connection at once (server stop / restart). */
  destroy(): void {
    this.#cleanup();
    this.#o.res.destroy();
  }

  // With `convert`: the items waiting for earlier conversions, so that nothing overtakes them.
  #converting = 0;
  #converted: Promise<void> = Promise.resolve();

  #push(item: Item): void {
    if (this.#closed || this.#stalled) return;
    const convert = this.#o.convert;
    if (convert !== undefined && (this.#converting > 0 || typeof item === 'object')) {
      this.#converting++;
      // Conversions start at once and run concurrently; their results are queued in order.
      const ready = typeof item === 'object' ? convert(item.object).then((object) => ({ ...item, object, change: undefined })) : Promise.resolve(item);
      ready.catch(() => undefined);
      this.#converted = this.#converted.then(async () => {
        try {
          this.#enqueue(await ready);
        } catch {
          this.#enqueue(endOfStream);
        } finally {
          this.#converting--;
        }
      });
      return;
    }
    this.#enqueue(item);
  }

  #enqueue(item: Item): void {
    if (this.#closed) return;
    this.#queue.push(item);
    // Write on the next microtask so a burst of synchronous changes leaves as one chunk.
    if (!this.#scheduled && !this.#waitingDrain) {
      this.#scheduled = true;
      queueMicrotask(() => {
        this.#scheduled = false;
        this.#pump();
      });
    }
  }

  #line(item: { type: ChangeType; object: StoredObject; change: Change | undefined }): string {
    const { type, object, change } = item;
    if (this.#o.encode !== undefined) return `{"type":"${type}","object":${this.#o.encode(object)}}\n`;
    if (change === undefined) return `{"type":"${type}","object":${object.json}}\n`;
    change.lines ??= new Map();
    let line = change.lines.get(type);
    if (line === undefined) {
      line = `{"type":"${type}","object":${object.json}}\n`;
      change.lines.set(type, line);
    }
    return line;
  }

  #frameOf(item: { type: ChangeType; object: StoredObject; change: Change | undefined }): Buffer {
    const { type, object, change } = item;
    const frameEvent = this.#o.frameEvent!;
    if (change === undefined || this.#o.shareFrames !== true) return frameEvent(type, object);
    change.frames ??= new Map();
    let frame = change.frames.get(type);
    if (frame === undefined) {
      frame = frameEvent(type, object);
      change.frames.set(type, frame);
    }
    return frame;
  }

  #pump(): void {
    if (this.#o.frameEvent !== undefined) {
      // Protobuf: each event is framed from its object; raw lines are framed (or sent) as bytes.
      const frame = this.#o.frame;
      this.#pumpWith<Buffer>(
        (item) => (typeof item === 'string' ? (frame?.(item) ?? Buffer.from(item)) : this.#frameOf(item)),
        (batch, size) => (batch.length === 1 ? batch[0]! : Buffer.concat(batch, size)),
        (data) => data.subarray(0, Math.max(1, data.length >> 1)),
      );
      return;
    }
    const frame = this.#o.frame;
    this.#pumpWith<string>(
      (item) => (typeof item === 'string' ? item : this.#line(item)),
      (batch) => (frame === undefined ? (batch.length === 1 ? batch[0]! : batch.join('')) : Buffer.concat(batch.map((line) => frame(line) ?? Buffer.from(line)))),
      (line) => line.slice(0, Math.max(1, line.length >> 1)),
    );
  }

  /**
   * Writes queued items in batches of about {@link writeBatchBytes} until the queue is empty, the socket
   * pushes back, or the stream ends. `encode` turns an item into its bytes, `join` a batch into one write,
   * `half` gives the first half of an event for an injected cut: half an event, then the connection dies,
   * so the client must cope with a torn event.
   */
  #pumpWith<C extends string | Buffer>(encode: (item: Exclude<Item, typeof endOfStream>) => C, join: (batch: C[], size: number) => string | Buffer, half: (data: C) => C): void {
    const res = this.#o.res;
    while (!this.#closed && !this.#waitingDrain && this.#qHead < this.#queue.length) {
      const batch: C[] = [];
      let size = 0;
      let ending = false;
      while (this.#qHead < this.#queue.length && size < writeBatchBytes) {
        const item = this.#queue[this.#qHead++]!;
        if (item === endOfStream) {
          ending = true;
          break;
        }
        const data = encode(item);
        if (typeof item !== 'string' && this.#o.faults.hasPendingCut(this.resource) && this.#o.faults.takeCut(this.resource)) {
          if (batch.length > 0) res.write(join(batch, size));
          this.#cleanup();
          // Destroy only once the half event is on the wire, so the client really sees a torn event.
          res.write(half(data), () => res.destroy());
          return;
        }
        batch.push(data);
        size += data.length;
      }
      this.#compactQueue();
      if (batch.length > 0) {
        const ok = res.write(join(batch, size));
        if (!ok) this.#waitingDrain = true;
      }
      if (ending) {
        this.#cleanup();
        res.end();
        return;
      }
    }
  }

  #compactQueue(): void {
    if (this.#qHead === this.#queue.length) {
      this.#queue.length = 0;
      this.#qHead = 0;
    } else if (this.#qHead > 1024 && this.#qHead * 2 > this.#queue.length) {
      this.#queue.splice(0, this.#qHead);
      this.#qHead = 0;
    }
  }

  #cleanup(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#timer.stop();
    this.#ticker?.stop();
    for (const t of this.#preTimeout) t.stop();
    this.#queue.length = 0;
    this.#qHead = 0;
    this.#o.onClose();
  }
}
