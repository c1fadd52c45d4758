import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorString } from '../field-errors.ts';
import type { JSONSchemaProps } from './schema/json-schema-props.ts';
import { validateVersionSchema } from './schema-props-validation.ts';

const immutable = [{ rule: 'self == oldSelf', message: 'immutable' }];
const root = (spec: JSONSchemaProps): JSONSchemaProps => ({ type: 'object', properties: { spec: { type: 'object', properties: { l: spec } } } });
const at = 'v.properties[spec].properties[l]';
const refused = (where: string): string => `${where}.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ${at}`;

test('transition rules are refused where the old value cannot be correlated: under items of lists that are not list-type=map', () => {
  const cases: Array<[string, JSONSchemaProps, string[]]> = [
    ['items of an atomic list, children before their parent', { type: 'array', maxItems: 4, items: { type: 'object', properties: { a: { type: 'string', maxLength: 8, 'x-kubernetes-validations': immutable } }, 'x-kubernetes-validations': immutable } }, [refused(`${at}.items.properties[a]`), refused(`${at}.items`)]],
    ['items of a set', { type: 'array', maxItems: 4, 'x-kubernetes-list-type': 'set', items: { type: 'string', maxLength: 8, 'x-kubernetes-validations': immutable } }, [refused(`${at}.items`)]],
    ['nested lists name the outermost one', { type: 'array', maxItems: 4, items: { type: 'object', properties: { m: { type: 'array', maxItems: 4, items: { type: 'string', maxLength: 8, 'x-kubernetes-validations': immutable } } } } }, [refused(`${at}.items.properties[m].items`)]],
    ['items of a map list are correlated by key', { type: 'array', maxItems: 4, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: { type: 'object', required: ['k'], properties: { k: { type: 'string', maxLength: 8 } }, 'x-kubernetes-validations': immutable } }, []],
    ['the list itself', { type: 'array', maxItems: 4, items: { type: 'string', maxLength: 8 }, 'x-kubernetes-validations': immutable }, []],
    ['properties of an atomic map', { type: 'object', 'x-kubernetes-map-type': 'atomic', properties: { a: { type: 'string', 'x-kubernetes-validations': immutable } } }, []],
    ['map values', { type: 'object', maxProperties: 4, additionalProperties: { type: 'string', maxLength: 8, 'x-kubernetes-validations': immutable } }, []],
    ['rules without oldSelf', { type: 'array', maxItems: 4, items: { type: 'string', maxLength: 8, 'x-kubernetes-validations': [{ rule: 'self != ""' }] } }, []],
  ];
  for (const [name, l, expected] of cases) assert.deepEqual(validateVersionSchema(root(l), 'v').errors.map(errorString), expected, name);
});
