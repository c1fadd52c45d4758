import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  bodyFieldProblems, fieldValidationOf, jsonFieldProblems, strictDecodingError, strictPatchError, typedPatchError, unknownFieldProblems, valueFieldProblems, warningHeaders, yamlDuplicateProblems, type KnownFields,
} from './field-validation.ts';

// A ConfigMap-like kind: known top-level fields, metadata with name and labels (a map), and data (a map).
const map: KnownFields = { field: () => 'any', items: () => 'any' };
const obj = (fields: Record<string, KnownFields | 'any'>): KnownFields => ({ field: (k) => fields[k], items: () => 'any' });
const list = (items: KnownFields): KnownFields => ({ field: () => 'any', items: () => items });
const configMap = obj({ apiVersion: 'any', kind: 'any', metadata: obj({ name: 'any', labels: map }), data: map, list: list(obj({ name: 'any' })) });

test('JSON bodies: duplicates at any depth in order of their second occurrence, without a schema', () => {
  assert.deepEqual(jsonFieldProblems('{"a":1,"spec":{"size":2,"size":3,"l":[{"x":1,"x":2}]},"a":{"b":"}\\""}}'), [{ duplicate: 'spec.size' }, { duplicate: 'spec.l[0].x' }, { duplicate: 'a' }]);
  assert.deepEqual(jsonFieldProblems('{"a":1}'), []);
  assert.deepEqual(jsonFieldProblems('{"a":1,"a":'), [{ duplicate: 'a' }]);
});

test('JSON bodies of built-in kinds: unknown and duplicate fields interleaved as the strict decoder meets them', () => {
  // kube-apiserver v1.24 (gated): unknown "metadata.zz", unknown "foo", duplicate "data", unknown "bar".
  const text = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c1","zz":1},"data":{"a":"b"},"foo":1,"data":{},"bar":{"x":1,"x":2},"list":[{"name":"a","nope":1}]}';
  assert.deepEqual(jsonFieldProblems(text, configMap), [{ unknown: 'metadata.zz' }, { unknown: 'foo' }, { duplicate: 'data' }, { unknown: 'bar' }, { unknown: 'list[0].nope' }]);
});

test('YAML bodies: duplicate keys as one go-yaml error with a line each, then unknown fields in sorted order', () => {
  const text = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y1\n  labels:\n    x: "1"\n    x: "2"\ndata:\n  a: b\nkind: ConfigMap\nzoo: 1\nfoo: 1\n';
  assert.deepEqual(yamlDuplicateProblems(text), [{ yamlLines: ['line 7: key "x" already set in map', 'line 10: key "kind" already set in map'] }]);
  assert.deepEqual(bodyFieldProblems(text, true, configMap), [{ yamlLines: ['line 7: key "x" already set in map', 'line 10: key "kind" already set in map'] }, { unknown: 'foo' }, { unknown: 'zoo' }]);
  assert.deepEqual(valueFieldProblems({ metadata: { zz: 1, name: 'x' } }, configMap), [{ unknown: 'metadata.zz' }]);
  assert.deepEqual(yamlDuplicateProblems('{"a": 1, "a": 2}'), [{ yamlLines: ['line 1: key "a" already set in map'] }]);
});

test('fieldValidation defaults to Warn and refuses unknown directives', () => {
  assert.equal(fieldValidationOf(new URLSearchParams('')), 'Warn');
  assert.equal(fieldValidationOf(new URLSearchParams('fieldValidation=Strict')), 'Strict');
  assert.throws(() => fieldValidationOf(new URLSearchParams('fieldValidation=strict')), /fieldValidation must be one of/);
});

test('strict errors and warnings are worded as kube-apiserver words them', () => {
  const problems = [{ duplicate: 'spec.size' }, ...unknownFieldProblems(['aaa', 'spec.zzz'])];
  assert.equal(strictDecodingError('Probe', 'v1', problems).status.message, 'Probe in version "v1" cannot be handled as a Probe: strict decoding error: duplicate field "spec.size", unknown field "aaa", unknown field "spec.zzz"');
  const yaml = [{ yamlLines: ['line 7: key "a" already set in map'] }, { unknown: 'foo' }];
  assert.equal(strictDecodingError('ConfigMap', 'v1', yaml).status.message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: yaml: unmarshal errors:\n  line 7: key "a" already set in map, unknown field "foo"');
  assert.deepEqual(warningHeaders(yaml), ['299 - "line 7: key \\"a\\" already set in map"', '299 - "unknown field \\"foo\\""']);
  const patch = strictPatchError('{"data":{"a":"c"},"foo":1}', [{ duplicate: 'data.a' }, { unknown: 'foo' }]).status;
  assert.deepEqual([patch.code, patch.reason, patch.message], [422, 'Invalid', ' "" is invalid: patch: Invalid value: "{\\"data\\":{\\"a\\":\\"c\\"},\\"foo\\":1}": strict decoding error: duplicate field "data.a", unknown field "foo"']);
  const typed = typedPatchError('', 'p', 'example.com/v1, Kind=Probe', ['spec.zz']).status;
  assert.deepEqual([typed.code, typed.reason, typed.message], [500, undefined, 'failed to create typed patch object (/p; example.com/v1, Kind=Probe): .spec.zz: field not declared in schema']);
});
