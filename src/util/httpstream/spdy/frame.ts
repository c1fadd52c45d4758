/**
 * SPDY/3.1 framing (SPDY Protocol draft 3.1; the framer Kubernetes uses is
 * `github.com/moby/spdystream/spdy`, behind apimachinery `pkg/util/httpstream/spdy`): control and data
 * frames to and from bytes, and header blocks compressed with one zlib stream per direction primed
 * with the SPDY/3 dictionary, each block ended with a sync flush.
 *
 * Only what Kubernetes' port-forward and remote command streams use is given meaning (SYN_STREAM,
 * SYN_REPLY, RST_STREAM, SETTINGS, PING, GOAWAY, HEADERS, WINDOW_UPDATE and DATA); unknown control
 * frame types are skipped, as the protocol asks.
 */
import { constants as zlibConstants, createDeflate, createInflate, type Deflate, type Inflate } from 'node:zlib';
import { KubeloomError } from '../../../apimachinery/errors.ts';
import { headerDictionary } from './dictionary.ts';

/** The protocol version carried by every control frame. */
export const spdyVersion = 3;

/** Control frame types. */
export const FrameType = {
  synStream: 1,
  synReply: 2,
  rstStream: 3,
  settings: 4,
  ping: 6,
  goAway: 7,
  headers: 8,
  windowUpdate: 9,
} as const;

/** Flag bits: FIN on SYN_STREAM, SYN_REPLY, HEADERS and DATA; UNIDIRECTIONAL on SYN_STREAM. */
export const FrameFlag = { fin: 0x01, unidirectional: 0x02 } as const;

/** RST_STREAM status codes. */
export const RstStatus = {
  protocolError: 1,
  invalidStream: 2,
  refusedStream: 3,
  unsupportedVersion: 4,
  cancel: 5,
  internalError: 6,
  flowControlError: 7,
  streamInUse: 8,
  streamAlreadyClosed: 9,
  frameTooLarge: 11,
} as const;

/** The largest payload a frame's 24-bit length can describe. */
export const maxFrameLength = 0xffffff;

/** Header names (lower case) to values; several values of one name travel NUL-separated. */
export type SpdyHeaders = Record<string, string[]>;

/** A decoded frame. Header blocks are already decompressed. */
export type Frame =
  | { type: 'data'; streamId: number; flags: number; data: Buffer }
  | { type: 'synStream'; streamId: number; associatedStreamId: number; priority: number; flags: number; headers: SpdyHeaders }
  | { type: 'synReply'; streamId: number; flags: number; headers: SpdyHeaders }
  | { type: 'headers'; streamId: number; flags: number; headers: SpdyHeaders }
  | { type: 'rstStream'; streamId: number; status: number }
  | { type: 'settings'; flags: number; entries: Array<{ flags: number; id: number; value: number }> }
  | { type: 'ping'; id: number }
  | { type: 'goAway'; lastGoodStreamId: number; status: number }
  | { type: 'windowUpdate'; streamId: number; delta: number };

/** The peer sent bytes that are not valid SPDY/3.1. */
export class SpdyProtocolError extends KubeloomError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_KUBE_SPDY_PROTOCOL', `spdy: ${message}`, options);
  }
}

/** Encodes a header block (uncompressed): count, then length-prefixed names and NUL-joined values. */
export function encodeHeaderBlock(headers: SpdyHeaders): Buffer {
  const parts: Buffer[] = [];
  const entries = Object.entries(headers);
  const count = Buffer.alloc(4);
  count.writeUInt32BE(entries.length);
  parts.push(count);
  for (const [name, values] of entries) {
    const n = Buffer.from(name.toLowerCase(), 'utf8');
    const v = Buffer.from(values.join('\u0000'), 'utf8');
    const nl = Buffer.alloc(4);
    nl.writeUInt32BE(n.length);
    const vl = Buffer.alloc(4);
    vl.writeUInt32BE(v.length);
    parts.push(nl, n, vl, v);
  }
  return Buffer.concat(parts);
}

