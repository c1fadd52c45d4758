/**
 * Metadata validation of custom resources over HTTP: the DNS-subdomain name rule of every CRD, generateName,
 * labels, annotations, finalizers and owner references, the name and generateName constraints a schema may
 * declare, and the repeated errors of updates — as kube-apiserver v1.24 answered the same requests.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer, type ApiServer } from '../src/testing/index.ts';
import { call, create, type Json } from './apiserver-helpers.ts';

const subdomain =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const qualified = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'metas.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'metas', kind: 'Meta' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 8, pattern: '^a' }, generateName: { type: 'string', maxLength: 4 } } },
              spec: { type: 'object', properties: { size: { type: 'integer' } } },
            },
          },
        },
      },
    ],
  },
};
const base = '/apis/example.com/v1/namespaces/default/metas';
const meta = (metadata: Json, spec: Json = { size: 1 }): Json => ({ apiVersion: 'example.com/v1', kind: 'Meta', metadata, spec });
const causes = (r: Json): string[] => r.body.details.causes.map((c: Json) => `${c.field}: ${c.message}`);

async function withCrd(fn: (s: ApiServer) => Promise<void>): Promise<void> {
  const s = await startApiServer();
  try {
    await create(s, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    await fn(s);
  } finally {
    await s.stop();
  }
}

test('custom resource names are DNS subdomains and obey the schema\'s name constraints, reported together', async () => {
  await withCrd(async (s) => {
    assert.deepEqual(causes(await call(s, 'POST', base, { body: meta({ name: 'Abc_' }) })), [`metadata.name: Invalid value: "Abc_": ${subdomain}`, `metadata.name: Invalid value: "Abc_": metadata.name in body should match '^a'`]);
    assert.deepEqual(causes(await call(s, 'POST', base, { body: meta({ name: 'abcdefghijk' }) })), ['metadata.name: Too long: may not be more than 8 bytes']);
    const generated = await call(s, 'POST', base, { body: meta({ generateName: 'aB_' }) });
    assert.match(generated.body.message, /^Meta\.example\.com "aB_[a-z0-9]{5}" is invalid: /);
    assert.deepEqual(causes(generated).map((c) => c.replace(/"aB_[a-z0-9]{5}"/, '"aB_…"')), [`metadata.generateName: Invalid value: "aB_": ${subdomain}`, `metadata.name: Invalid value: "aB_…": ${subdomain}`]);
    assert.equal((await call(s, 'POST', base, { body: meta({ generateName: 'a-' }) })).status, 201);
  });
});

test('labels, annotations, finalizers and owner references of custom resources are validated before the schema', async () => {
  await withCrd(async (s) => {
    const r = await call(s, 'POST', base, {
      body: meta({ name: 'ab', labels: { 'bad key!': 'v' }, annotations: { 'UPPER/x': 'fine', 'bad key!': 'v' }, finalizers: ['bad finalizer', 'noslash'], ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x' }] }, { size: 'x' }),
    });
    assert.deepEqual(causes(r), [
      `metadata.labels: Invalid value: "bad key!": ${qualified}`,
      `metadata.annotations: Invalid value: "bad key!": ${qualified}`,
      'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
      `metadata.finalizers: Invalid value: "bad finalizer": ${qualified}`,
      'spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"',
    ]);
    const size = await call(s, 'POST', base, { body: meta({ name: 'as', annotations: { big: 'x'.repeat(262145) } }) });
    assert.deepEqual(causes(size), ['metadata.annotations: Too long: may not be more than 262144 bytes']);
  });
});

test('updates report metadata errors as often as upstream\'s common and custom resource checks do', async () => {
  await withCrd(async (s) => {
    const ok = await create(s, base, meta({ name: 'abc' }));
    const labels = await call(s, 'PUT', `${base}/abc`, { body: { ...ok, metadata: { ...ok.metadata, labels: { 'bad key!': 'v' } } } });
    assert.deepEqual(causes(labels), Array(3).fill(`metadata.labels: Invalid value: "bad key!": ${qualified}`));
    const uid = await call(s, 'PATCH', `${base}/abc`, { body: { metadata: { uid: 'other' } }, contentType: 'application/merge-patch+json' });
    assert.deepEqual(causes(uid), Array(2).fill('metadata.uid: Invalid value: "other": field is immutable'));
    // Custom resources allow no unconditional update: a PUT must carry the resourceVersion.
    const unconditional = await call(s, 'PUT', `${base}/abc`, { body: { ...ok, metadata: { name: 'abc' } } });
    assert.deepEqual([unconditional.status, unconditional.body.message], [422, 'metas.example.com "abc" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update']);
  });
});

test('built-in kinds check labels, generateName and core\'s finalizer rule the same way', async () => {
  const s = await startApiServer();
  try {
    const cms = '/api/v1/namespaces/default/configmaps';
    const r = await call(s, 'POST', cms, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1', labels: { 'bad key!': 'v' }, finalizers: ['bad finalizer'] } } });
    assert.deepEqual(causes(r), [
      `metadata.labels: Invalid value: "bad key!": ${qualified}`,
      `metadata.finalizers: Invalid value: "bad finalizer": ${qualified}`,
      'metadata.finalizers[0]: Invalid value: "bad finalizer": name is neither a standard finalizer name nor is it fully qualified',
    ]);
    const gen = await call(s, 'POST', cms, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'Bad_' } } });
    assert.equal(causes(gen)[0], `metadata.generateName: Invalid value: "Bad_": ${subdomain}`);
  } finally {
    await s.stop();
  }
});
