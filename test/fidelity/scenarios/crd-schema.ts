/**
 * Structural schemas of custom resources: every rule of a version's OpenAPI v3 schema broken on create
 * and on update (types, formats, enum, pattern, bounds, lengths, item and property counts, required,
 * nullable, additionalProperties, int-or-string, embedded resources, set and map list uniqueness), with
 * the 422 causes as kube-apiserver words them; `default` applied on create, update and read (objects
 * stored before a default existed); pruning of unknown fields and what x-kubernetes-preserve-unknown-fields
 * keeps; each served version with its own schema; non-structural schemas refused.
 *
 * Upstream: staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/ (structural, defaulting,
 * pruning, listtype), pkg/apiserver/validation/validation.go, pkg/apis/apiextensions/validation/validation.go.
 */
import type { Scenario, Step } from '../scenario.ts';

type Obj = Record<string, unknown>;

const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const crdName = 'gauges.{{r}}.fidelity.kubeloom.test';
const group = '{{r}}.fidelity.kubeloom.test';
const gauges = `/apis/${group}/v1/namespaces/{{ns}}/gauges`;
const gaugesV2 = `/apis/${group}/v2/namespaces/{{ns}}/gauges`;

/** The v1 schema: one property per rule. */
function specV1(): Obj {
  return {
    type: 'object',
    required: ['name'],
    properties: {
      name: { type: 'string', minLength: 2, maxLength: 8, pattern: '^[a-z]+$' },
      mode: { type: 'string', enum: ['fast', 'slow'], default: 'slow' },
      count: { type: 'integer', minimum: 1, maximum: 10, default: 3 },
      ratio: { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 1, multipleOf: 0.25 },
      email: { type: 'string', format: 'email' },
      since: { type: 'string', format: 'date-time' },
      nick: { type: 'string', nullable: true },
      flag: { type: 'boolean' },
      tags: { type: 'array', minItems: 1, maxItems: 3, items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
      ports: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        items: {
          type: 'object',
          required: ['name', 'port'],
          properties: { name: { type: 'string' }, port: { type: 'integer', format: 'int32' }, protocol: { type: 'string', default: 'TCP' } },
        },
      },
      labels: { type: 'object', maxProperties: 2, additionalProperties: { type: 'string' } },
      size: { 'x-kubernetes-int-or-string': true },
      template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
      extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      nested: { type: 'object', properties: { inner: { type: 'object', properties: { level: { type: 'string', default: 'deep' } } } } },
    },
  };
}

/** The v2 schema: a field of its own with a default, name without pattern, another count default. */
function specV2(): Obj {
  return {
    type: 'object',
    required: ['name'],
    properties: {
      name: { type: 'string', maxLength: 12 },
      count: { type: 'integer', default: 7 },
      shade: { type: 'string', default: 'dark' },
    },
  };
}

function gaugeCrd(): Obj {
  const version = (name: string, spec: Obj, storage: boolean): Obj => ({
    name,
    served: true,
    storage,
    schema: { openAPIV3Schema: { type: 'object', properties: { spec, status: { type: 'object', properties: { phase: { type: 'string' } } } } } },
  });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: crdName },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'gauges', singular: 'gauge', kind: 'Gauge', listKind: 'GaugeList' },
      versions: [version('v1', specV1(), true), version('v2', specV2(), false)],
    },
  };
}

function gauge(name: string, spec: Obj, extra: Obj = {}, version = 'v1'): Obj {
  return { apiVersion: `${group}/${version}`, kind: 'Gauge', metadata: { name }, spec, ...extra };
}

const install: Step[] = [
  { req: `POST ${crds}`, body: gaugeCrd(), keep: 'status' },
  { req: `GET ${gauges}`, until: 200, keep: 'status' },
  { req: `GET ${gaugesV2}`, until: 200, keep: 'status' },
];

const cleanup: Step[] = [{ req: `DELETE ${crds}/${crdName}` }];

/** The plural of the i-th refused CRD (each its own name, in case one is accepted). */
const plural = (i: number): string => `gauges${'abcdefghijklmnop'[i]}`;

/** A create that breaks one rule: the 422 in full. */
const breaks = (name: string, spec: Obj): Step => ({ req: `POST ${gauges}`, body: gauge(name, { name: 'ok', ...spec }) });