/** Decodes an uncompressed header block; duplicate or upper-case names are protocol errors, as upstream. */
export function decodeHeaderBlock(block: Buffer): SpdyHeaders {
  const fail = (why: string): never => {
    throw new SpdyProtocolError(`invalid header block: ${why}`);
  };
  if (block.length < 4) fail('too short');
  const count = block.readUInt32BE(0);
  let off = 4;
  const headers: SpdyHeaders = {};
  for (let i = 0; i < count; i++) {
    if (off + 4 > block.length) fail('truncated name length');
    const nl = block.readUInt32BE(off);
    off += 4;
    if (off + nl > block.length) fail('truncated name');
    const name = block.toString('utf8', off, off + nl);
    off += nl;
    if (off + 4 > block.length) fail('truncated value length');
    const vl = block.readUInt32BE(off);
    off += 4;
    if (off + vl > block.length) fail('truncated value');
    const value = block.toString('utf8', off, off + vl);
    off += vl;
    if (name !== name.toLowerCase()) fail(`header was not lowercased: ${name}`);
    if (Object.hasOwn(headers, name)) fail(`multiple headers with same name: ${name}`);
    headers[name] = value.split('\u0000');
  }
  return headers;
}

/** Runs one zlib stream chunk by chunk, each ended with a sync flush, returning what the chunk produced. */
class ZlibStep {
  readonly #z: Deflate | Inflate;
  #out: Buffer[] = [];
  #error: Error | undefined;
  // The step in progress fails at once when zlib reports an error (its flush callback never runs then).
  #failPending: ((err: Error) => void) | undefined;
  #chain: Promise<unknown> = Promise.resolve();

