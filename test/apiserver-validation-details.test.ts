/**
 * Validation details checked against kube-apiserver v1.24 (test/fidelity/scenarios/validation-details.ts
 * records them): service cluster IPs outside the range (pkg/registry/core/service/storage/alloc.go), CRD
 * names (apiextensions validation.go ValidateCustomResourceDefinitionNames), deprecated CRD versions'
 * warnings (customresource_handler.go defaultDeprecationWarning), etcd's request size limit, and watches
 * asked for in YAML (negotiation.NegotiateOutputMediaTypeStream).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer, type ApiServer } from '../src/testing/index.ts';
import { call, create, type Json } from './apiserver-helpers.ts';

async function withServer(fn: (s: ApiServer) => Promise<void>): Promise<void> {
  const s = await startApiServer();
  try {
    await fn(s);
  } finally {
    await s.stop();
  }
}

const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const schema = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };

function crd(names: Json, versions: Json[] = [{ name: 'v1', served: true, storage: true, schema }]): Json {
  return { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `${names.plural}.example.com` }, spec: { group: 'example.com', scope: 'Namespaced', names, versions } };
}

test('a Service cluster IP outside the service range is refused as the allocator refuses it; one that is no IP by validation', async () => {
  await withServer(async (s) => {
    const svc = (name: string, clusterIP: string): Json => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { clusterIP, ports: [{ port: 80 }] } });
    const out = await call(s, 'POST', '/api/v1/namespaces/default/services', { body: svc('out', '192.168.1.1') });
    assert.equal(out.status, 422);
    assert.deepEqual(out.body.details.causes, [
      {
        reason: 'FieldValueInvalid',
        field: 'spec.clusterIPs',
        message: 'Invalid value: []string{"192.168.1.1"}: failed to allocate IP 192.168.1.1: the provided IP (192.168.1.1) is not in the valid range. The range of valid IPs is 10.96.0.0/12',
      },
    ]);
    const bad = await call(s, 'POST', '/api/v1/namespaces/default/services', { body: svc('bad', 'nope') });
    assert.equal(bad.body.details.causes[0].field, 'spec.clusterIPs[0]');
    assert.equal((await call(s, 'POST', '/api/v1/namespaces/default/services', { body: svc('in', '10.96.7.7') })).status, 201);
  });
});

test('CRD kind and listKind must be DNS-1035 labels in any case and differ', async () => {
  await withServer(async (s) => {
    const r = await call(s, 'POST', crds, { body: crd({ plural: 'widgets', singular: 'widget', kind: 'Wid_get', listKind: 'Wid_get' }) });
    assert.equal(r.status, 422);
    const dns1035 = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
    assert.deepEqual(
      r.body.details.causes.map((c: Json) => [c.field, c.message]),
      [
        ['spec.names.kind', `Invalid value: "Wid_get": may have mixed case, but should otherwise match: ${dns1035}`],
        ['spec.names.listKind', `Invalid value: "Wid_get": may have mixed case, but should otherwise match: ${dns1035}`],
        ['spec.names.listKind', 'Invalid value: "Wid_get": kind and listKind may not be the same'],
      ],
    );
  });
});

test('requests through a deprecated CRD version carry a Warning: deprecationWarning, or the default naming the preferred version', async () => {
  await withServer(async (s) => {
    const versions = [
      { name: 'v1', served: true, storage: false, deprecated: true, schema },
      { name: 'v2beta1', served: true, storage: false, deprecated: true, deprecationWarning: 'v2beta1 goes away', schema },
      { name: 'v2', served: true, storage: true, schema },
    ];
    await create(s, crds, crd({ plural: 'gadgets', kind: 'Gadget' }, versions));
    const path = (v: string): string => `/apis/example.com/${v}/namespaces/default/gadgets`;
    const created = await call(s, 'POST', path('v1'), { body: { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' } } });
    assert.equal(created.status, 201);
    assert.equal(created.headers.get('warning'), '299 - "example.com/v1 Gadget is deprecated; use example.com/v2 Gadget"');
    assert.equal((await call(s, 'GET', path('v2beta1'))).headers.get('warning'), '299 - "v2beta1 goes away"');
    assert.equal((await call(s, 'GET', `${path('v2')}/g`)).headers.get('warning'), null);
  });
});

test("an object over etcd's 1.5 MiB request limit fails as etcd fails it: an untyped 500", async () => {
  await withServer(async (s) => {
    await create(s, crds, crd({ plural: 'blobs', kind: 'Blob' }));
    const blobs = '/apis/example.com/v1/namespaces/default/blobs';
    const before = s.revision();
    const r = await call(s, 'POST', blobs, { body: { apiVersion: 'example.com/v1', kind: 'Blob', metadata: { name: 'b' }, data: 'x'.repeat(1_600_000) } });
    assert.equal(r.status, 500);
    assert.equal(r.body.message, 'etcdserver: request is too large');
    assert.equal(r.body.reason, undefined);
    assert.equal(s.revision(), before);
    assert.equal((await call(s, 'GET', `${blobs}/b`)).status, 404);
  });
});

test('a watch asked for in YAML is 406, the Status in YAML', async () => {
  await withServer(async (s) => {
    const r = await call(s, 'GET', '/api/v1/namespaces/default/configmaps?watch=true', { headers: { accept: 'application/yaml' } });
    assert.equal(r.status, 406);
    assert.equal(r.headers.get('content-type'), 'application/yaml');
    assert.match(r.text, /only the following media types are accepted: application\/json;stream=watch, application\/vnd.kubernetes.protobuf;stream=watch/);
  });
});

test("custom resources are written with their keys in Go's map order at every level, lists too", async () => {
  await withServer(async (s) => {
    await create(s, crds, crd({ plural: 'gizmos', kind: 'Gizmo' }));
    const gizmos = '/apis/example.com/v1/namespaces/default/gizmos';
    const body = { kind: 'Gizmo', apiVersion: 'example.com/v1', metadata: { name: 'g', labels: { z: '1', a: '2' } }, zeta: 1, spec: { b: 1, a: { d: 1, c: 2 } }, data: 'x' };
    const created = await call(s, 'POST', gizmos, { body });
    const got = await call(s, 'GET', `${gizmos}/g`);
    for (const text of [created.text, got.text]) {
      assert.match(text, /^\{"apiVersion":"example.com\/v1","data":"x","kind":"Gizmo","metadata":\{"creationTimestamp":"[^"]+","generation":1,"labels":\{"a":"2","z":"1"\},"managedFields":\[\{"apiVersion":/);
      assert.match(text, /"name":"g","namespace":"default","resourceVersion":"\d+","uid":"[^"]+"\},"spec":\{"a":\{"c":2,"d":1\},"b":1\},"zeta":1\}\n?$/);
    }
    const list = await call(s, 'GET', `${gizmos}?limit=5`);
    assert.match(list.text, /^\{"apiVersion":"example.com\/v1","items":\[\{"apiVersion":/);
    assert.match(list.text, /\],"kind":"GizmoList","metadata":\{"continue":"","resourceVersion":"\d+"\}\}\n?$/);
  });
});

test('a pod spec update is refused at the path upstream names: containers added, then everything but images, deadlines and added tolerations', async () => {
  await withServer(async (s) => {
    await create(s, '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'app', image: 'nginx:1.25' }] } });
    const patch = async (body: unknown, type = 'application/merge-patch+json'): Promise<string[]> => {
      const r = await call(s, 'PATCH', '/api/v1/namespaces/default/pods/p', { body, contentType: type });
      return r.status === 200 ? [] : r.body.details.causes.map((c: Json) => `${c.field}: ${c.message.slice(0, 40)}`);
    };
    assert.deepEqual(await patch([{ op: 'add', path: '/spec/containers/-', value: { name: 'two', image: 'x' } }], 'application/json-patch+json'), ['spec.containers: Forbidden: pod updates may not add or re']);
    assert.deepEqual(await patch({ spec: { terminationGracePeriodSeconds: 5 } }), ['spec: Forbidden: pod updates may not change fi']);
    assert.deepEqual(await patch({ spec: { activeDeadlineSeconds: 100 } }), []);
    assert.deepEqual(await patch({ spec: { activeDeadlineSeconds: 200 } }), ['spec.activeDeadlineSeconds: Invalid value: 200: must be less than or']);
    assert.deepEqual(await patch([{ op: 'replace', path: '/spec/containers/0/image', value: 'nginx:1.26' }], 'application/json-patch+json'), []);
  });
});
