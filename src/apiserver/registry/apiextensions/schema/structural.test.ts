import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorString } from '../../field-errors.ts';
import { validateStructural } from './structural.ts';
import type { JSONSchemaProps } from './json-schema-props.ts';

const root = 'spec.validation.openAPIV3Schema';
const cases: { name: string; schema: JSONSchemaProps; want: string[] }[] = [
  { name: 'a typed object tree is structural', schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } }, want: [] },
  { name: 'the root needs a type', schema: { properties: { spec: { type: 'object' } } }, want: [`${root}.type: Required value: must not be empty at the root`] },
  { name: 'the root must be an object', schema: { type: 'string' }, want: [`${root}.type: Invalid value: "string": must be object at the root`] },
  {
    name: 'untyped fields are reported deepest first after sorting',
    schema: { type: 'object', properties: { spec: { properties: { x: {} } } } },
    want: [
      `${root}.properties[spec].properties[x].type: Required value: must not be empty for specified object fields`,
      `${root}.properties[spec].type: Required value: must not be empty for specified object fields`,
    ],
  },
  { name: 'arrays need items', schema: { type: 'object', properties: { l: { type: 'array' } } }, want: [`${root}.properties[l].items: Required value: must be specified`] },
  { name: 'int-or-string and preserve-unknown-fields need no type', schema: { type: 'object', properties: { a: { 'x-kubernetes-int-or-string': true }, b: { 'x-kubernetes-preserve-unknown-fields': true } } }, want: [] },
  {
    name: 'junctors may not carry types',
    schema: { type: 'object', properties: { spec: { type: 'object', properties: { x: { type: 'integer' } }, anyOf: [{ type: 'string' }, { properties: { x: { type: 'integer' } } }] } } },
    want: [`${root}.properties[spec].anyOf[0].type: Forbidden: must be empty to be structural`, `${root}.properties[spec].anyOf[1].properties[x].type: Forbidden: must be empty to be structural`],
  },
  {
    name: "the root's junctors may only mention declared fields",
    schema: { type: 'object', properties: { spec: { type: 'object' } }, oneOf: [{ required: ['y'], properties: { y: {} } }] },
    want: [`${root}.properties[y]: Required value: because it is defined in ${root}.oneOf[0].properties[y]`],
  },
  {
    name: 'junctors below the root are not checked for completeness (complete.go starts at the root)',
    schema: { type: 'object', properties: { spec: { type: 'object', oneOf: [{ required: ['y'], properties: { y: {} } }] } } },
    want: [],
  },
  { name: 'the int-or-string anyOf pattern is allowed', schema: { type: 'object', properties: { p: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } } }, want: [] },
  { name: 'metadata may only narrow name and generateName', schema: { type: 'object', properties: { metadata: { type: 'object', properties: { labels: { type: 'object' } } } } }, want: [`${root}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`] },
  { name: 'metadata name constraints are allowed', schema: { type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 3 } } } } }, want: [] },
  {
    name: 'embedded resources are objects with properties',
    schema: { type: 'object', properties: { e: { type: 'object', 'x-kubernetes-embedded-resource': true } } },
    want: [`${root}.properties[e].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`],
  },
  { name: 'additionalProperties is not allowed at the root', schema: { type: 'object', additionalProperties: { type: 'string' } }, want: [`${root}.additionalProperties: Forbidden: must not be used at the root`] },
];

for (const c of cases) {
  test(`structural schema: ${c.name}`, () => {
    assert.deepEqual(validateStructural(c.schema, root).map(errorString), c.want);
  });
}
