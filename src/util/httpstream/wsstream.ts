/**
 * The channel protocols of Kubernetes streaming over WebSocket (apimachinery
 * `pkg/util/httpstream/wsstream/conn.go`, client-go `tools/remotecommand/websocket.go`): every binary
 * message starts with one byte naming its channel (0 stdin, 1 stdout, 2 stderr, 3 error/status,
 * 4 resize); the rest is that channel's data. `v5.channel.k8s.io` adds a close signal — a message
 * `[255, channel]` — so one side can half-close a channel (stdin EOF) while the connection stays up.
 *
 * {@link ChannelConnection} turns one WebSocket into per-channel Node streams, used by the client
 * (exec, attach) and by the embedded API server alike. Flow control: when a channel's readable is
 * full, reading from the socket pauses until that readable is drained, so a slow consumer slows the
 * sender through TCP instead of growing a buffer; writes complete when the socket took the bytes.
 */
import { Readable, Writable } from 'node:stream';
import type WebSocket from 'ws';
import { KubeloomError } from '../../apimachinery/errors.ts';

/** The first byte of a v5 close-signal message (remotecommand.StreamClose). */
export const closeSignalChannel = 255;

/** A WebSocket stream ended abnormally (connection lost, abnormal close, protocol violation). */
export class StreamClosedError extends KubeloomError {
  /** The WebSocket close code, 1006 when the connection was lost without one. */
  readonly closeCode: number;
  constructor(message: string, closeCode: number, options?: { cause?: unknown }) {
    super('ERR_KUBE_STREAM_CLOSED', message, options);
    this.closeCode = closeCode;
  }
}

/** Options of {@link ChannelConnection}. */
export interface ChannelConnectionOptions {
  /** Whether `[255, channel]` close signals are understood (v5.channel.k8s.io): received ones end a readable. */
  closeSignal: boolean;
  /**
   * Whether ending a writable sends a close signal (default: `closeSignal`). Only clients send them:
   * client-go discards them from a server ("Unknown stream id 255"), where stdout and stderr end
   * with the connection instead.
   */
  sendCloseSignal?: boolean;
  /** Bytes a channel's readable buffers before reading from the socket pauses (default 256 KiB). */
  highWaterMark?: number;
}

// Enough to keep a loopback connection busy without holding much per channel.
const defaultHighWaterMark = 256 * 1024;

/**
 * One WebSocket carrying numbered channels. Ask for a channel's {@link ChannelConnection.readable}
 * and {@link ChannelConnection.writable} before data can arrive for it; messages for channels nobody
 * asked for are discarded, as client-go does.
 */
export class ChannelConnection {
  readonly socket: WebSocket;
  readonly #closeSignal: boolean;
  readonly #sendCloseSignal: boolean;
  readonly #hwm: number;
  readonly #readables = new Map<number, Readable>();
  readonly #writables = new Map<number, Writable>();
  // Channels whose readable refused more data; the socket is paused while this is non-empty.
  readonly #full = new Set<number>();
  // Channels whose readable got its end (close signal), so nothing more may be pushed.
  readonly #ended = new Set<number>();
  #closed = false;
  // close() was called: incoming data is dropped so the peer's close frame is still read.
  #closing = false;
  /** Resolves with the close code once the socket closed (never rejects). */
  readonly closed: Promise<number>;

