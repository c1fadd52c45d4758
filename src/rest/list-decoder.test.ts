import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { StatusError, isInternalError } from '../apimachinery/errors.ts';
import { ResponseDecodeError } from './errors.ts';
import { ListStreamDecoder, type ListEnvelope } from './list-decoder.ts';

interface Decoded {
  items: unknown[];
  /** Items in the order and batches `write` handed them over. */
  batches: unknown[][];
  envelope?: ListEnvelope;
  error?: unknown;
}

/** Feeds `parts` in order and ends the body, collecting what came out. */
function decode(parts: Uint8Array[]): Decoded {
  const decoder = new ListStreamDecoder<unknown>();
  const items: unknown[] = [];
  const batches: unknown[][] = [];
  try {
    for (const part of parts) {
      const out: unknown[] = [];
      decoder.write(part, out);
      batches.push(out);
      items.push(...out);
    }
    return { items, batches, envelope: decoder.end() };
  } catch (error) {
    return { items, batches, error };
  }
}

/** Splits `bytes` at the given offsets (taken modulo the length, deduplicated and sorted). */
function cut(bytes: Buffer, offsets: number[]): Buffer[] {
  const points = [...new Set(offsets.map((o) => (bytes.length === 0 ? 0 : o % bytes.length)))].sort((a, b) => a - b);
  const parts: Buffer[] = [];
  let prev = 0;
  for (const p of points) {
    parts.push(bytes.subarray(prev, p));
    prev = p;
  }
  parts.push(bytes.subarray(prev));
  return parts;
}

/** What JSON.parse makes of a list: its items and the other members. */
function reference(text: string): { items: unknown[]; envelope: Record<string, unknown> } {
  const { items, ...envelope } = JSON.parse(text) as { items?: unknown[] | null };
  return { items: items ?? [], envelope };
}

const pod = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  metadata: { name, namespace: 'default', labels: { app: 'web' }, annotations: { note: 'a "quoted" \\ back\\slash, {braces} and [brackets]' } },
  spec: { containers: [{ name: 'c', image: 'nginx', args: ['--x=1', 'ü-✓-😀'] }] },
  ...extra,
});

const podList = (items: unknown[]): string =>
  JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '42' }, items });

test('a list cut at every byte decodes to what JSON.parse makes of it, items in order', () => {
  const text = podList([pod('a'), pod('ü-multibyte-✓'), pod('c', { status: { phase: 'Running' } })]);
  const bytes = Buffer.from(text);
  const expected = reference(text);
  for (let at = 0; at <= bytes.length; at++) {
    const got = decode([bytes.subarray(0, at), bytes.subarray(at)]);
    assert.equal(got.error, undefined, `cut at ${at}`);
    assert.deepEqual(got.items, expected.items, `cut at ${at}`);
    assert.deepEqual(got.envelope, expected.envelope, `cut at ${at}`);
  }
});

test('a list fed one byte at a time decodes identically (escapes, multi-byte UTF-8 and surrogate pairs split everywhere)', () => {
  const text = podList([pod('x', { data: { s: '\\"\\\\\u0001\u2028😀é"' } }), pod('y')]);
  const bytes = Buffer.from(text);
  const got = decode([...bytes].map((b) => Uint8Array.of(b)));
  assert.equal(got.error, undefined);
  assert.deepEqual(got.items, reference(text).items);
});

test('property: any chunking of any list body yields exactly JSON.parse\'s items and members', () => {
  fc.assert(
    fc.property(
      fc.array(fc.jsonValue({ maxDepth: 4 }), { maxLength: 12 }),
      fc.uniqueArray(fc.tuple(fc.string({ unit: 'binary', maxLength: 12 }).filter((k) => k !== 'items' && k !== '__proto__'), fc.jsonValue({ maxDepth: 3 })), { selector: ([k]) => k, maxLength: 5 }),
      fc.nat({ max: 5 }),
      fc.constantFrom(0, 2),
      fc.array(fc.nat(), { maxLength: 40 }),
      (items, members, itemsAt, indent, cuts) => {
        const entries: Array<[string, unknown]> = [...members];
        entries.splice(Math.min(itemsAt, entries.length), 0, ['items', items]);
        const text = JSON.stringify(Object.fromEntries(entries), null, indent);
        const got = decode(cut(Buffer.from(text), cuts));
        assert.equal(got.error, undefined);
        const expected = reference(text);
        assert.deepEqual(got.items, expected.items);
        assert.deepEqual(got.envelope, expected.envelope);
        // Same key order as JSON.parse, too.
        assert.deepEqual(Object.keys(got.envelope!), Object.keys(expected.envelope));
      },
    ),
    { numRuns: 300 },
  );
});

