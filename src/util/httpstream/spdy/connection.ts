/**
 * A SPDY/3.1 connection carrying many bidirectional streams over one byte stream (a TCP socket after
 * `Upgrade: SPDY/3.1`, or a WebSocket tunnel) — the role of `github.com/moby/spdystream`'s Connection
 * behind apimachinery `pkg/util/httpstream/spdy/connection.go`.
 *
 * As spdystream, it sends no WINDOW_UPDATE and ignores the peer's: flow control is the transport's.
 * When a stream's readable is full, reading from the transport pauses until it drains (so a slow
 * consumer slows the sender through TCP, for every stream of the connection, as a blocked spdystream
 * reader does); writes complete when the transport accepted the frame.
 */
import { Duplex } from 'node:stream';
import { KubeloomError } from '../../../apimachinery/errors.ts';
import {
  FrameFlag,
  FrameSplitter,
  HeaderCompressor,
  HeaderDecompressor,
  RstStatus,
  SpdyProtocolError,
  decodeFrame,
  encodeData,
  encodeGoAway,
  encodePing,
  encodeRstStream,
  encodeSynReply,
  encodeSynStream,
  type Frame,
  type SpdyHeaders,
} from './frame.ts';

/** A stream was reset by the peer (RST_STREAM) or the connection ended under it. */
export class SpdyStreamResetError extends KubeloomError {
  /** The RST_STREAM status, 0 when the connection ended. */
  readonly status: number;
  constructor(message: string, status: number) {
    super('ERR_KUBE_SPDY_STREAM_RESET', message);
    this.status = status;
  }
}

// Largest DATA frame sent: big enough for throughput, small enough to interleave streams.
const maxDataFrame = 64 * 1024;
// A stream's readable buffers this much before the transport is paused.
const streamHighWaterMark = 256 * 1024;

/**
 * One SPDY stream: a Duplex whose end sends FIN (half-close); `headers` are the SYN_STREAM's. A reset
 * or a lost connection destroys it with a {@link SpdyStreamResetError}; the stream carries a no-op
 * 'error' listener so that a stream nobody listens to yet cannot crash the process (check `errored`
 * or listen for 'error' to learn why it closed).
 */
export class SpdyStream extends Duplex {
  readonly id: number;
  readonly headers: SpdyHeaders;
  readonly #conn: SpdyConnection;
  #remoteFin = false;
  #replied = false;
  #reset = false;

  /** @internal created by {@link SpdyConnection} only. */
  constructor(conn: SpdyConnection, id: number, headers: SpdyHeaders) {
    super({ readableHighWaterMark: streamHighWaterMark, writableHighWaterMark: maxDataFrame, allowHalfOpen: true });
    this.#conn = conn;
    this.id = id;
    this.headers = headers;
    this.on('error', () => undefined);
  }

  /** The first value of a (lower-case) header. */
  header(name: string): string | undefined {
    return this.headers[name.toLowerCase()]?.[0];
  }

