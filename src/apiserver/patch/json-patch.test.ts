import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { applyJsonPatch, parseJsonPointer } from './json-patch.ts';
import { PatchError } from './errors.ts';

// RFC 6902 appendix A, in order (A.13, a duplicated member, cannot survive JSON.parse and is omitted).
const rfcCases: Array<[string, unknown, unknown, unknown]> = [
  ['A.1 adding an object member', { foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }], { baz: 'qux', foo: 'bar' }],
  ['A.2 adding an array element', { foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }], { foo: ['bar', 'qux', 'baz'] }],
  ['A.3 removing an object member', { baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }], { foo: 'bar' }],
  ['A.4 removing an array element', { foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }], { foo: ['bar', 'baz'] }],
  ['A.5 replacing a value', { baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }], { baz: 'boo', foo: 'bar' }],
  ['A.6 moving a value', { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
    [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }], { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } }],
  ['A.7 moving an array element', { foo: ['all', 'grass', 'cows', 'eat'] }, [{ op: 'move', from: '/foo/1', path: '/foo/3' }],
    { foo: ['all', 'cows', 'eat', 'grass'] }],
  ['A.8 testing a value: success', { baz: 'qux', foo: ['a', 2, 'c'] },
    [{ op: 'test', path: '/baz', value: 'qux' }, { op: 'test', path: '/foo/1', value: 2 }], { baz: 'qux', foo: ['a', 2, 'c'] }],
  ['A.10 adding a nested member object', { foo: 'bar' }, [{ op: 'add', path: '/child', value: { grandchild: {} } }],
    { foo: 'bar', child: { grandchild: {} } }],
  ['A.11 ignoring unrecognized elements', { foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux', xyz: 123 }], { foo: 'bar', baz: 'qux' }],
  ['A.14 ~ escape ordering', { '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: 10 }], { '/': 9, '~1': 10 }],
  ['A.16 adding an array value', { foo: ['bar'] }, [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }], { foo: ['bar', ['abc', 'def']] }],
  ['copy deep-copies', { a: { b: 1 } }, [{ op: 'copy', from: '/a', path: '/c' }, { op: 'replace', path: '/c/b', value: 2 }],
    { a: { b: 1 }, c: { b: 2 } }],
  ['a "__proto__" member is an ordinary member', JSON.parse('{"__proto__":{"a":1}}'), [{ op: 'add', path: '/__proto__/b', value: 2 }],
    JSON.parse('{"__proto__":{"a":1,"b":2}}')],
  ['add at the root replaces the document', { a: 1 }, [{ op: 'add', path: '', value: [1] }], [1]],
  ['add at the end index appends', { a: [1] }, [{ op: 'add', path: '/a/1', value: 2 }], { a: [1, 2] }],
  ['negative indices count from the end, as kube-apiserver allows', { a: [1, 2, 3] },
    [{ op: 'remove', path: '/a/-1' }, { op: 'add', path: '/a/-1', value: 9 }, { op: 'replace', path: '/a/-3', value: 0 }], { a: [0, 2, 9] }],
  ['indices are read as integers, leading zeros included', { a: [1, 2] }, [{ op: 'remove', path: '/a/01' }], { a: [1] }],
  ['test of a missing member against null passes, as upstream', { a: {} }, [{ op: 'test', path: '/a/b', value: null }], { a: {} }],
  ['move to the same path is a no-op', { a: 1 }, [{ op: 'move', from: '/a', path: '/a' }], { a: 1 }],
  ['test of a whole object ignores key order', { a: { x: 1, y: [1, 2] } }, [{ op: 'test', path: '/a', value: { y: [1, 2], x: 1 } }],
    { a: { x: 1, y: [1, 2] } }],
];

test('applyJsonPatch: RFC 6902 appendix A examples and edge cases', () => {
  for (const [name, doc, patch, want] of rfcCases) {
    assert.deepEqual(applyJsonPatch(doc, patch), want, name);
  }
});

// Failures: [name, doc, patch, statusCode, reason, message fragment].
const failures: Array<[string, unknown, unknown, number, string, string]> = [
  ['A.9 testing a value: error', { baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }], 422, 'Invalid', 'test operation 0 at path "/baz"'],
  ['A.12 adding to a nonexistent target', { foo: 'bar' }, [{ op: 'add', path: '/baz/bat', value: 'qux' }], 422, 'Invalid', 'missing path "/baz/bat"'],
  ['A.15 comparing strings and numbers', { '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: '10' }], 422, 'Invalid', 'testing value "/~01" failed'],
  ['remove of a missing member', { a: 1 }, [{ op: 'remove', path: '/b' }], 422, 'Invalid', 'remove operation 0 at path "/b"'],
  ['replace of a missing member', { a: 1 }, [{ op: 'replace', path: '/b', value: 1 }], 422, 'Invalid', 'replace operation 0'],
  ['index past the end', { a: [1] }, [{ op: 'add', path: '/a/2', value: 1 }], 422, 'Invalid', 'out of bounds'],
  ['index that is not a number', { a: [1, 2] }, [{ op: 'remove', path: '/a/x' }], 422, 'Invalid', 'invalid array index "x"'],
  ['negative index before the start', { a: [1, 2] }, [{ op: 'remove', path: '/a/-3' }], 422, 'Invalid', 'out of bounds'],
  ['test of a missing member against a value', { a: {} }, [{ op: 'test', path: '/a/b', value: 1 }], 422, 'Invalid', 'testing value "/a/b" failed'],
  ['remove "-"', { a: [1] }, [{ op: 'remove', path: '/a/-' }], 422, 'Invalid', '"-"'],
  ['unknown op', {}, [{ op: 'frobnicate', path: '/a' }], 422, 'Invalid', 'unexpected op "frobnicate"'],
  ['missing value', {}, [{ op: 'add', path: '/a' }], 422, 'Invalid', 'missing the "value" member'],
  ['missing path', {}, [{ op: 'remove' }], 422, 'Invalid', 'missing the "path" member'],
  ['pointer without leading slash', { a: 1 }, [{ op: 'remove', path: 'a' }], 422, 'Invalid', 'invalid JSON pointer'],
  ['move into its own child', { a: { b: 1 } }, [{ op: 'move', from: '/a', path: '/a/b/c' }], 422, 'Invalid', 'into one of its children'],
  ['a patch that is not a list', {}, { op: 'add', path: '/a', value: 1 }, 400, 'BadRequest', 'must be an array'],
  ['an operation that is not an object', {}, ['add'], 400, 'BadRequest', 'operations must be objects'],
  ['too many operations', {}, Array.from({ length: 10001 }, () => ({ op: 'test', path: '', value: {} })), 413, 'RequestEntityTooLarge',
    'The allowed maximum operations in a JSON patch is 10000, got 10001'],
];

test('applyJsonPatch: failures carry the status kube-apiserver answers', () => {
  for (const [name, doc, patch, statusCode, reason, fragment] of failures) {
    assert.throws(() => applyJsonPatch(doc, patch), (err: unknown) => {
      assert.ok(err instanceof PatchError, name);
      assert.equal(err.statusCode, statusCode, name);
      assert.equal(err.reason, reason, name);
      assert.ok(err.message.includes(fragment), `${name}: ${err.message}`);
      return true;
    }, name);
  }
});

test('applyJsonPatch: an invalid 422 message starts like kube-apiserver\'s', () => {
  assert.throws(() => applyJsonPatch({ a: 1 }, [{ op: 'test', path: '/a', value: 2 }]),
    { message: 'the server rejected our request due to an error in our request: json patch test operation 0 at path "/a": testing value "/a" failed: test failed' });
});

test('applyJsonPatch: a failing operation leaves the input untouched (all or nothing)', () => {
  const doc = { a: [1, 2], b: { c: 1 } };
  const before = structuredClone(doc);
  assert.throws(() => applyJsonPatch(doc, [{ op: 'remove', path: '/a/0' }, { op: 'add', path: '/b/c', value: 2 }, { op: 'test', path: '/x', value: 1 }]));
  assert.deepEqual(doc, before);
});

test('parseJsonPointer unescapes ~1 before ~0', () => {
  assert.deepEqual(parseJsonPointer(''), []);
  assert.deepEqual(parseJsonPointer('/a~1b/m~0n/~01/'), ['a/b', 'm~n', '~1', '']);
});

const jsonValue = fc.jsonValue({ maxDepth: 3 });
const key = fc.string({ maxLength: 6 });

test('property: add then remove of a new member round-trips and never mutates the inputs', () => {
  fc.assert(fc.property(fc.dictionary(key, jsonValue, { maxKeys: 5, noNullPrototype: true }), key, jsonValue, (doc, name, value) => {
    fc.pre(!Object.hasOwn(doc, name));
    const pointer = `/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    const docBefore = structuredClone(doc);
    const patch = [{ op: 'add', path: pointer, value }];
    const patchBefore = structuredClone(patch);
    const added = applyJsonPatch(doc, patch);
    assert.deepEqual((added as Record<string, unknown>)[name], value);
    assert.deepEqual(applyJsonPatch(added, [{ op: 'remove', path: pointer }]), doc);
    assert.deepEqual(doc, docBefore);
    assert.deepEqual(patch, patchBefore);
  }));
});

test('property: add then remove of an array element round-trips', () => {
  fc.assert(fc.property(fc.array(jsonValue, { maxLength: 6 }), fc.nat(), jsonValue, (list, at, value) => {
    const index = at % (list.length + 1);
    const added = applyJsonPatch({ list }, [{ op: 'add', path: `/list/${index}`, value }]) as { list: unknown[] };
    assert.equal(added.list.length, list.length + 1);
    assert.deepEqual(added.list[index], value);
    assert.deepEqual(applyJsonPatch(added, [{ op: 'remove', path: `/list/${index}` }]), { list });
  }));
});