  constructor(z: Deflate | Inflate) {
    this.#z = z;
    z.on('data', (chunk: Buffer) => this.#out.push(chunk));
    z.on('error', (err) => {
      this.#error = err;
      this.#failPending?.(err);
    });
  }

  run(input: Buffer): Promise<Buffer> {
    const step = this.#chain.then(
      () =>
        new Promise<Buffer>((resolve, reject) => {
          if (this.#error !== undefined) {
            reject(this.#error);
            return;
          }
          this.#failPending = reject;
          this.#z.write(input);
          this.#z.flush(zlibConstants.Z_SYNC_FLUSH, () => {
            this.#failPending = undefined;
            if (this.#error !== undefined) {
              reject(this.#error);
              return;
            }
            const out = Buffer.concat(this.#out);
            this.#out = [];
            resolve(out);
          });
        }),
    );
    this.#chain = step.catch(() => undefined);
    return step;
  }

  close(): void {
    this.#error ??= new Error('header compression closed');
    this.#failPending?.(this.#error);
    this.#z.destroy();
  }
}

/** Header compression of one direction of a connection (the compressor is shared by every frame sent). */
export class HeaderCompressor {
  readonly #step = new ZlibStep(createDeflate({ dictionary: headerDictionary, level: zlibConstants.Z_BEST_COMPRESSION }));
  /** Compresses one header block; blocks must be compressed in the order they are sent. */
  compress(headers: SpdyHeaders): Promise<Buffer> {
    return this.#step.run(encodeHeaderBlock(headers));
  }
  close(): void {
    this.#step.close();
  }
}

/** Header decompression of one direction of a connection. */
export class HeaderDecompressor {
  readonly #step = new ZlibStep(createInflate({ dictionary: headerDictionary }));
  /** Decompresses one header block; blocks must be given in the order they arrived. */
  async decompress(block: Buffer): Promise<SpdyHeaders> {
    let raw: Buffer;
    try {
      raw = await this.#step.run(block);
    } catch (err) {
      throw new SpdyProtocolError('header block could not be decompressed', { cause: err });
    }
    return decodeHeaderBlock(raw);
  }
  close(): void {
    this.#step.close();
  }
}

function controlHeader(type: number, flags: number, length: number): Buffer {
  if (length > maxFrameLength) throw new SpdyProtocolError(`frame of ${length} bytes is too large`);
  const b = Buffer.alloc(8);
  b.writeUInt16BE(0x8000 | spdyVersion, 0);
  b.writeUInt16BE(type, 2);
  b.writeUInt32BE(((flags & 0xff) << 24) | length, 4);
  return b;
}

/** Encodes a DATA frame. */
export function encodeData(streamId: number, data: Buffer, fin: boolean): Buffer {
  if (data.length > maxFrameLength) throw new SpdyProtocolError(`frame of ${data.length} bytes is too large`);
  const h = Buffer.alloc(8);
  h.writeUInt32BE(streamId & 0x7fffffff, 0);
  h.writeUInt32BE(((fin ? FrameFlag.fin : 0) << 24) | data.length, 4);
  return data.length === 0 ? h : Buffer.concat([h, data]);
}

/** Encodes a SYN_STREAM around an already compressed header block. */
export function encodeSynStream(streamId: number, compressedHeaders: Buffer, flags = 0, priority = 0, associatedStreamId = 0): Buffer {
  const body = Buffer.alloc(10);
  body.writeUInt32BE(streamId & 0x7fffffff, 0);
  body.writeUInt32BE(associatedStreamId & 0x7fffffff, 4);
  body.writeUInt8((priority & 0x7) << 5, 8);
  body.writeUInt8(0, 9);
  return Buffer.concat([controlHeader(FrameType.synStream, flags, 10 + compressedHeaders.length), body, compressedHeaders]);
}

/** Encodes a SYN_REPLY (or, with `type` headers, a HEADERS frame) around a compressed header block. */
export function encodeSynReply(streamId: number, compressedHeaders: Buffer, flags = 0, type: number = FrameType.synReply): Buffer {
  const id = Buffer.alloc(4);
  id.writeUInt32BE(streamId & 0x7fffffff);
  return Buffer.concat([controlHeader(type, flags, 4 + compressedHeaders.length), id, compressedHeaders]);
}

/** Encodes a RST_STREAM. */
export function encodeRstStream(streamId: number, status: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeUInt32BE(streamId & 0x7fffffff, 0);
  b.writeUInt32BE(status, 4);
  return Buffer.concat([controlHeader(FrameType.rstStream, 0, 8), b]);
}

/** Encodes a PING. */
export function encodePing(id: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(id >>> 0);
  return Buffer.concat([controlHeader(FrameType.ping, 0, 4), b]);
}

/** Encodes a GOAWAY. */
export function encodeGoAway(lastGoodStreamId: number, status = 0): Buffer {
  const b = Buffer.alloc(8);
  b.writeUInt32BE(lastGoodStreamId & 0x7fffffff, 0);
  b.writeUInt32BE(status, 4);
  return Buffer.concat([controlHeader(FrameType.goAway, 0, 8), b]);
}

/** Encodes a WINDOW_UPDATE. */
export function encodeWindowUpdate(streamId: number, delta: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeUInt32BE(streamId & 0x7fffffff, 0);
  b.writeUInt32BE(delta & 0x7fffffff, 4);
  return Buffer.concat([controlHeader(FrameType.windowUpdate, 0, 8), b]);
}

/** Encodes a SETTINGS frame. */
export function encodeSettings(entries: ReadonlyArray<{ flags?: number; id: number; value: number }>, flags = 0): Buffer {
  const b = Buffer.alloc(4 + entries.length * 8);
  b.writeUInt32BE(entries.length, 0);
  entries.forEach((e, i) => {
    b.writeUInt32BE((((e.flags ?? 0) & 0xff) << 24) | (e.id & 0xffffff), 4 + i * 8);
    b.writeUInt32BE(e.value >>> 0, 8 + i * 8);
  });
  return Buffer.concat([controlHeader(FrameType.settings, flags, b.length), b]);
}

/** A frame cut from the byte stream, header block still compressed. */
export type RawFrame = { control: false; streamId: number; flags: number; payload: Buffer } | { control: true; version: number; type: number; flags: number; payload: Buffer };

/**
 * Cuts frames out of a byte stream. `push` bytes as they arrive; it returns every complete frame.
 * Frames larger than `maxLength` are refused (they would otherwise be buffered whole).
 */
export class FrameSplitter {
  #buf: Buffer = Buffer.alloc(0);
  readonly #maxLength: number;

  constructor(maxLength = maxFrameLength) {
    this.#maxLength = maxLength;
  }

  /** Bytes received but not yet part of a complete frame. */
  get buffered(): number {
    return this.#buf.length;
  }