test('property: Pod-like items with arbitrary strings survive any chunking', () => {
  fc.assert(
    fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 30 }), { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 60 }), (names, cuts) => {
      const text = podList(names.map((n) => pod(n, { status: { message: n.split('').reverse().join('') } })));
      const got = decode(cut(Buffer.from(text), cuts));
      assert.equal(got.error, undefined);
      assert.deepEqual(got.items, reference(text).items);
    }),
    { numRuns: 300 },
  );
});

test('items are handed over with the chunk that completes them, not before the separator after them', () => {
  const text = podList([pod('a'), pod('b')]);
  const bytes = Buffer.from(text);
  const endOfA = bytes.indexOf('},{"metadata"') + 1;
  // The chunk ending exactly after item a's closing brace does not hand it over yet: the ',' decides.
  const got = decode([bytes.subarray(0, endOfA), bytes.subarray(endOfA, endOfA + 1), bytes.subarray(endOfA + 1)]);
  assert.deepEqual(
    got.batches.map((b) => b.map((p) => (p as { metadata: { name: string } }).metadata.name)),
    [[], ['a'], ['b']],
  );
});

test('members may come in any order: metadata after items, continue and remainingItemCount, unknown members', () => {
  const text = `{"items":[{"metadata":{"name":"a"}}],"kind":"PodList","extra":{"x":[1,{"y":"]}"}]},"metadata":{"resourceVersion":"7","continue":"tok","remainingItemCount":12},"apiVersion":"v1"}\n`;
  const got = decode([Buffer.from(text)]);
  assert.equal(got.error, undefined);
  assert.deepEqual(got.items, [{ metadata: { name: 'a' } }]);
  assert.deepEqual(got.envelope, { kind: 'PodList', extra: { x: [1, { y: ']}' }] }, metadata: { resourceVersion: '7', continue: 'tok', remainingItemCount: 12 }, apiVersion: 'v1' });
});

test('empty lists: [] and null items give no items; a list without items is only its members', () => {
  for (const text of ['{"kind":"PodList","items":[]}', '{"kind":"PodList","items":null}', '{"kind":"PodList"}', ' {"items" : [ ] } \n']) {
    const decoder = new ListStreamDecoder<unknown>();
    const out: unknown[] = [];
    decoder.write(Buffer.from(text), out);
    const envelope = decoder.end();
    assert.deepEqual(out, [], text);
    assert.equal(decoder.itemCount, 0);
    assert.deepEqual(envelope, reference(text).envelope, text);
    assert.equal(decoder.itemsNull, text.includes('null'));
  }
});

test('a huge item split into small chunks is decoded whole', () => {
  const big = pod('huge', { data: { blob: 'x\\"y'.repeat(500_000), nested: Array.from({ length: 2000 }, (_, i) => ({ i, s: `v${i}é` })) } });
  const text = podList([pod('before'), big, pod('after')]);
  const bytes = Buffer.from(text);
  const parts: Buffer[] = [];
  for (let o = 0; o < bytes.length; o += 16_381) parts.push(bytes.subarray(o, o + 16_381));
  const got = decode(parts);
  assert.equal(got.error, undefined);
  assert.deepEqual(got.items, reference(text).items);
});

test('a truncated body throws ResponseDecodeError and hands over only items whose separator arrived', () => {
  const pods = [pod('a'), pod('b-ü'), pod('c')];
  const full = podList(pods);
  const bytes = Buffer.from(full);
  // The byte offset of the ',' or ']' after each item.
  const separators: number[] = [];
  let at = Buffer.byteLength(full.slice(0, full.indexOf('[') + 1));
  for (const p of pods) {
    at += Buffer.byteLength(JSON.stringify(p));
    separators.push(at);
    at += 1;
  }
  for (let end = 0; end < bytes.length; end++) {
    const got = decode([bytes.subarray(0, end)]);
    assert.ok(got.error instanceof ResponseDecodeError, `cut at ${end}: ${String(got.error)}`);
    assert.match((got.error as Error).message, /list response ended early/);
    assert.deepEqual(got.items, reference(full).items.slice(0, separators.filter((s) => s < end).length), `cut at ${end}`);
  }
});

