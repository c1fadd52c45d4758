import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ListStreamDecoder } from './list-decoder.ts';
import { ManagedFieldsInterner, eventManagedFields, itemManagedFields } from './managed-fields-interner.ts';
import { WatchStreamDecoder } from './watch-decoder.ts';
import type { WatchEvent } from '../apimachinery/watch.ts';

interface Obj {
  metadata?: { name?: string; managedFields?: Array<{ manager?: string; fieldsV1?: unknown }> };
  spec?: Record<string, unknown>;
}

const fieldsA = { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"web-ü"}': { '.': {}, 'f:image': {} } } } };
const fieldsB = { 'f:status': { 'f:phase': {} } };
const obj = (name: string, fields: unknown[], extra: Partial<Obj> = {}): Obj => ({
  metadata: { name, managedFields: fields.map((f, i) => ({ manager: `m${i}`, operation: 'Update', fieldsV1: f })) },
  ...extra,
});

const parse = (interner: ManagedFieldsInterner, value: unknown): unknown => {
  const buf = Buffer.from(JSON.stringify(value));
  return interner.parse(buf, 0, buf.length, itemManagedFields);
};

test('identical fieldsV1 bytes give one shared, deeply frozen object; the rest is JSON.parse\'s, mutable', () => {
  const interner = new ManagedFieldsInterner();
  const a = parse(interner, obj('a', [fieldsA, fieldsB])) as Obj;
  const b = parse(interner, obj('b', [fieldsA])) as Obj;
  const c = parse(interner, obj('c', [fieldsB, fieldsA])) as Obj;
  assert.deepEqual(a, obj('a', [fieldsA, fieldsB]));
  assert.deepEqual(c, obj('c', [fieldsB, fieldsA]));
  const mf = (o: Obj, i: number): unknown => o.metadata!.managedFields![i]!.fieldsV1;
  assert.equal(mf(a, 0), mf(b, 0));
  assert.equal(mf(a, 0), mf(c, 1));
  assert.equal(mf(a, 1), mf(c, 0));
  assert.notEqual(mf(a, 0), mf(a, 1));
  assert.equal(interner.size, 2);
  const shared = mf(a, 0) as typeof fieldsA;
  assert.ok(Object.isFrozen(shared) && Object.isFrozen(shared['f:metadata']['f:labels']['.']));
  assert.throws(() => {
    (shared as Record<string, unknown>)['f:x'] = {};
  }, TypeError);
  // Only fieldsV1 is shared: the objects themselves stay as JSON.parse makes them.
  assert.ok(!Object.isFrozen(a) && !Object.isFrozen(a.metadata!.managedFields![0]));
});

