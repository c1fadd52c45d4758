import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ManagedFieldsInterner, eventManagedFields } from './managed-fields-interner.ts';
import { SectionReusingParser, minSectionBytes, refreshEvery } from './section-reuse.ts';

type Obj = Record<string, unknown> & { metadata: { name: string; namespace: string; resourceVersion?: string; managedFields?: unknown } };

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const k in value) deepFreeze((value as Record<string, unknown>)[k]);
  }
  return value;
}

function isDeeplyFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (!Object.isFrozen(value)) return false;
  for (const k in value) if (!isDeeplyFrozen((value as Record<string, unknown>)[k])) return false;
  return true;
}

const line = (type: string, object: unknown): Buffer => Buffer.from(JSON.stringify({ type, object }));

/** A cache as the informer keeps it: the decoded objects, frozen, by namespace/name. */
class Harness {
  readonly cache = new Map<string, Obj>();
  readonly parser = new SectionReusingParser(new ManagedFieldsInterner(), (ns, name) => this.cache.get(`${ns}/${name}`));
  /** Decodes one event (inside a larger chunk, as from the network) and caches its object frozen. */
  decode(type: string, object: unknown): Obj {
    const bytes = line(type, object);
    const chunk = Buffer.concat([Buffer.from('{"type":"ADDED","object":{}}\n'), bytes, Buffer.from('\n{"type":"MODIFIED"')]);
    const start = chunk.indexOf(0x0a) + 1;
    const event = this.parser.parse(chunk, start, start + bytes.length, eventManagedFields) as { object: Obj };
    assert.deepEqual(event, JSON.parse(bytes.toString()));
    const obj = deepFreeze(event.object);
    this.cache.set(`${obj.metadata.namespace}/${obj.metadata.name}`, obj);
    return obj;
  }
}