  constructor(socket: WebSocket, options: ChannelConnectionOptions) {
    this.socket = socket;
    this.#closeSignal = options.closeSignal;
    this.#sendCloseSignal = options.sendCloseSignal ?? options.closeSignal;
    this.#hwm = options.highWaterMark ?? defaultHighWaterMark;
    socket.binaryType = 'nodebuffer';
    socket.on('message', (data: Buffer, isBinary: boolean) => this.#onMessage(data, isBinary));
    let lastError: Error | undefined;
    socket.on('error', (err) => {
      lastError = err;
    });
    this.closed = new Promise<number>((resolve) => {
      socket.once('close', (code: number, reason: Buffer) => {
        this.#closed = true;
        this.#onClose(code, reason.toString('utf8'), lastError);
        resolve(code);
      });
    });
    if (socket.isPaused) socket.resume();
  }

  /** Whether ending a writable tells the peer (v5, client side). */
  get sendsCloseSignal(): boolean {
    return this.#sendCloseSignal;
  }

  /**
   * The data the peer sends on `channel`. Ends on the peer's close signal or a normal close; fails
   * with a {@link StreamClosedError} on an abnormal one (it carries a no-op 'error' listener, so
   * check `errored` or add a listener to see that error).
   */
  readable(channel: number): Readable {
    let r = this.#readables.get(channel);
    if (r !== undefined) return r;
    r = new Readable({
      highWaterMark: this.#hwm,
      read: () => {
        if (this.#full.delete(channel) && this.#full.size === 0 && !this.#closed) this.socket.resume();
      },
    });
    // A channel nobody consumes may still fail when the connection breaks: that must not crash.
    r.on('error', () => undefined);
    // A consumer that stops reading (destroy) must not keep the whole connection paused.
    r.once('close', () => {
      if (this.#full.delete(channel) && this.#full.size === 0 && !this.#closed) this.socket.resume();
    });
    this.#readables.set(channel, r);
    return r;
  }

  /**
   * Sends to the peer on `channel`. Ending it sends the close signal on v5 and nothing on older
   * protocols (which cannot half-close).
   */
  writable(channel: number): Writable {
    let w = this.#writables.get(channel);
    if (w !== undefined) return w;
    const prefix = Buffer.of(channel);
    w = new Writable({
      highWaterMark: this.#hwm,
      write: (chunk: Buffer, _encoding, callback) => this.#send(Buffer.concat([prefix, chunk]), callback),
      final: (callback) => {
        if (!this.#sendCloseSignal || this.#closed) {
          callback();
          return;
        }
        this.#send(Buffer.of(closeSignalChannel, channel), callback);
      },
    });
    this.#writables.set(channel, w);
    return w;
  }

  /** Sends one whole message on `channel` (status and resize messages are one JSON document each). */
  sendMessage(channel: number, data: Buffer | string): Promise<void> {
    const payload = Buffer.concat([Buffer.of(channel), typeof data === 'string' ? Buffer.from(data) : data]);
    return new Promise((resolve, reject) => this.#send(payload, (err) => (err ? reject(err) : resolve())));
  }

  /** Closes the connection normally (1000): the peer's readables end. */
  close(code = 1000, reason = ''): void {
    if (this.#closed) return;
    this.#closing = true;
    if (this.#full.size > 0) {
      this.#full.clear();
      this.socket.resume();
    }
    if (this.socket.readyState === this.socket.OPEN) this.socket.close(code, reason);
    else this.socket.terminate();
  }

  /** Drops the connection at once; open readables fail with `err` (or a StreamClosedError). */
  destroy(err?: Error): void {
    for (const r of this.#readables.values()) if (!r.destroyed && !r.readableEnded) r.destroy(err);
    this.socket.terminate();
  }

  #send(payload: Buffer, callback: (err?: Error | null) => void): void {
    if (this.#closed || this.socket.readyState !== this.socket.OPEN) {
      callback(new StreamClosedError('write on a closed stream connection', 1006));
      return;
    }
    this.socket.send(payload, { binary: true }, (err) => callback(err ?? null));
  }

  #onMessage(data: Buffer, isBinary: boolean): void {
    if (!isBinary) {
      this.destroy(new StreamClosedError('unexpected text message on a binary channel protocol', 1003));
      return;
    }
    if (data.length === 0 || this.#closing) return;
    const channel = data[0]!;
    if (channel === closeSignalChannel && this.#closeSignal) {
      if (data.length >= 2) this.#end(data[1]!);
      return;
    }
    const r = this.#readables.get(channel);
    if (r === undefined || this.#ended.has(channel) || r.destroyed) return;
    if (data.length === 1) return;
    if (!r.push(data.subarray(1))) {
      this.#full.add(channel);
      this.socket.pause();
    }
  }

  #end(channel: number): void {
    const r = this.#readables.get(channel);
    if (r === undefined || this.#ended.has(channel)) return;
    this.#ended.add(channel);
    r.push(null);
  }

  #onClose(code: number, reason: string, err: Error | undefined): void {
    this.#full.clear();
    const normal = code === 1000 || code === 1005;
    for (const [channel, r] of this.#readables) {
      if (r.destroyed || this.#ended.has(channel)) continue;
      if (normal) this.#end(channel);
      else r.destroy(new StreamClosedError(`stream connection closed on channel ${channel} (code ${code}${reason === '' ? '' : `: ${reason}`})`, code, err === undefined ? undefined : { cause: err }));
    }
    for (const w of this.#writables.values()) if (!w.destroyed && !w.writableFinished) w.destroy();
  }
}