  push(chunk: Buffer): RawFrame[] {
    this.#buf = this.#buf.length === 0 ? chunk : Buffer.concat([this.#buf, chunk]);
    const frames: RawFrame[] = [];
    let off = 0;
    while (this.#buf.length - off >= 8) {
      const word = this.#buf.readUInt32BE(off);
      const flagsLength = this.#buf.readUInt32BE(off + 4);
      const length = flagsLength & 0xffffff;
      if (length > this.#maxLength) throw new SpdyProtocolError(`frame of ${length} bytes exceeds the limit of ${this.#maxLength}`);
      if (this.#buf.length - off < 8 + length) break;
      const payload = this.#buf.subarray(off + 8, off + 8 + length);
      const flags = flagsLength >>> 24;
      if ((word & 0x80000000) !== 0) frames.push({ control: true, version: (word >>> 16) & 0x7fff, type: word & 0xffff, flags, payload });
      else frames.push({ control: false, streamId: word & 0x7fffffff, flags, payload });
      off += 8 + length;
    }
    this.#buf = off === 0 ? this.#buf : this.#buf.subarray(off);
    // Keep no reference to a large consumed buffer.
    if (this.#buf.length === 0) this.#buf = Buffer.alloc(0);
    return frames;
  }
}

function need(payload: Buffer, n: number, what: string): void {
  if (payload.length < n) throw new SpdyProtocolError(`${what} frame too short (${payload.length} bytes)`);
}

/**
 * Decodes a raw frame, decompressing its header block with `headers` (which must see every header
 * block of the direction, in order). Returns undefined for control frame types SPDY/3.1 does not
 * define (to be ignored).
 */
export async function decodeFrame(raw: RawFrame, headers: HeaderDecompressor): Promise<Frame | undefined> {
  if (!raw.control) return { type: 'data', streamId: raw.streamId, flags: raw.flags, data: raw.payload };
  const p = raw.payload;
  if (raw.version !== spdyVersion) throw new SpdyProtocolError(`unsupported version ${raw.version}`);
  switch (raw.type) {
    case FrameType.synStream:
      need(p, 10, 'SYN_STREAM');
      return { type: 'synStream', streamId: p.readUInt32BE(0) & 0x7fffffff, associatedStreamId: p.readUInt32BE(4) & 0x7fffffff, priority: p.readUInt8(8) >>> 5, flags: raw.flags, headers: await headers.decompress(p.subarray(10)) };
    case FrameType.synReply:
      need(p, 4, 'SYN_REPLY');
      return { type: 'synReply', streamId: p.readUInt32BE(0) & 0x7fffffff, flags: raw.flags, headers: await headers.decompress(p.subarray(4)) };
    case FrameType.headers:
      need(p, 4, 'HEADERS');
      return { type: 'headers', streamId: p.readUInt32BE(0) & 0x7fffffff, flags: raw.flags, headers: await headers.decompress(p.subarray(4)) };
    case FrameType.rstStream:
      need(p, 8, 'RST_STREAM');
      return { type: 'rstStream', streamId: p.readUInt32BE(0) & 0x7fffffff, status: p.readUInt32BE(4) };
    case FrameType.settings: {
      need(p, 4, 'SETTINGS');
      const n = p.readUInt32BE(0);
      need(p, 4 + n * 8, 'SETTINGS');
      const entries = [];
      for (let i = 0; i < n; i++) {
        const idWord = p.readUInt32BE(4 + i * 8);
        entries.push({ flags: idWord >>> 24, id: idWord & 0xffffff, value: p.readUInt32BE(8 + i * 8) });
      }
      return { type: 'settings', flags: raw.flags, entries };
    }
    case FrameType.ping:
      need(p, 4, 'PING');
      return { type: 'ping', id: p.readUInt32BE(0) };
    case FrameType.goAway:
      need(p, 8, 'GOAWAY');
      return { type: 'goAway', lastGoodStreamId: p.readUInt32BE(0) & 0x7fffffff, status: p.readUInt32BE(4) };
    case FrameType.windowUpdate:
      need(p, 8, 'WINDOW_UPDATE');
      return { type: 'windowUpdate', streamId: p.readUInt32BE(0) & 0x7fffffff, delta: p.readUInt32BE(4) & 0x7fffffff };
    default:
      return undefined;
  }
}