test('property: whatever the objects, the result deep-equals JSON.parse\'s', () => {
  const fields = fc.dictionary(fc.string({ unit: 'binary', maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 });
  const entry = fc.record({ manager: fc.string({ maxLength: 5 }), fieldsV1: fc.oneof(fields, fc.constant(null), fc.string()) }, { requiredKeys: ['manager'] });
  const anObj = fc.record({
    metadata: fc.record({ name: fc.string({ unit: 'binary', maxLength: 10 }), managedFields: fc.array(entry, { maxLength: 3 }) }, { requiredKeys: [] }),
    spec: fc.dictionary(fc.constantFrom('fieldsV1', 'managedFields', 'x', 'note'), fc.oneof(fields, fc.string({ unit: 'binary' }), fc.array(entry, { maxLength: 2 }))),
  });
  const interner = new ManagedFieldsInterner();
  fc.assert(
    fc.property(anObj, (o) => {
      assert.deepEqual(parse(interner, o), JSON.parse(JSON.stringify(o)));
    }),
    { numRuns: 500 },
  );
});

test('a fieldsV1 member outside managedFields, an escaped one inside a string and a look-alike marker are parsed as they are', () => {
  const interner = new ManagedFieldsInterner();
  const custom = obj('cr', [fieldsA], { spec: { fieldsV1: { 'f:a': {} } } });
  const got = parse(interner, custom) as Obj;
  assert.deepEqual(got, custom);
  assert.ok(!Object.isFrozen(got.spec!['fieldsV1']), 'not cut out, not shared');
  const quoted = { metadata: { name: 'q', annotations: { note: '{"fieldsV1":{"f:a":{}}}' } }, spec: { 'a"fieldsV1': { 'f:a': {} } } };
  assert.deepEqual(parse(interner, quoted), quoted);
  const lookAlike = { metadata: { managedFields: [{ fieldsV1: '\u0000kubeloom:fieldsV1' }, { fieldsV1: fieldsB }] } };
  assert.deepEqual(parse(interner, lookAlike), lookAlike);
  // A managedFields array before metadata's (in a custom resource's spec) is not metadata's.
  const early = { spec: { managedFields: [{ fieldsV1: fieldsA }] }, ...obj('e', [fieldsB]) };
  const parsedEarly = parse(interner, early) as Obj & { spec: { managedFields: Array<{ fieldsV1: unknown }> } };
  assert.deepEqual(parsedEarly, early);
  assert.ok(!Object.isFrozen(parsedEarly.spec.managedFields[0]!.fieldsV1));
});

test('malformed JSON still fails, inside or outside a fieldsV1', () => {
  const interner = new ManagedFieldsInterner();
  for (const text of ['{"metadata":{"managedFields":[{"fieldsV1":{"f:a":}}]}}', '{"spec":{"fieldsV1":{nope}}}', '{"metadata":{"managedFields":[{"fieldsV1":{"f:a":{}}}]}', '{"metadata":{"managedFields":[{"fieldsV1":{"f:a":{}}']) {
    const buf = Buffer.from(text);
    assert.throws(() => interner.parse(buf, 0, buf.length, itemManagedFields), SyntaxError, text);
  }
});

test('the interner starts over once the remembered text exceeds its bound', () => {
  const interner = new ManagedFieldsInterner({ maxBytes: 100 });
  const first = parse(interner, obj('a', [fieldsA])) as Obj;
  assert.equal(interner.size, 1);
  parse(interner, obj('b', [fieldsB]));
  assert.equal(interner.size, 1, 'fieldsA (about 90 bytes) was dropped to stay under 100');
  const again = parse(interner, obj('c', [fieldsA])) as Obj;
  assert.notEqual(again.metadata!.managedFields![0]!.fieldsV1, first.metadata!.managedFields![0]!.fieldsV1);
  assert.deepEqual(again.metadata!.managedFields![0]!.fieldsV1, fieldsA);
});

test('the LIST and watch decoders share fieldsV1 through one interner, across items and events', () => {
  const interner = new ManagedFieldsInterner();
  const list = Buffer.from(JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: {}, items: [obj('a', [fieldsA]), obj('b', [fieldsA])] }));
  const decoder = new ListStreamDecoder<Obj>({ interner });
  const items: Obj[] = [];
  // Split inside the second item's fieldsV1.
  const at = list.lastIndexOf('f:labels');
  decoder.write(list.subarray(0, at), items);
  decoder.write(list.subarray(at), items);
  decoder.end();
  assert.equal(items[0]!.metadata!.managedFields![0]!.fieldsV1, items[1]!.metadata!.managedFields![0]!.fieldsV1);
  const watch = new WatchStreamDecoder<Obj>({ interner });
  const events: Array<WatchEvent<Obj>> = [];
  watch.write(Buffer.from(`${JSON.stringify({ type: 'MODIFIED', object: obj('a', [fieldsA, fieldsB]) })}\n`), events);
  const ev = events[0]!;
  assert.equal(ev.type, 'MODIFIED');
  assert.equal(eventManagedFields(ev), (ev.object as Obj).metadata!.managedFields);
  assert.equal((ev.object as Obj).metadata!.managedFields![0]!.fieldsV1, items[0]!.metadata!.managedFields![0]!.fieldsV1);
});

test('values are remembered by a copy of their bytes: the buffer they came from may be reused, and values that differ in one byte stay apart', () => {
  const interner = new ManagedFieldsInterner();
  // 40 values of ~1 KB that differ only in a uid deep inside (as the managedFields of Pods of 40 ReplicaSets).
  const owned = (i: number): unknown => ({ 'f:metadata': { 'f:ownerReferences': { [`k:{"uid":"${String(i).padStart(8, '0')}-0000"}`]: { '.': {} } } }, 'f:spec': { 'f:x': { pad: 'p'.repeat(1000) } } });
  const first = Array.from({ length: 40 }, (_, i) => parse(interner, obj(`a${i}`, [owned(i)])) as Obj);
  assert.equal(interner.size, 40);
  for (let i = 0; i < 40; i++) assert.deepEqual(first[i]!.metadata!.managedFields![0]!.fieldsV1, owned(i));
  // A value first met in a buffer that is then overwritten (a reused response chunk): the remembered copy is unaffected.
  const fresh = new ManagedFieldsInterner();
  const text = Buffer.from(JSON.stringify(obj('again', [owned(7)])));
  const again = fresh.parse(text, 0, text.length, itemManagedFields) as Obj;
  text.fill(0x20);
  const later = parse(fresh, obj('later', [owned(7)])) as Obj;
  assert.equal(later.metadata!.managedFields![0]!.fieldsV1, again.metadata!.managedFields![0]!.fieldsV1);
  assert.equal(fresh.size, 1);
  assert.deepEqual(parse(interner, obj('x', [owned(7)])), obj('x', [owned(7)]));
  assert.equal(interner.size, 40);
});
