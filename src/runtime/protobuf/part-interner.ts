/**
 * Sharing of identical parts between the objects of one decoded protobuf LIST (kubeloom; client-go
 * decodes every object whole, apimachinery `runtime/serializer/protobuf`).
 *
 * The objects of a list repeat themselves: the Pods of one ReplicaSet carry the same containers,
 * probes, resources, volumes, tolerations, owner reference and (while Pending) status, byte for byte
 * on the wire, because gogo-protobuf writes equal messages as equal bytes. A PartInterner decodes each
 * distinct embedded message once and hands the same value, deep-frozen from its first reuse on, to
 * every later message with identical bytes: equal bytes give equal values, so sharing loses nothing
 * but mutability. A part that never repeats is left as decoded. A hit costs a hash of the bytes and a byte compare instead of building and later
 * freezing the objects, and the list keeps one copy instead of thousands, which is most of what the
 * garbage collector works on during an initial sync.
 *
 * Only embedded messages are shared, never the list's items themselves (every object stays its own,
 * unfrozen, as the caller expects); special types (times, quantities, fieldsV1, raw extensions) are
 * decoded as before. Lookups are by a hash of all the bytes, verified byte for byte. A message type
 * that keeps missing (an ObjectMeta, unique per object; a PodSpec whose pod names its own volumes) is
 * no longer looked up once it has shown it does not repeat, so unique parts cost little more than
 * their hash while the decoder learns that.
 */
import type { MessageDesc } from './descriptors.ts';
import { readMessage, type MessagePartDecoder, type ProtoReader } from './decode.ts';

/** Messages shorter than this are decoded afresh: a lookup would cost about what decoding does. */
const minPartBytes = 8;
/** Messages longer than this are decoded afresh (their parts may still be shared). */
const maxPartBytes = 16 * 1024;
/** Lookups of a message type before its hit rate is judged. */
const probeLookups = 64;
/** A message type with fewer hits than one in this many lookups is no longer looked up. */
const minHitRatio = 8;
/** Default bound on the bytes of the distinct parts remembered (8 MiB, as ManagedFieldsInterner's). */
export const defaultPartInternerMaxBytes = 8 * 2 ** 20;

/** One remembered part: a copy of its bytes, its message type and its decoded value (frozen once shared). */
interface Part {
  bytes: Uint8Array;
  desc: MessageDesc;
  value: unknown;
  shared: boolean;
}

/** Lookups and hits of one message type. */
interface Usage {
  lookups: number;
  hits: number;
}

function freeze(value: unknown): void {
  // A local deep freeze: tools/cache's deepFreeze sits above this layer.
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const k in value) freeze((value as Record<string, unknown>)[k]);
}

/** A hash of every byte: parts that differ in one character (an image tag) must land apart. */
function hashBytes(buf: Uint8Array, start: number, end: number): number {
  let h = end - start;
  for (let i = start; i < end; i++) h = (Math.imul(h, 31) + buf[i]!) | 0;
  return h;
}

function sameBytes(kept: Uint8Array, buf: Uint8Array, start: number, len: number): boolean {
  // A loop rather than Buffer.compare: for parts of tens to hundreds of bytes the native call's
  // argument checks cost more than the comparison.
  for (let i = 0; i < len; i++) if (kept[i] !== buf[start + i]) return false;
  return true;
}

/**
 * Shares the identical embedded messages of the objects decoded through it (see the module comment).
 * One per decoded response; it remembers up to `maxBytes` of distinct parts, then only shares those.
 * A shared value is deep-frozen when it is first reused, which may be after the object that first
 * carried it was handed over.
 *
 * @example
 * const decoder = new ProtobufListDecoder<Pod>({ shareParts: true });
 */
export class PartInterner implements MessagePartDecoder {
  /** The parts remembered, by a hash of their bytes. */
  readonly #buckets = new Map<number, Part[]>();
  readonly #usage = new Map<MessageDesc, Usage>();
  readonly #maxBytes: number;
  #bytes = 0;
  #hits = 0;

  constructor(options: { /** Bound on the bytes remembered (default {@link defaultPartInternerMaxBytes}). */ maxBytes?: number } = {}) {
    this.#maxBytes = options.maxBytes ?? defaultPartInternerMaxBytes;
  }

  /** Messages answered with a value decoded before. */
  get hits(): number {
    return this.#hits;
  }

  /** The value of the `desc` message in `[r.pos, end)`: one decoded before for the same bytes, or a new one. */
  part(r: ProtoReader, desc: MessageDesc, end: number): unknown {
    const start = r.pos;
    const len = end - start;
    if (len < minPartBytes || len > maxPartBytes) return readMessage(r, desc, end, desc.create());
    let usage = this.#usage.get(desc);
    if (usage === undefined) this.#usage.set(desc, (usage = { lookups: 0, hits: 0 }));
    else if (usage.lookups >= probeLookups && usage.hits * minHitRatio < usage.lookups) return readMessage(r, desc, end, desc.create());
    usage.lookups++;
    const buf = r.buf;
    const h = hashBytes(buf, start, end);
    const bucket = this.#buckets.get(h);
    if (bucket !== undefined) {
      for (let i = 0; i < bucket.length; i++) {
        const p = bucket[i]!;
        if (p.desc === desc && p.bytes.length === len && sameBytes(p.bytes, buf, start, len)) {
          usage.hits++;
          this.#hits++;
          // Frozen when first shared: a part that never repeats stays as mutable as without sharing.
          if (!p.shared) {
            p.shared = true;
            freeze(p.value);
          }
          r.pos = end;
          return p.value;
        }
      }
    }
    const value = readMessage(r, desc, end, desc.create());
    if (this.#bytes + len <= this.#maxBytes) {
      // A copy: the bytes of a response chunk must not be kept alive by the interner.
      const part: Part = { bytes: Uint8Array.prototype.slice.call(buf, start, end), desc, value, shared: false };
      if (bucket === undefined) this.#buckets.set(h, [part]);
      else bucket.push(part);
      this.#bytes += len;
    }
    return value;
  }
}
