import { test } from 'node:test';
import assert from 'node:assert/strict';
import { prune } from './pruning.ts';
import { applyDefaults, pruneNonNullableNulls } from './defaulting.ts';
import { validateListSetsAndMaps } from './list-type.ts';
import { validateEmbeddedResources } from './embedded-resource.ts';
import { errorString } from '../../field-errors.ts';
import type { JSONSchemaProps } from './json-schema-props.ts';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        size: { type: 'integer' },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'object', properties: { a: { type: 'string' } } } } },
        list: { type: 'array', items: { type: 'object', properties: { n: { type: 'string' } } } },
        emb: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
        map: { type: 'object', additionalProperties: { type: 'object', properties: { v: { type: 'string' } } } },
      },
    },
  },
};

test('pruning drops undeclared fields and reports their paths sorted, keeping type and object meta at the root', () => {
  const obj = {
    apiVersion: 'x/v1', kind: 'K', metadata: { name: 'n', bogus: 1 }, top: 1,
    spec: { size: 1, extra: { deep: 1 }, free: { anything: 1, known: { a: 'x', b: 2 } }, list: [{ n: 'a', m: 1 }], emb: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', bad: 1 }, spec: { x: 1 } }, map: { k: { v: 'x', w: 1 } } },
  };
  assert.deepEqual(prune(obj, schema, true), ['spec.extra', 'spec.free.known.b', 'spec.list[0].m', 'spec.map.k.w', 'top']);
  assert.deepEqual(obj, {
    apiVersion: 'x/v1', kind: 'K', metadata: { name: 'n' },
    spec: { size: 1, free: { anything: 1, known: { a: 'x' } }, list: [{ n: 'a' }], emb: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { x: 1 } }, map: { k: { v: 'x' } } },
  });
});

const defaults: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      default: {},
      properties: {
        def: { type: 'string', default: 'dflt' },
        obj: { type: 'object', default: {}, properties: { inner: { type: 'integer', default: 7 } } },
        ports: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer', default: 80 } } } },
        nul: { type: 'string', nullable: true, default: 'n' },
        dropped: { type: 'string' },
        replaced: { type: 'string', default: 'r' },
      },
    },
  },
};

test('defaulting fills missing and non-nullable null properties, then descends into the defaults', () => {
  const obj: Record<string, unknown> = { spec: { ports: [{ name: 'http' }, { name: 'x', port: 81 }], nul: null, dropped: null, replaced: null } };
  pruneNonNullableNulls(obj, defaults);
  applyDefaults(obj, defaults);
  assert.deepEqual(obj, { spec: { def: 'dflt', obj: { inner: 7 }, ports: [{ name: 'http', port: 80 }, { name: 'x', port: 81 }], nul: null, replaced: 'r' } });
  const empty: Record<string, unknown> = {};
  applyDefaults(empty, defaults);
  assert.deepEqual(empty, { spec: { def: 'dflt', obj: { inner: 7 }, nul: 'n', replaced: 'r' } });
});

test('list-type set and map report later duplicates, map lists by their keys', () => {
  const s: JSONSchemaProps = {
    type: 'object',
    properties: {
      set: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
      ports: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name', 'proto'], items: { type: 'object', properties: { name: { type: 'string' }, proto: { type: 'string' } } } },
    },
  };
  const errs = validateListSetsAndMaps(s, { set: ['a', 'b', 'a', 'a'], ports: [{ name: 'x', proto: 'TCP' }, { name: 'x', proto: 'UDP' }, { name: 'x', proto: 'TCP', extra: 1 }] }, 'spec');
  assert.deepEqual(errs.map(errorString), [
    'spec.set[2]: Duplicate value: "a"',
    'spec.set[3]: Duplicate value: "a"',
    'spec.ports[2]: Duplicate value: map[string]interface {}{"name":"x", "proto":"TCP"}',
  ]);
});

test('embedded resources need apiVersion and kind', () => {
  const errs = validateEmbeddedResources(schema, { spec: { emb: { metadata: {} } } });
  assert.deepEqual(errs.map(errorString), ['spec.emb.apiVersion: Required value: must not be empty', 'spec.emb.kind: Required value: must not be empty']);
});
