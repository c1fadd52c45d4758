import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StoredObject } from '../../storage.ts';
import { compileSchema } from './cel/compilation.ts';
import { convertCustomResource, customResourceDecoder, customResourceSchema, decodeCustomResource, readView } from './custom-resource-schema.ts';
import type { JSONSchemaProps } from './schema/json-schema-props.ts';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string', default: 'red' }, opt: { type: 'string' } } },
  },
};
const cs = (since: number) => customResourceSchema(schema, compileSchema(schema), since);

function stored(rv: number, spec: Record<string, unknown>, apiVersion = 'example.com/v1'): StoredObject {
  const obj = { apiVersion, kind: 'Probe', metadata: { name: 'p', namespace: 'default', resourceVersion: String(rv), extra: 1 }, spec };
  return { obj, json: JSON.stringify(obj), rv, key: 'default/p' };
}

test('readView prunes unknown fields, drops non-nullable nulls and fills defaults, leaving the stored object alone', () => {
  const s = stored(1, { size: 1, gone: 'x', opt: null });
  assert.deepEqual(readView(cs(5), s.obj), { apiVersion: 'example.com/v1', kind: 'Probe', metadata: { name: 'p', namespace: 'default', resourceVersion: '1' }, spec: { size: 1, color: 'red' } });
  assert.deepEqual(s.obj.spec, { size: 1, gone: 'x', opt: null });
});

test('the decoder views only objects written before the schema, once per stored state, in the schema of their version', () => {
  const decode = customResourceDecoder(new Map([['v1', cs(5)]]), cs(5));
  const before = stored(4, { size: 1 });
  const after = stored(5, { size: 2 });
  const cases: Array<[string, StoredObject, unknown]> = [
    ['written before the schema: defaulted', before, { size: 1, color: 'red' }],
    ['written under the schema: as stored', after, { size: 2 }],
    ['stored in a version no longer served: the fallback schema', stored(3, { size: 3 }, 'example.com/v0'), { size: 3, color: 'red' }],
  ];
  for (const [name, s, spec] of cases) assert.deepEqual(decode(s).obj.spec, spec, name);
  assert.equal(decode(after), after);
  const view = decode(before);
  assert.equal(decode(before), view);
  assert.equal(view.rv, 4);
  assert.equal(view.json, JSON.stringify(view.obj));
});

test('convertCustomResource: another version gets its apiVersion and its schema prunes; storage writes also take its defaults', () => {
  const obj = { apiVersion: 'example.com/v2', kind: 'Probe', metadata: { name: 'p' }, spec: { size: 1, shade: 'dark' } };
  assert.deepEqual(convertCustomResource(obj, 'example.com/v1', cs(0)), { apiVersion: 'example.com/v1', kind: 'Probe', metadata: { name: 'p' }, spec: { size: 1 } });
  assert.deepEqual(convertCustomResource(obj, 'example.com/v1', cs(0), true), { apiVersion: 'example.com/v1', kind: 'Probe', metadata: { name: 'p' }, spec: { size: 1, color: 'red' } });
  assert.equal(convertCustomResource(obj, 'example.com/v2', cs(0)), obj);
  assert.deepEqual(obj.spec, { size: 1, shade: 'dark' });
});

test('decodeCustomResource drops non-nullable nulls, defaults, then prunes, returning the pruned paths', () => {
  const obj: Record<string, unknown> = { apiVersion: 'example.com/v1', kind: 'Probe', metadata: { name: 'p' }, spec: { size: 1, color: null, junk: true } };
  assert.deepEqual(decodeCustomResource(cs(0), obj), ['spec.junk']);
  assert.deepEqual(obj.spec, { size: 1, color: 'red' });
});