  /** Accepts a stream the peer opened (SYN_REPLY). */
  reply(headers: SpdyHeaders = {}, fin = false): Promise<void> {
    if (this.#replied) return Promise.resolve();
    this.#replied = true;
    return this.#conn.sendReply(this.id, headers, fin);
  }

  /** Refuses or aborts the stream (RST_STREAM); both directions end at once. */
  reset(status: number = RstStatus.cancel): void {
    if (this.#reset) return;
    this.#reset = true;
    this.#conn.sendReset(this.id, status);
    this.#conn.forget(this.id);
    this.destroy();
  }

  /** @internal */
  get remoteFinished(): boolean {
    return this.#remoteFin;
  }

  /** @internal data from the peer; false when the stream wants no more for now. */
  receive(data: Buffer, fin: boolean): boolean {
    let more = true;
    if (data.length > 0 && !this.#remoteFin && !this.destroyed) more = this.push(data);
    if (fin) this.remoteFinish();
    return more;
  }

  /** @internal the peer half-closed. */
  remoteFinish(): void {
    if (this.#remoteFin) return;
    this.#remoteFin = true;
    if (!this.destroyed) this.push(null);
    this.#maybeForget();
  }

  /** @internal the peer reset the stream or the connection ended. */
  abort(err: Error): void {
    this.#reset = true;
    if (!this.destroyed) this.destroy(err);
  }

  override _read(): void {
    this.#conn.streamDrained(this.id);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.#conn.sendData(this.id, chunk, false, callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.#conn.sendData(this.id, Buffer.alloc(0), true, (err) => {
      callback(err);
      this.#maybeForget();
    });
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    this.#conn.forget(this.id);
    callback(err);
  }

  #maybeForget(): void {
    if (this.#remoteFin && this.writableFinished) this.#conn.forget(this.id);
  }
}

/** Options of {@link SpdyConnection}. */
export interface SpdyConnectionOptions {
  /** Server side: stream ids this side would open are even; the peer's are odd. */
  server: boolean;
  /**
   * A stream the peer opened. Call `stream.reply()` to accept it or `stream.reset()` to refuse it;
   * without a handler every stream is refused.
   */
  onStream?: (stream: SpdyStream) => void;
}

/** One SPDY/3.1 connection over `transport`. */
export class SpdyConnection {
  readonly #transport: Duplex;
  readonly #server: boolean;
  readonly #onStream: ((stream: SpdyStream) => void) | undefined;
  readonly #splitter = new FrameSplitter();
  readonly #compressor = new HeaderCompressor();
  readonly #decompressor = new HeaderDecompressor();
  readonly #streams = new Map<number, SpdyStream>();
  readonly #pendingReplies = new Map<number, { resolve: () => void; reject: (err: Error) => void }>();
  readonly #full = new Set<number>();
  readonly #pings = new Map<number, () => void>();
  #nextStreamId: number;
  #nextPingId: number;
  #lastRemoteStreamId = 0;
  // Frames wait here while header blocks are decompressed, so they are handled in order.
  #readChain: Promise<void> = Promise.resolve();
  #queuedFrames = 0;
  // Frames are written in order even when a header block is still being compressed.
  #writeChain: Promise<void> = Promise.resolve();
  // Frames in #writeChain not yet written (or written and waiting for the transport to drain).
  #queuedWrites = 0;
  #closed = false;
  #goneAway = false;
  readonly #closedPromise: Promise<Error | undefined>;
  #resolveClosed!: (err: Error | undefined) => void;

  constructor(transport: Duplex, options: SpdyConnectionOptions) {
    this.#transport = transport;
    this.#server = options.server;
    this.#onStream = options.onStream;
    this.#nextStreamId = options.server ? 2 : 1;
    this.#nextPingId = options.server ? 2 : 1;
    this.#closedPromise = new Promise((resolve) => {
      this.#resolveClosed = resolve;
    });
    transport.setMaxListeners(0);
    transport.on('data', (chunk: Buffer) => this.#onData(chunk));
    transport.on('end', () => this.#shutdown(undefined));
    transport.on('error', (err) => this.#shutdown(err));
    transport.on('close', () => this.#shutdown(undefined));
  }

  /** Resolves when the connection ended: undefined for a clean end, else the error that ended it. */
  get closed(): Promise<Error | undefined> {
    return this.#closedPromise;
  }

  /** Whether the connection ended. */
  get isClosed(): boolean {
    return this.#closed;
  }

  /**
   * Opens a stream (SYN_STREAM with `headers`) and resolves once the peer accepted it (SYN_REPLY);
   * rejects with {@link SpdyStreamResetError} when the peer refused it or the connection ended.
   */
  async createStream(headers: SpdyHeaders, fin = false): Promise<SpdyStream> {
    if (this.#closed || this.#goneAway) throw new SpdyStreamResetError('spdy: connection is closed', 0);
    const id = this.#nextStreamId;
    this.#nextStreamId += 2;
    const stream = new SpdyStream(this, id, headers);
    this.#streams.set(id, stream);
    const replied = new Promise<void>((resolve, reject) => this.#pendingReplies.set(id, { resolve, reject }));
    this.#enqueueWrite(async () => encodeSynStream(id, await this.#compressor.compress(headers), fin ? FrameFlag.fin : 0));
    if (fin) stream.end();
    await replied;
    return stream;
  }

  /** Sends a PING and resolves when the peer answers it. */
  ping(): Promise<void> {
    const id = this.#nextPingId;
    this.#nextPingId = (this.#nextPingId + 2) >>> 0;
    return new Promise((resolve, reject) => {
      if (this.#closed) {
        reject(new SpdyStreamResetError('spdy: connection is closed', 0));
        return;
      }
      this.#pings.set(id, resolve);
      this.#enqueueWrite(() => encodePing(id));
    });
  }

  /** Sends GOAWAY and ends the transport once queued frames are written; open streams are aborted. */
  close(): void {
    if (this.#closed) return;
    this.#enqueueWrite(() => encodeGoAway(this.#lastRemoteStreamId, 0));
    void this.#writeChain.then(() => this.#transport.end());
    this.#shutdown(undefined);
  }

  /** Drops the transport at once. */
  destroy(err?: Error): void {
    this.#transport.destroy();
    this.#shutdown(err);
  }

  /** @internal */
  sendReply(id: number, headers: SpdyHeaders, fin: boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#enqueueWrite(async () => encodeSynReply(id, await this.#compressor.compress(headers), fin ? FrameFlag.fin : 0), (err) => (err ? reject(err) : resolve()));
    });
  }

  /** @internal */
  sendReset(id: number, status: number): void {
    if (this.#closed) return;
    this.#enqueueWrite(() => encodeRstStream(id, status));
  }

  /** @internal DATA frames, split at 64 KiB; `callback` runs once the transport took the last one. */
  sendData(id: number, data: Buffer, fin: boolean, callback: (err?: Error | null) => void): void {
    if (this.#closed) {
      callback(new SpdyStreamResetError(`spdy: write on stream ${id} of a closed connection`, 0));
      return;
    }
    let off = 0;
    do {
      const end = Math.min(data.length, off + maxDataFrame);
      const last = end >= data.length;
      const piece = data.subarray(off, end);
      this.#enqueueWrite(() => encodeData(id, piece, fin && last), last ? callback : undefined);
      off = end;
    } while (off < data.length);
  }

  /** @internal a stream's reader wants more. */
  streamDrained(id: number): void {
    if (this.#full.delete(id)) this.#maybeResume();
  }

  /** @internal a stream is done in both directions or destroyed. */
  forget(id: number): void {
    this.#streams.delete(id);
    if (this.#full.delete(id)) this.#maybeResume();
  }

  #maybeResume(): void {
    if (this.#full.size === 0 && this.#queuedFrames < 64 && !this.#closed) this.#transport.resume();
  }

  /**
   * Writes a frame after every frame queued before it. With nothing queued, a frame that needs no
   * compression is written at once (the common case: DATA frames), without a trip through the chain.
   */
  #enqueueWrite(build: () => Buffer | Promise<Buffer>, callback?: (err?: Error | null) => void): void {
    let built: Buffer | Promise<Buffer> | undefined;
    if (this.#queuedWrites === 0) {
      try {
        built = build();
      } catch (err) {
        callback?.(err as Error);
        this.destroy(err as Error);
        return;
      }
      if (Buffer.isBuffer(built)) {
        this.#writeFrame(built, callback);
        return;
      }
      // Compression already started; keep the promise from rejecting unobserved until the chain awaits it.
      built.catch(() => undefined);
    }
    const pending = built;
    this.#chainWrite(async () => {
      if (this.#transport.destroyed || this.#transport.writableEnded) {
        callback?.(new SpdyStreamResetError('spdy: connection is closed', 0));
        return;
      }
      let frame: Buffer;
      try {
        frame = await (pending ?? build());
      } catch (err) {
        callback?.(err as Error);
        this.destroy(err as Error);
        return;
      }
      await this.#writeAndDrain(frame, callback);
    });
  }

  #chainWrite(step: () => Promise<void>): void {
    this.#queuedWrites++;
    this.#writeChain = this.#writeChain
      .then(step)
      .catch(() => undefined)
      .finally(() => {
        this.#queuedWrites--;
      });
  }

  /** Writes now; when the transport is full, later frames wait in the chain until it drained. */
  #writeFrame(frame: Buffer, callback?: (err?: Error | null) => void): void {
    if (this.#transport.destroyed || this.#transport.writableEnded) {
      callback?.(new SpdyStreamResetError('spdy: connection is closed', 0));
      return;
    }
    if (this.#transport.write(frame)) {
      callback?.();
      return;
    }
    // Listen for 'drain' now: it can be emitted from process.nextTick, before any promise step runs.
    const drained = this.#drained();
    this.#chainWrite(() => drained.then(() => callback?.(this.#transport.destroyed ? new SpdyStreamResetError('spdy: connection is closed', 0) : undefined)));
  }

  async #writeAndDrain(frame: Buffer, callback?: (err?: Error | null) => void): Promise<void> {
    if (this.#transport.write(frame)) {
      callback?.();
      return;
    }
    // Hold every later frame until the transport drained: this is the connection's backpressure.
    await this.#drained();
    callback?.(this.#transport.destroyed ? new SpdyStreamResetError('spdy: connection is closed', 0) : undefined);
  }

  #drained(): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.#transport.destroyed) {
        resolve();
        return;
      }
      const done = (): void => {
        this.#transport.off('drain', done);
        this.#transport.off('close', done);
        resolve();
      };
      this.#transport.on('drain', done);
      this.#transport.on('close', done);
    });
  }

  #onData(chunk: Buffer): void {
    if (this.#closed) return;
    let raws;
    try {
      raws = this.#splitter.push(chunk);
    } catch (err) {
      this.#protocolError(err as Error);
      return;
    }
    for (const raw of raws) {
      // DATA frames need no decompression: with nothing queued before them they are handled at once.
      if (!raw.control && this.#queuedFrames === 0) {
        this.#handle({ type: 'data', streamId: raw.streamId, flags: raw.flags, data: raw.payload });
        continue;
      }
      this.#queuedFrames++;
      if (this.#queuedFrames >= 64) this.#transport.pause();
      this.#readChain = this.#readChain.then(async () => {
        try {
          if (this.#closed) return;
          const frame = await decodeFrame(raw, this.#decompressor);
          if (frame !== undefined) this.#handle(frame);
        } catch (err) {
          this.#protocolError(err as Error);
        } finally {
          this.#queuedFrames--;
          this.#maybeResume();
        }
      });
    }
  }

  #protocolError(err: Error): void {
    if (this.#closed) return;
    this.#enqueueWrite(() => encodeGoAway(this.#lastRemoteStreamId, 1));
    void this.#writeChain.then(() => this.#transport.destroy());
    this.#shutdown(err instanceof SpdyProtocolError ? err : new SpdyProtocolError(err.message, { cause: err }));
  }

  #handle(frame: Frame): void {
    switch (frame.type) {
      case 'data': {
        const s = this.#streams.get(frame.streamId);
        if (s === undefined) return;
        if (!s.receive(frame.data, (frame.flags & FrameFlag.fin) !== 0)) {
          this.#full.add(frame.streamId);
          this.#transport.pause();
        }
        return;
      }
      case 'synStream': {
        const peerOpened = this.#server ? frame.streamId % 2 === 1 : frame.streamId % 2 === 0;
        if (!peerOpened || frame.streamId <= this.#lastRemoteStreamId || this.#goneAway) {
          this.sendReset(frame.streamId, RstStatus.protocolError);
          return;
        }
        this.#lastRemoteStreamId = frame.streamId;
        const stream = new SpdyStream(this, frame.streamId, frame.headers);
        this.#streams.set(frame.streamId, stream);
        if ((frame.flags & FrameFlag.fin) !== 0 || (frame.flags & FrameFlag.unidirectional) !== 0) stream.remoteFinish();
        if (this.#onStream === undefined) stream.reset(RstStatus.refusedStream);
        else this.#onStream(stream);
        return;
      }
      case 'synReply': {
        const pending = this.#pendingReplies.get(frame.streamId);
        if (pending === undefined) return;
        this.#pendingReplies.delete(frame.streamId);
        pending.resolve();
        if ((frame.flags & FrameFlag.fin) !== 0) this.#streams.get(frame.streamId)?.remoteFinish();
        return;
      }
      case 'headers':
        if ((frame.flags & FrameFlag.fin) !== 0) this.#streams.get(frame.streamId)?.remoteFinish();
        return;
      case 'rstStream': {
        const err = new SpdyStreamResetError(`spdy: stream ${frame.streamId} was reset by the peer (status ${frame.status})`, frame.status);
        const pending = this.#pendingReplies.get(frame.streamId);
        this.#pendingReplies.delete(frame.streamId);
        pending?.reject(err);
        const s = this.#streams.get(frame.streamId);
        this.#streams.delete(frame.streamId);
        if (this.#full.delete(frame.streamId)) this.#maybeResume();
        s?.abort(err);
        return;
      }
      case 'ping': {
        const ours = frame.id % 2 === (this.#server ? 0 : 1);
        if (!ours) {
          this.#enqueueWrite(() => encodePing(frame.id));
          return;
        }
        const done = this.#pings.get(frame.id);
        this.#pings.delete(frame.id);
        done?.();
        return;
      }
      case 'goAway':
        this.#goneAway = true;
        // Streams already open may finish; the transport's end closes the rest.
        if (this.#streams.size === 0) this.close();
        return;
      case 'settings':
      case 'windowUpdate':
        return;
    }
  }

  #shutdown(err: Error | undefined): void {
    if (this.#closed) return;
    this.#closed = true;
    const reason = new SpdyStreamResetError(err === undefined ? 'spdy: connection closed' : `spdy: connection failed: ${err.message}`, 0);
    for (const p of this.#pendingReplies.values()) p.reject(reason);
    this.#pendingReplies.clear();
    for (const s of this.#streams.values()) {
      // A stream whose peer already finished keeps its data; others are cut.
      if (s.remoteFinished) continue;
      s.abort(reason);
    }
    this.#streams.clear();
    this.#full.clear();
    this.#pings.clear();
    this.#compressor.close();
    this.#decompressor.close();
    this.#resolveClosed(err);
  }
}
