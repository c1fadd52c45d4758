import { test } from 'node:test';
import assert from 'node:assert/strict';
import { duplicateFields, fieldProblems, fieldValidationOf, strictDecodingError, warningHeaders } from './field-validation.ts';

test('duplicate fields are found at any depth, in order of their second occurrence', () => {
  assert.deepEqual(duplicateFields('{"a":1,"spec":{"size":2,"size":3,"l":[{"x":1,"x":2}]},"a":{"b":"}\\""}}'), ['spec.size', 'spec.l[0].x', 'a']);
  assert.deepEqual(duplicateFields('{"a":1}'), []);
  assert.deepEqual(duplicateFields('{"a":1,"a":'), ['a']);
});

test('fieldValidation defaults to Warn and refuses unknown directives', () => {
  assert.equal(fieldValidationOf(new URLSearchParams('')), 'Warn');
  assert.equal(fieldValidationOf(new URLSearchParams('fieldValidation=Strict')), 'Strict');
  assert.throws(() => fieldValidationOf(new URLSearchParams('fieldValidation=strict')), /fieldValidation must be one of/);
});

test('strict errors and warnings are worded as kube-apiserver words them', () => {
  const problems = fieldProblems(['metadata.foo', 'bogus'], ['data']);
  assert.equal(strictDecodingError('ConfigMap', 'v1', problems).status.message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "metadata.foo", unknown field "bogus", duplicate field "data"');
  assert.deepEqual(warningHeaders(fieldProblems(['spec.x'], [])), ['299 - "unknown field \\"spec.x\\""']);
});