test('a Status error body is raised as a StatusError; a Success Status is returned as it is', () => {
  const failure = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'etcd is down', reason: 'InternalError', code: 500 };
  const got = decode([Buffer.from(JSON.stringify(failure))]);
  assert.ok(got.error instanceof StatusError);
  assert.ok(isInternalError(got.error));
  assert.equal(got.error.message, 'etcd is down');
  const success = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' };
  assert.deepEqual(decode([Buffer.from(JSON.stringify(success))]).envelope, success);
});

test('a body that is not a JSON object is a ResponseDecodeError quoting its start', () => {
  for (const text of ['<html><body>502 Bad Gateway</body></html>', '[{"metadata":{}}]', '"text"', '42', 'null']) {
    const got = decode([Buffer.from(text)]);
    assert.ok(got.error instanceof ResponseDecodeError, text);
    assert.match((got.error as Error).message, /not a JSON object/, text);
  }
  const html = decode([Buffer.from('<html>'), Buffer.from('<body>oops</body></html>')]);
  assert.match((html.error as Error).message, /<html>/);
  const empty = decode([]);
  assert.ok(empty.error instanceof ResponseDecodeError);
  assert.match((empty.error as Error).message, /ended early, before its items \(0 bytes read\)/);
});

test('a Status the server appends to a list it failed to finish is raised as that StatusError, wherever the list was cut', () => {
  const status = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'fatal error serializing object', reason: 'InternalError', code: 500 });
  const full = podList([pod('a'), pod('b'), pod('c')]);
  const all = reference(full).items;
  // Cut anywhere inside the items array, then the Status and a newline, as errSerializationFatal writes them.
  const from = full.indexOf('[') + 1;
  for (let at = from; at < full.length - 2; at += 7) {
    const body = Buffer.from(`${full.slice(0, at)}${status}\n`);
    for (const parts of [[body], cut(body, [at, at + 3, body.length - 5])]) {
      const got = decode(parts);
      assert.ok(got.error instanceof StatusError, `cut at ${at}: ${String(got.error)}`);
      assert.equal(got.error.message, 'fatal error serializing object');
      assert.ok(got.error.cause instanceof ResponseDecodeError);
      // Items already confirmed are real ones; the Status is never one of them.
      assert.deepEqual(got.items, all.slice(0, got.items.length));
    }
  }
});

test('items that are not an array, two items members, malformed items and trailing data are decode errors', () => {
  const cases: Array<[string, RegExp]> = [
    ['{"kind":"PodList","items":5}', /items is a number, not an array/],
    ['{"kind":"PodList","items":{"a":1}}', /items is an object, not an array/],
    ['{"items":[],"items":[]}', /two items members/],
    ['{"items":[{"a":1},{"a":}]}', /item 2 is not valid JSON/],
    ['{"items":[{"a":1} {"a":2}]}', /expected ',' or '\]' after item 1/],
    ['{"items":[]}x', /unexpected data after the list/],
    ['{"kind" "PodList"}', /expected ':'/],
    ['{"kind":"PodList" "items":[]}', /expected ',' or '}'/],
    ['{kind:1}', /expected a member name/],
    ['{"metadata":{"resourceVersion":}, "items":[]}', /malformed member "metadata"/],
  ];
  for (const [text, message] of cases) {
    const got = decode([Buffer.from(text)]);
    assert.ok(got.error instanceof ResponseDecodeError, `${text}: ${String(got.error)}`);
    assert.match((got.error as Error).message, message, text);
  }
});

test('after a failure the decoder keeps at most 64 KiB: write then throws instead of reading on', () => {
  const decoder = new ListStreamDecoder<unknown>();
  decoder.write(Buffer.from('{"items":[{"a":1}}'), []);
  const filler = Buffer.alloc(16 * 1024, 0x20);
  assert.throws(() => {
    for (let i = 0; i < 10; i++) decoder.write(filler, []);
  }, ResponseDecodeError);
});

test('a __proto__ member is an own member, as JSON.parse makes it', () => {
  const text = '{"__proto__":{"polluted":true},"items":[]}';
  const got = decode([Buffer.from(text)]);
  assert.deepEqual(Object.keys(got.envelope!), ['__proto__']);
  assert.equal(Object.getPrototypeOf(got.envelope), Object.prototype);
  assert.equal((got.envelope as Record<string, unknown>)['polluted'], undefined);
});
