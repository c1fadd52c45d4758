/**
 * CRD schemas end to end over HTTP: structural checks, validation, defaulting, pruning, CEL rules and
 * fieldValidation, with the Status bodies and warnings kube-apiserver v1.24 answered for the same requests
 * (recorded from the real server with the CustomResourceValidationExpressions and ServerSideFieldValidation
 * gates on; v1.32 wording where it differs, see docs/apiserver.md).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer, type ApiServer } from '../src/testing/index.ts';
import { call, create, watch, type Json } from './apiserver-helpers.ts';

const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

async function withServer(fn: (s: ApiServer) => Promise<void>, options = {}): Promise<void> {
  const s = await startApiServer(options);
  try {
    await fn(s);
  } finally {
    await s.stop();
  }
}

function crd(schema: unknown, extra: Json = {}): Json {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'probes.example.com' },
    spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'probes', kind: 'Probe' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema }, ...extra }] },
  };
}

const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['size'],
      properties: {
        size: { type: 'integer', minimum: 1, maximum: 10 },
        name: { type: 'string', maxLength: 5 },
        color: { type: 'string', enum: ['red', 'green'] },
        ports: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer', default: 80 } } } },
        def: { type: 'string', default: 'dflt' },
        obj: { type: 'object', default: {}, properties: { inner: { type: 'integer', default: 7 } } },
        ios: { 'x-kubernetes-int-or-string': true },
        min: { type: 'integer' },
      },
      'x-kubernetes-validations': [{ rule: '!has(self.min) || self.size >= self.min', message: 'size must be at least min' }, { rule: 'self.size <= oldSelf.size + 5', message: 'size grows by at most 5' }],
    },
    status: { type: 'object', properties: { ready: { type: 'boolean' } } },
  },
};

const probes = '/apis/example.com/v1/namespaces/default/probes';
const probe = (name: string, spec: Json, extra: Json = {}): Json => ({ apiVersion: 'example.com/v1', kind: 'Probe', metadata: { name }, spec, ...extra });

test('a custom resource that breaks its schema gets 422 with upstream causes; a Widget with size "nonsense" is refused', async () => {
  await withServer(async (s) => {
    await create(s, crds, crd(schema, { subresources: { status: {} } }));
    const r = await call(s, 'POST', probes, { body: probe('bad', { size: 'nonsense', name: 'ABCDEFG', color: 'blue', ports: [{ name: 'x' }, { name: 'x' }], ios: 1.5 }) });
    assert.equal(r.status, 422);
    assert.equal(r.body.reason, 'Invalid');
    assert.deepEqual(r.body.details.causes, [
      { reason: 'FieldValueTypeInvalid', message: 'Invalid value: "string": spec.size in body must be of type integer: "string"', field: 'spec.size' },
      { reason: 'FieldValueTooLong', message: 'Too long: may not be more than 5 bytes', field: 'spec.name' },
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: "blue": supported values: "red", "green"', field: 'spec.color' },
      { reason: 'FieldValueTypeInvalid', message: 'Invalid value: "number": spec.ios in body must be of type integer,string: "number"', field: 'spec.ios' },
      { reason: 'FieldValueDuplicate', message: 'Duplicate value: map[string]interface {}{"name":"x"}', field: 'spec.ports[1]' },
      // The schema has CEL rules, which errors of type, size or missing fields keep from running.
      { reason: 'FieldValueInvalid', message: 'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation', field: '<nil>' },
    ]);
    const dup = await call(s, 'POST', probes, { body: probe('dup', { size: 2, ports: [{ name: 'x' }, { name: 'x' }] }) });
    assert.deepEqual(dup.body.details.causes, [{ reason: 'FieldValueDuplicate', message: 'Duplicate value: map[string]interface {}{"name":"x"}', field: 'spec.ports[1]' }]);
    const missing = await call(s, 'POST', probes, { body: probe('m', { name: 'ab' }) });
    assert.equal(missing.body.message, 'Probe.example.com "m" is invalid: [spec.size: Required value, <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]');
  });
});

test('defaults are applied and unknown fields pruned on create, with Warn warnings by default', async () => {
  await withServer(async (s) => {
    await create(s, crds, crd(schema, { subresources: { status: {} } }));
    const r = await call(s, 'POST', probes, { body: probe('good', { size: 2, ports: [{ name: 'http' }], unknownField: 1, ios: 'x' }, { status: { ready: true }, topLevelUnknown: 1 }) });
    assert.equal(r.status, 201);
    assert.deepEqual(r.body.spec, { size: 2, ports: [{ name: 'http', port: 80 }], ios: 'x', def: 'dflt', obj: { inner: 7 } });
    assert.equal(r.body.topLevelUnknown, undefined);
    assert.equal(r.body.status, undefined);
    assert.equal(r.headers.get('warning'), '299 - "unknown field \\"spec.unknownField\\"", 299 - "unknown field \\"topLevelUnknown\\""');
    const got = await call(s, 'GET', `${probes}/good`);
    assert.deepEqual(got.body.spec, r.body.spec);
  });
});

test('fieldValidation=Strict refuses unknown and duplicate fields with 400; Ignore accepts them silently', async () => {
  await withServer(async (s) => {
    await create(s, crds, crd(schema));
    const strict = await call(s, 'POST', `${probes}?fieldValidation=Strict`, { body: probe('s', { size: 2, unknownField: 1, nested: { a: 1 } }, { topLevelUnknown: 1 }) });
    assert.equal(strict.status, 400);
    assert.equal(strict.body.message, 'Probe in version "v1" cannot be handled as a Probe: strict decoding error: unknown field "spec.nested", unknown field "spec.unknownField", unknown field "topLevelUnknown"');
    const dupStrict = await call(s, 'POST', `${probes}?fieldValidation=Strict`, { raw: '{"apiVersion":"example.com/v1","kind":"Probe","metadata":{"name":"dup"},"spec":{"size":2,"size":3}}' });
    assert.equal(dupStrict.body.message, 'Probe in version "v1" cannot be handled as a Probe: strict decoding error: duplicate field "spec.size"');
    const dupWarn = await call(s, 'POST', probes, { raw: '{"apiVersion":"example.com/v1","kind":"Probe","metadata":{"name":"dup"},"spec":{"size":2,"size":3}}' });
    assert.equal(dupWarn.status, 201);
    assert.equal(dupWarn.body.spec.size, 3);
    assert.equal(dupWarn.headers.get('warning'), '299 - "duplicate field \\"spec.size\\""');
    const ignore = await call(s, 'POST', `${probes}?fieldValidation=Ignore`, { body: probe('i', { size: 2, unknownField: 1 }) });
    assert.equal(ignore.status, 201);
    assert.equal(ignore.headers.get('warning'), null);
    const cm = await call(s, 'POST', '/api/v1/namespaces/default/configmaps?fieldValidation=Strict', { raw: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c1"},"data":{"a":"b"},"data":{}}' });
    assert.equal(cm.body.message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data"');
  });
});

test('CEL rules run on create and update; transition rules compare with oldSelf', async () => {
  await withServer(async (s) => {
    await create(s, crds, crd(schema));
    const low = await call(s, 'POST', probes, { body: probe('low', { size: 2, min: 3 }) });
    assert.deepEqual(low.body.details.causes, [{ reason: 'FieldValueInvalid', message: 'Invalid value: "object": size must be at least min', field: 'spec' }]);
    const ok = await create(s, probes, probe('p', { size: 2 }));
    const grow = await call(s, 'PUT', `${probes}/p`, { body: { ...ok, spec: { size: 9 } } });
    assert.equal(grow.status, 422);
    assert.equal(grow.body.message, 'Probe.example.com "p" is invalid: spec: Invalid value: "object": size grows by at most 5');
    const patch = await call(s, 'PATCH', `${probes}/p`, { body: { spec: { size: 4 } }, contentType: 'application/merge-patch+json' });
    assert.equal(patch.status, 200);
    assert.equal(patch.body.spec.size, 4);
  });
});

test('CRDs with non-structural schemas, $ref, bad defaults or rules that do not compile are refused as upstream refuses them', async () => {
  await withServer(async (s) => {
    const causes = async (sch: unknown): Promise<string[]> => {
      const r = await call(s, 'POST', crds, { body: crd(sch) });
      assert.equal(r.status, 422, r.text);
      return r.body.details.causes.map((c: Json) => `${c.field}: ${c.message}`);
    };
    assert.deepEqual(await causes({ properties: { spec: { type: 'object' } } }), ['spec.validation.openAPIV3Schema.type: Required value: must not be empty at the root']);
    assert.deepEqual(await causes({ type: 'object', properties: { spec: { $ref: '#/definitions/x' } } }), ['spec.validation.openAPIV3Schema.properties[spec].$ref: Forbidden: $ref is not supported']);
    assert.deepEqual(await causes({ type: 'object', properties: { spec: { type: 'object', properties: { x: { type: 'integer', default: 'str' }, z: { type: 'object', default: { unknown: 1 }, properties: { a: { type: 'string' } } } } } } }), [
      'spec.validation.openAPIV3Schema.properties[spec].properties[x].default: Invalid value: "string":  in body must be of type integer: "string"',
      'spec.validation.openAPIV3Schema.properties[spec].properties[z].default: Invalid value: map[string]interface {}{"unknown":1}: must not have unknown fields',
    ]);
    assert.deepEqual(await causes({ type: 'object', properties: { spec: { type: 'object', properties: { x: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.y > 0' }] } } }), [
      `spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.y > 0", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:5: undefined field 'y'\n | self.y > 0\n | ....^`,
    ]);
    const cost = await causes({ type: 'object', properties: { spec: { type: 'object', properties: { l: { type: 'array', items: { type: 'string' } } }, 'x-kubernetes-validations': [{ rule: 'self.l.all(a, self.l.all(b, self.l.all(c, a + b + c != "")))' }] } } });
    assert.equal(cost[0], 'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)');
    assert.equal(cost.at(-1), 'spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)');
  });
});

test('with crdSchemaValidation off, objects are pruned and defaulted but not refused', async () => {
  await withServer(
    async (s) => {
      await create(s, crds, crd(schema));
      const r = await call(s, 'POST', probes, { body: probe('x', { size: 'nonsense', extra: 1 }) });
      assert.equal(r.status, 201);
      assert.deepEqual(r.body.spec, { size: 'nonsense', def: 'dflt', obj: { inner: 7 } });
    },
    { crdSchemaValidation: false },
  );
});

test('objects stored before the schema gained a default or lost a field are read defaulted and pruned by get, list and watch', async () => {
  await withServer(async (s) => {
    const before = { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' }, gone: { type: 'string' } } } } };
    const after = { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string', default: 'red' } } } } };
    await create(s, crds, crd(before));
    const p1 = await create(s, probes, probe('p1', { size: 1, gone: 'x' }));
    await create(s, probes, probe('p2', { size: 2 }));
    const updated = await call(s, 'PUT', `${crds}/probes.example.com`, { body: crd(after) });
    assert.equal(updated.status, 200, updated.text);
    // kube-apiserver v1.24 answers the same: the default appears and the removed field is gone, at the stored resourceVersion.
    const got = await call(s, 'GET', `${probes}/p1`);
    assert.deepEqual([got.body.spec, got.body.metadata.resourceVersion], [{ size: 1, color: 'red' }, p1.metadata.resourceVersion]);
    const list = await call(s, 'GET', probes);
    assert.deepEqual(list.body.items.map((i: Json) => i.spec), [{ size: 1, color: 'red' }, { size: 2, color: 'red' }]);
    const w = await watch(s, `${probes}?watch=true&resourceVersion=${Number(p1.metadata.resourceVersion) - 1}`);
    try {
      assert.deepEqual([(await w.next()).object.spec, (await w.next()).object.spec], [{ size: 1, color: 'red' }, { size: 2, color: 'red' }]);
      // Writes start from the decoded object, so the default is stored with them and deletions carry it.
      const patched = await call(s, 'PATCH', `${probes}/p2`, { body: { metadata: { labels: { a: 'b' } } }, contentType: 'application/merge-patch+json' });
      assert.deepEqual(patched.body.spec, { size: 2, color: 'red' });
      assert.equal((await call(s, 'DELETE', `${probes}/p1`)).status, 200);
      const events = [await w.next(), await w.next()];
      assert.deepEqual(events.map((e: Json) => [e.type, e.object.metadata.name, e.object.spec]), [
        ['MODIFIED', 'p2', { size: 2, color: 'red' }],
        ['DELETED', 'p1', { size: 1, color: 'red' }],
      ]);
    } finally {
      await w.close();
    }
  });
});

test('CEL rules run after errors such as a value outside its enum, and not after type, size or required errors (gated v1.24 answers)', async () => {
  await withServer(async (s) => {
    const rules = { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string', enum: ['red', 'blue'] }, name: { type: 'string', maxLength: 3 }, when: { type: 'string', format: 'date-time' } }, 'x-kubernetes-validations': [{ rule: 'self.size > 2', message: 'size > 2' }, { rule: '!has(self.when) || self.when > timestamp("2020-01-01T00:00:00Z")', message: 'when after 2020' }] } } };
    await create(s, crds, crd(rules));
    const enumAndRule = await call(s, 'POST', probes, { body: probe('a', { size: 1, color: 'green', when: '2019-01-01T00:00:00Z' }) });
    assert.equal(enumAndRule.body.message, 'Probe.example.com "a" is invalid: [spec.color: Unsupported value: "green": supported values: "red", "blue", spec: Invalid value: "object": size > 2, spec: Invalid value: "object": when after 2020]');
    const tooLong = await call(s, 'POST', probes, { body: probe('a', { size: 1, name: 'abcd' }) });
    assert.deepEqual(tooLong.body.details.causes, [
      { reason: 'FieldValueTooLong', message: 'Too long: may not be more than 3 bytes', field: 'spec.name' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation', field: '<nil>' },
    ]);
    assert.equal((await call(s, 'POST', probes, { body: probe('ok', { size: 3, when: '2024-05-01T10:00:00Z' }) })).status, 201);
  });
});

test('v1 CRDs cannot set spec.preserveUnknownFields, and non-structural schemas never get stored (so no NonStructuralSchema condition)', async () => {
  await withServer(async (s) => {
    const r = await call(s, 'POST', crds, { body: { ...crd({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }), spec: { ...crd({}).spec, preserveUnknownFields: true, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] } } });
    assert.deepEqual([r.status, r.body.message], [422, 'CustomResourceDefinition.apiextensions.k8s.io "probes.example.com" is invalid: spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-preserve-unknown-fields to true in spec.versions[*].schema instead']);
    const ns = await call(s, 'POST', crds, { body: crd({ type: 'object', properties: { spec: { properties: { a: { type: 'string' } } } } }) });
    assert.equal(ns.body.message, 'CustomResourceDefinition.apiextensions.k8s.io "probes.example.com" is invalid: spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields');
  });
});
