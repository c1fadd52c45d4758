import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorString, toCauses } from '../../field-errors.ts';
import { validateValue } from './validation.ts';
import type { JSONSchemaProps } from './json-schema-props.ts';

const spec: JSONSchemaProps = {
  type: 'object',
  required: ['size'],
  properties: {
    size: { type: 'integer', minimum: 1, maximum: 10 },
    name: { type: 'string', maxLength: 5, minLength: 2, pattern: '^[a-z]+$' },
    color: { type: 'string', enum: ['red', 'green'] },
    ratio: { type: 'number', multipleOf: 0.5, exclusiveMaximum: true, maximum: 5 },
    tags: { type: 'array', maxItems: 2, minItems: 1, items: { type: 'string' } },
    labels: { type: 'object', maxProperties: 1, additionalProperties: { type: 'string' } },
    ios: { 'x-kubernetes-int-or-string': true },
    nul: { type: 'string', nullable: true },
    when: { type: 'string', format: 'date-time' },
    items: { type: 'array', items: { type: 'object', required: ['n'], properties: { n: { type: 'integer', maximum: 3 } } } },
  },
};
const schema: JSONSchemaProps = { type: 'object', properties: { spec } };

const cases: { name: string; spec: unknown; want: string[] }[] = [
  { name: 'a valid object has no errors', spec: { size: 3, name: 'abc', color: 'red', ratio: 4.5, tags: ['a'], labels: { a: 'b' }, ios: 'x', nul: null, when: '2024-01-02T03:04:05Z' }, want: [] },
  { name: 'a wrong type names the actual JSON type', spec: { size: 'nonsense' }, want: ['spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"'] },
  { name: 'a missing required field', spec: {}, want: ['spec.size: Required value'] },
  { name: 'enum lists the supported values', spec: { size: 1, color: 'blue' }, want: ['spec.color: Unsupported value: "blue": supported values: "red", "green"'] },
  {
    name: 'number bounds are all reported',
    spec: { size: 0, ratio: 5.25 },
    want: ['spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1', 'spec.ratio: Invalid value: 5.25: spec.ratio in body should be a multiple of 0.5', 'spec.ratio: Invalid value: 5.25: spec.ratio in body should be less than 5'],
  },
  { name: 'strings stop at their first failure', spec: { size: 1, name: 'ABCDEFG' }, want: ['spec.name: Too long: may not be more than 5 bytes'] },
  { name: 'minLength', spec: { size: 1, name: 'a' }, want: ['spec.name: Invalid value: "a": spec.name in body should be at least 2 chars long'] },
  { name: 'pattern is RE2', spec: { size: 1, name: 'AB' }, want: [`spec.name: Invalid value: "AB": spec.name in body should match '^[a-z]+$'`] },
  { name: 'item and property bounds', spec: { size: 1, tags: [], labels: { a: 'b', c: 'd' } }, want: ['spec.tags: Invalid value: 0: spec.tags in body should have at least 1 items', 'spec.labels: Too many: 2: must have at most 1 items'] },
  { name: 'additionalProperties values are typed', spec: { size: 1, labels: { a: 1 } }, want: ['spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"'] },
  { name: 'int-or-string refuses other types', spec: { size: 1, ios: 1.5 }, want: ['spec.ios: Invalid value: "number": spec.ios in body must be of type integer,string: "number"'] },
  { name: 'formats report the value', spec: { size: 1, when: 'yesterday' }, want: ['spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"'] },
  { name: 'array items carry their index', spec: { size: 1, items: [{ n: 1 }, { n: 5 }, {}] }, want: ['spec.items[1].n: Invalid value: 5: spec.items[1].n in body should be less than or equal to 3', 'spec.items[2].n: Required value'] },
  { name: 'null on a non-nullable field is a type error', spec: { size: null }, want: ['spec.size: Invalid value: "null": spec.size in body must be of type integer: "null"'] },
];

for (const c of cases) {
  test(`schema validation: ${c.name}`, () => {
    assert.deepEqual(validateValue(schema, { spec: c.spec }).map(errorString), c.want);
  });
}

test('schema validation: causes carry upstream reasons', () => {
  const causes = toCauses(validateValue(schema, { spec: { size: 'x', color: 'blue', tags: ['a', 'b', 'c'], name: 'abcdefgh' } }));
  assert.deepEqual(causes.map((c) => c.reason).sort(), ['FieldValueNotSupported', 'FieldValueTooLong', 'FieldValueTooMany', 'FieldValueTypeInvalid']);
});

test('schema validation: anyOf, oneOf and not report the composite failure on <nil>, as kube-openapi', () => {
  const s: JSONSchemaProps = { type: 'object', properties: { any: { type: 'integer', anyOf: [{ minimum: 10 }, { maximum: 2 }] }, one: { type: 'integer', oneOf: [{ minimum: 1 }, { minimum: 2 }] }, nt: { type: 'string', not: { enum: ['bad'] } } } };
  assert.deepEqual(validateValue(s, { any: 5, one: 3, nt: 'bad' }, 'spec').map(errorString), [
    '<nil>: Invalid value: "": "spec.any" must validate at least one schema (anyOf)',
    'spec.any: Invalid value: 5: spec.any in body should be greater than or equal to 10',
    '<nil>: Invalid value: "": "spec.one" must validate one and only one schema (oneOf). Found 2 valid alternatives',
    '<nil>: Invalid value: "": "spec.nt" must not validate the schema (not)',
  ]);
});