export const crdSchema: Scenario[] = [
  {
    id: 'crd-schema/value-rules',
    title: 'Custom resource create breaking one schema rule at a time (one failing property per request: v1.24 lists the failures of several properties in map order): type, required, enum, pattern, lengths, bounds, multipleOf, formats',
    steps: [
      ...install,
      { req: `POST ${gauges}`, body: gauge('g0', {}) },
      breaks('g1', { name: 5 }),
      breaks('g2', { mode: 'medium' }),
      breaks('g3', { name: 'AB' }),
      breaks('g4', { name: 'a' }),
      breaks('g5', { name: 'abcdefghij' }),
      breaks('g6', { count: 0 }),
      breaks('g7', { count: 11 }),
      breaks('g8', { count: 2.5 }),
      breaks('g9', { ratio: -0.5 }),
      breaks('g10', { ratio: 0.3 }),
      breaks('g11', { ratio: 1.5 }),
      breaks('g12', { email: 'not-an-email' }),
      breaks('g13', { since: 'yesterday' }),
      breaks('g14', { flag: 'yes' }),
      breaks('g15', { nick: 7 }),
      { req: `POST ${gauges}`, body: gauge('g17', 'not an object' as unknown as Obj) },
      { req: `POST ${gauges}`, body: { ...gauge('g18', { name: 'ok' }), status: { phase: 3 } } },
      { req: `POST ${gauges}`, body: gauge('g19', { name: 'ok', email: 'a@b.example', since: '2024-01-02T03:04:05Z', ratio: 0.75, flag: true }), pick: ['spec'] },
    ],
    cleanup,
  },
  {
    id: 'crd-schema/collection-rules',
    title: 'Custom resource lists and maps: item bounds, set and map uniqueness, required item fields, maxProperties, additionalProperties, int-or-string, embedded resources',
    steps: [
      ...install,
      breaks('c1', { tags: [] }),
      breaks('c2', { tags: ['a', 'b', 'c', 'd'] }),
      breaks('c3', { tags: ['a', 'b', 'a'] }),
      breaks('c4', { tags: [1] }),
      breaks('c5', { ports: [{ name: 'http', port: 80 }, { name: 'http', port: 81 }] }),
      breaks('c6', { ports: [{ port: 80 }] }),
      breaks('c7', { ports: [{ name: 'big', port: 'eighty' }] }),
      breaks('c8', { labels: { a: 'x', b: 'y', c: 'z' } }),
      breaks('c9', { labels: { a: 1 } }),
      breaks('c10', { size: true }),
      breaks('c11', { size: 1.5 }),
      breaks('c12', { template: {} }),
      breaks('c13', { template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Bad_Name' } } }),
      breaks('c14', { template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ok', labels: { 'bad key!': 'v' } } } }),
      { req: `POST ${gauges}`, body: gauge('c15', { name: 'ok', size: '50%', tags: ['a', 'b'], ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443, protocol: 'UDP' }], labels: { a: 'x' } }), pick: ['spec'] },
      { req: `POST ${gauges}`, body: gauge('c16', { name: 'ok', size: 5, template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', labels: { a: 'b' } }, data: { k: 'v' } } }), pick: ['spec'] },
    ],
    cleanup,
  },
  {
    id: 'crd-schema/update-rules',
    title: 'Custom resource updates breaking the schema (PUT, merge and JSON patch), and updates that pass',
    steps: [
      ...install,
      { req: `POST ${gauges}`, body: gauge('u1', { name: 'ok', tags: ['a'] }), save: { rv: 'metadata.resourceVersion' }, keep: 'status' },
      { req: `PUT ${gauges}/u1`, body: { ...gauge('u1', { name: 'NO', count: 50 }), metadata: { name: 'u1', resourceVersion: '{{rv}}' } } },
      { req: `PATCH ${gauges}/u1`, type: 'merge', body: { spec: { mode: 'turbo' } } },
      { req: `PATCH ${gauges}/u1`, type: 'merge', body: { spec: { name: null } } },
      { req: `PATCH ${gauges}/u1`, type: 'jsonpatch', body: [{ op: 'add', path: '/spec/tags/-', value: 'a' }] },
      { req: `PATCH ${gauges}/u1`, type: 'jsonpatch', body: [{ op: 'replace', path: '/spec/count', value: '3' }] },
      { req: `PATCH ${gauges}/u1`, type: 'merge', body: { spec: { count: 9, tags: ['a', 'b'] } }, pick: ['metadata.generation', 'spec'] },
      { req: `GET ${gauges}/u1`, pick: ['metadata.generation', 'spec'] },
    ],
    cleanup,
  },
  {
    id: 'crd-schema/defaulting',
    title: 'Custom resource defaults: on create (nested, in list items, for nulls), on update, and on read of objects stored before the default existed',
    steps: [
      ...install,
      { req: `POST ${gauges}`, body: gauge('d1', { name: 'ok', ports: [{ name: 'http', port: 80 }], nested: { inner: {} } }), pick: ['spec'] },
      { req: `POST ${gauges}`, body: gauge('d2', { name: 'ok', count: null, mode: null, nick: null, nested: {} }), pick: ['spec'] },
      { req: `PATCH ${gauges}/d1`, type: 'merge', body: { spec: { mode: null, count: null, ports: [{ name: 'web', port: 8080 }] } }, pick: ['spec'] },
      { req: `PATCH ${gauges}/d1`, type: 'jsonpatch', body: [{ op: 'remove', path: '/spec/nested/inner/level' }], pick: ['spec.nested'] },
      {
        req: `PATCH ${crds}/${crdName}`,
        type: 'jsonpatch',
        body: [
          { op: 'add', path: '/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/level', value: { type: 'string', default: 'low' } },
          { op: 'add', path: '/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/mode/default', value: 'fast' },
        ],
        keep: 'status',
      },
      { sleepMs: 3000 },
      { req: `GET ${gauges}/d2`, pick: ['spec'] },
      { req: `GET ${gauges}`, pick: ['items.*.spec'] },
      { req: `POST ${gauges}`, body: gauge('d3', { name: 'ok' }), pick: ['spec'] },
    ],
    cleanup,
  },
  {
    id: 'crd-schema/pruning',
    title: 'Custom resource pruning: unknown fields dropped at every level on create and update, kept under x-kubernetes-preserve-unknown-fields and in embedded resources',
    steps: [
      ...install,
      {
        req: `POST ${gauges}`,
        body: {
          ...gauge('p1', {
            name: 'ok',
            unknown: 1,
            nested: { inner: { level: 'x', junk: true }, junk: [1] },
            ports: [{ name: 'http', port: 80, junk: 'y' }],
            extra: { anything: { goes: [1, 2] } },
            template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', junk: 'z' }, data: { k: 'v' }, whatever: 1 },
          }),
          status: { phase: 'A', junk: 1 },
          topLevelJunk: { a: 1 },
        },
      },
      { req: `GET ${gauges}/p1`, pick: ['spec', 'status', 'topLevelJunk'] },
      { req: `PATCH ${gauges}/p1`, type: 'merge', body: { spec: { more: 'junk', extra: { added: true } }, other: 1 }, pick: ['spec', 'other'] },
      { req: `PUT ${gauges}/p1`, body: gauge('p1', { name: 'ok', again: 'junk' }, { metadata: { name: 'p1', junkMeta: 'x', labels: { a: 'b' } } }), pick: ['metadata.labels', 'metadata.junkMeta', 'spec'] },
    ],
    cleanup,
  },
  {
    id: 'crd-schema/served-versions',
    title: 'Custom resource versions with their own schemas: validation, defaulting and pruning per version, reads across versions',
    steps: [
      ...install,
      { req: `POST ${gaugesV2}`, body: gauge('v2a', { name: 'UPPERCASE', shade: 'light', mode: 'turbo' }, {}, 'v2') },
      { req: `POST ${gaugesV2}`, body: gauge('v2b', { name: 'toolongforvtwo' }, {}, 'v2') },
      { req: `POST ${gaugesV2}`, body: gauge('v2c', { name: 'Mixed' }, {}, 'v2') },
      { req: `GET ${gauges}/v2c` },
      { req: `GET ${gaugesV2}/v2a`, pick: ['apiVersion', 'spec'] },
      { req: `POST ${gauges}`, body: gauge('v1a', { name: 'ok', shade: 'light' }), pick: ['apiVersion', 'spec'] },
      { req: `GET ${gaugesV2}/v1a`, pick: ['apiVersion', 'spec'] },
      { req: `PATCH ${gauges}/v2c`, type: 'merge', body: { spec: { count: 4 } } },
      { req: `POST ${gauges}`, body: gauge('wrongv', { name: 'ok' }, {}, 'v2') },
    ],
    cleanup,
  },
  {
    id: 'crd-schema/non-structural',
    title: 'CRDs refused: non-structural schemas (missing types, properties with additionalProperties, bad list types, invalid defaults, metadata constraints)',
    namespace: false,
    steps: [
      ...(
        [
          { type: 'object', properties: { spec: { properties: { a: { type: 'string' } } } } },
          { type: 'object', properties: { spec: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } } } },
          { type: 'object', properties: { spec: { type: 'object', properties: { a: { type: 'array', items: { type: 'object' }, 'x-kubernetes-list-type': 'map' } } } } },
          { type: 'object', properties: { spec: { type: 'object', properties: { a: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'bag' } } } } },
          { type: 'object', properties: { spec: { type: 'object', properties: { a: { type: 'string', enum: ['x', 'y'], default: 'z' } } } } },
          { type: 'object', properties: { spec: { type: 'object', properties: { a: { type: 'integer', default: 'one' } } } } },
          { type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 5 } } } } },
          { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-int-or-string': true } } },
          { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-embedded-resource': true } } },
          { type: 'string' },
          { type: 'object', properties: { spec: { type: 'object', anyOf: [{ properties: { a: { type: 'string' } } }] } } },
        ] as Obj[]
      ).map(
        (schema, i): Step => ({
          req: `POST ${crds}`,
          body: {
            apiVersion: 'apiextensions.k8s.io/v1',
            kind: 'CustomResourceDefinition',
            metadata: { name: `${plural(i)}.${group}` },
            spec: { group, scope: 'Namespaced', names: { plural: plural(i), kind: 'Gauge' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }] },
          },
        }),
      ),
    ],
    cleanup: Array.from({ length: 11 }, (_, i): Step => ({ req: `DELETE ${crds}/${plural(i)}.${group}` })),
  },
];
