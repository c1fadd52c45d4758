import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatMicroTime, formatTime, parseTime } from './meta-time.ts';
import { InvalidReferenceError, UniqueNanos, generateEventName, getReference, referenceKey, validateEventType } from './util.ts';

test('metav1 Time and MicroTime formats round-trip through milliseconds', () => {
  const t = Date.UTC(2024, 1, 29, 23, 59, 58, 7);
  assert.equal(formatTime(t), '2024-02-29T23:59:58Z');
  assert.equal(formatMicroTime(t), '2024-02-29T23:59:58.007000Z');
  assert.equal(parseTime(formatMicroTime(t)), t);
  assert.equal(parseTime(formatTime(t)), t - 7);
  const cases: Array<[string | undefined, number | undefined]> = [
    ['2024-01-01T00:00:00.123456Z', Date.UTC(2024, 0, 1, 0, 0, 0, 123)],
    ['2024-01-01T02:00:00+02:00', Date.UTC(2024, 0, 1)],
    ['2024-01-01T00:00:00-00:30', Date.UTC(2024, 0, 1, 0, 30)],
    ['2024-01-01', undefined],
    ['not a time', undefined],
    [undefined, undefined],
  ];
  for (const [input, expected] of cases) assert.equal(parseTime(input), expected, String(input));
});

test('event names are <name>.<hex nanoseconds>, or a UUID when that is not a DNS subdomain', () => {
  assert.equal(generateEventName('web-1', 0x17a6n), 'web-1.17a6');
  assert.match(generateEventName('Web_1', 1n), /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  assert.match(generateEventName('a'.repeat(252), 1n), /^[0-9a-f-]{36}$/);
});

test('UniqueNanos is strictly increasing within a millisecond and jumps to the clock when it moves on', () => {
  const n = new UniqueNanos();
  assert.deepEqual([n.next(5), n.next(5), n.next(5), n.next(6)], [5_000_000n, 5_000_001n, 5_000_002n, 6_000_000n]);
});

test('event types: only Normal and Warning are valid', () => {
  assert.deepEqual(['Normal', 'Warning', 'normal', ''].map(validateEventType), [true, true, false, false]);
});

test('getReference copies identity fields, passes references through, and needs a kind', () => {
  assert.deepEqual(getReference({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'ns', uid: 'u', resourceVersion: '3', labels: { a: 'b' } } }), {
    kind: 'Deployment',
    apiVersion: 'apps/v1',
    name: 'd',
    namespace: 'ns',
    uid: 'u',
    resourceVersion: '3',
  });
  assert.deepEqual(getReference({ kind: 'Pod', name: 'p', fieldPath: 'spec.containers{a}' }), { kind: 'Pod', name: 'p', fieldPath: 'spec.containers{a}' });
  assert.throws(() => getReference({ metadata: { name: 'x' } }), InvalidReferenceError);
  assert.notEqual(referenceKey({ kind: 'Pod', name: 'a' }), referenceKey({ kind: 'Pod', name: 'a', resourceVersion: '1' }));
  assert.equal(referenceKey(undefined), '');
});