const bigSpec = (image: string): Record<string, unknown> => ({
  containers: [{ name: 'web', image, args: Array.from({ length: 20 }, (_, i) => `--flag-${i}=value-${i}`), env: [{ name: 'A', value: 'x "quoted" ü' }] }],
  nodeName: 'node-1',
});
const bigStatus = (phase: string): Record<string, unknown> => ({ phase, conditions: Array.from({ length: 6 }, (_, i) => ({ type: `C${i}`, status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' })) });
const pod = (rv: number, spec: Record<string, unknown>, status: Record<string, unknown>): Obj => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'ns', resourceVersion: String(rv), managedFields: [{ manager: 'kubelet', operation: 'Update', fieldsV1: { 'f:status': { 'f:phase': {} } } }] },
  spec,
  status,
});

test('an unchanged spec is the cached frozen one; a changed status is new; every result deep-equals JSON.parse', () => {
  assert.ok(JSON.stringify(bigSpec('a')).length >= minSectionBytes && JSON.stringify(bigStatus('x')).length >= minSectionBytes);
  const h = new Harness();
  const first = h.decode('ADDED', pod(1, bigSpec('a'), bigStatus('Pending')));
  const second = h.decode('MODIFIED', pod(2, bigSpec('a'), bigStatus('Running')));
  assert.equal(second.spec, first.spec);
  assert.notEqual(second.status, first.status);
  const third = h.decode('MODIFIED', pod(3, bigSpec('b'), bigStatus('Running')));
  assert.notEqual(third.spec, second.spec);
  assert.deepEqual(third.spec, bigSpec('b'));
  // Nothing was taken over for the third: the fourth measures every section afresh, the fifth takes both.
  const fourth = h.decode('MODIFIED', pod(4, bigSpec('b'), bigStatus('Running')));
  const fifth = h.decode('MODIFIED', pod(5, bigSpec('b'), bigStatus('Running')));
  assert.equal(fifth.spec, fourth.spec);
  assert.equal(fifth.status, fourth.status);
  // A status that changed is not hashed again until the object's next refresh, then taken again.
  let last = h.decode('MODIFIED', pod(6, bigSpec('b'), bigStatus('Failed')));
  const changed = last.status;
  for (let rv = 7; rv < 7 + refreshEvery; rv++) last = h.decode('MODIFIED', pod(rv, bigSpec('b'), bigStatus('Failed')));
  assert.equal(last.spec, fourth.spec);
  assert.notEqual(last.status, changed);
  assert.equal(h.decode('MODIFIED', pod(100, bigSpec('b'), bigStatus('Failed'))).status, last.status);
  assert.ok(isDeeplyFrozen(last));
});

test('a section found at its key only inside another member, a key written twice, or the marker text: parsed plainly', () => {
  const h = new Harness();
  const spec = bigSpec('a');
  const cached = h.decode('ADDED', pod(1, spec, bigStatus('x')));
  // The same spec bytes, but nested in an earlier member; the top-level spec differs.
  const nested = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns' }, data: { spec }, spec: bigSpec('other') };
  const a = h.decode('MODIFIED', nested);
  assert.deepEqual(a.spec, bigSpec('other'));
  h.cache.set('ns/p', cached);
  // The spec written twice: JSON.parse keeps the second.
  const twice = Buffer.from(`{"type":"MODIFIED","object":{"metadata":{"name":"p","namespace":"ns"},"spec":${JSON.stringify(spec)},"spec":{"x":1}}}`);
  const event = h.parser.parse(twice, 0, twice.length, eventManagedFields);
  assert.deepEqual(event, JSON.parse(twice.toString()));
  // The marker's text in a string of the event.
  const withMarker = pod(2, spec, { phase: '\u0000kubeloom:unchanged' });
  const b = h.decode('MODIFIED', withMarker);
  assert.equal(b.status!.constructor, Object);
});

// Random edits at random paths of a random object: the decoded object always deep-equals what
// JSON.parse makes of the bytes, and a section whose bytes changed is never the cached one.
const leaf = fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null));
const tree = fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(leaf, fc.array(leaf, { maxLength: 4 }), fc.dictionary(fc.string({ maxLength: 4 }), leaf, { maxKeys: 4 })), { minKeys: 1, maxKeys: 6 });
const padded = tree.map((t) => ({ ...t, padding: 'x'.repeat(minSectionBytes) }));
const edit = fc.record({ section: fc.constantFrom('spec', 'status', 'extra', 'metadata'), key: fc.string({ maxLength: 6 }), value: fc.oneof(leaf, tree), remove: fc.boolean() });

test('property: whatever the versions and edits, the result deep-equals JSON.parse, stays deeply frozen, and a changed section is never taken over', () => {
  fc.assert(
    fc.property(padded, padded, fc.array(tree, { maxLength: 1 }), fc.array(edit, { minLength: 1, maxLength: 4 }), (spec, status, extras, edits) => {
      const h = new Harness();
      let current: Obj = { kind: 'Thing', metadata: { name: 'n', namespace: 'ns', resourceVersion: '1' }, spec, status, ...(extras.length > 0 ? { extra: { ...extras[0], padding: 'y'.repeat(minSectionBytes) } } : {}) };
      let cached = h.decode('ADDED', current);
      for (let i = 0; i < edits.length; i++) {
        const e = edits[i]!;
        const next = JSON.parse(JSON.stringify(current)) as Obj;
        next.metadata.resourceVersion = String(i + 2);
        const record = next as Record<string, unknown>;
        const section = (record[e.section] ?? (record[e.section] = {})) as Record<string, unknown>;
        if (e.remove) delete section[e.key];
        else section[e.key] = e.value;
        const decoded = h.decode('MODIFIED', next);
        for (const s of ['spec', 'status', 'extra']) {
          if (JSON.stringify(next[s]) !== JSON.stringify(current[s])) assert.notEqual(decoded[s], cached[s], `${s} changed but was taken over`);
        }
        assert.ok(isDeeplyFrozen(decoded));
        current = next;
        cached = decoded;
      }
    }),
    { numRuns: 300 },
  );
});
