/**
 * fieldValidation over HTTP for built-in kinds (checked against the generated API model), YAML bodies,
 * patches and server-side apply, with the answers kube-apiserver v1.24 gave (recorded from the server with
 * the ServerSideFieldValidation gate on).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer, type ApiServer } from '../src/testing/index.ts';
import { call, create, type Json } from './apiserver-helpers.ts';

const cms = '/api/v1/namespaces/default/configmaps';
const yaml = 'application/yaml';

async function withServer(fn: (s: ApiServer) => Promise<void>): Promise<void> {
  const s = await startApiServer();
  try {
    await fn(s);
  } finally {
    await s.stop();
  }
}

test('built-in kinds: unknown fields are refused under Strict and warned about under Warn, interleaved with duplicates', async () => {
  await withServer(async (s) => {
    const raw = (name: string): string => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}","zz":1},"data":{"a":"b"},"foo":1,"data":{},"bar":{"x":1}}`;
    const strict = await call(s, 'POST', `${cms}?fieldValidation=Strict`, { raw: raw('c1') });
    assert.deepEqual([strict.status, strict.body.message], [400, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "metadata.zz", unknown field "foo", duplicate field "data", unknown field "bar"']);
    const warn = await call(s, 'POST', cms, { raw: raw('c2') });
    assert.equal(warn.status, 201);
    assert.equal(warn.headers.get('warning'), '299 - "unknown field \\"metadata.zz\\"", 299 - "unknown field \\"foo\\"", 299 - "duplicate field \\"data\\"", 299 - "unknown field \\"bar\\""');
    const deployment: Json = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i', foo: 1, ports: [{ containerPort: 1, bar: 2 }] }] } }, baz: 3 },
    };
    const nested = await call(s, 'POST', '/apis/apps/v1/namespaces/default/deployments?fieldValidation=Strict&dryRun=All', { body: deployment });
    assert.equal(nested.body.message, 'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.template.spec.containers[0].foo", unknown field "spec.template.spec.containers[0].ports[0].bar", unknown field "spec.baz"');
    // Maps (labels, resources, nodeSelector) take any key; a Pod's deeper fields are known too.
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', annotations: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i', resources: { limits: { cpu: '1' } }, env: [{ name: 'x', valueFrom: { fieldRef: { fieldPath: 'a', zz: 1 } } }] }], nodeSelector: { a: 'b' } } };
    const podStrict = await call(s, 'POST', '/api/v1/namespaces/default/pods?fieldValidation=Strict&dryRun=All', { body: pod });
    assert.equal(podStrict.body.message, 'Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.containers[0].env[0].valueFrom.fieldRef.zz"');
    const ignore = await call(s, 'POST', `${cms}?fieldValidation=Ignore`, { raw: raw('c3') });
    assert.deepEqual([ignore.status, ignore.headers.get('warning')], [201, null]);
  });
});

test('YAML bodies report duplicate keys with their lines, then unknown fields', async () => {
  await withServer(async (s) => {
    const body = (name: string): string => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  labels:\n    x: "1"\n    x: "2"\ndata:\n  a: b\nkind: ConfigMap\nfoo: 1\n`;
    const strict = await call(s, 'POST', `${cms}?fieldValidation=Strict`, { raw: body('y1'), contentType: yaml });
    assert.equal(strict.body.message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: yaml: unmarshal errors:\n  line 7: key "x" already set in map\n  line 10: key "kind" already set in map, unknown field "foo"');
    const warn = await call(s, 'POST', cms, { raw: body('y2'), contentType: yaml });
    assert.equal(warn.status, 201);
    assert.equal(warn.headers.get('warning'), '299 - "line 7: key \\"x\\" already set in map", 299 - "line 10: key \\"kind\\" already set in map", 299 - "unknown field \\"foo\\""');
    assert.deepEqual(warn.body.metadata.labels, { x: '2' });
  });
});

test('patches: duplicates of the patch and unknown fields of the result; Strict answers 422 naming the patched object', async () => {
  await withServer(async (s) => {
    await create(s, cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pm' } });
    const merge = 'application/merge-patch+json';
    const strict = await call(s, 'PATCH', `${cms}/pm?fieldValidation=Strict`, { raw: '{"data":{"a":"b","a":"c"},"foo":1}', contentType: merge });
    assert.deepEqual([strict.status, strict.body.reason, strict.body.details.causes[0].field], [422, 'Invalid', 'patch']);
    assert.match(strict.body.message, /^ "" is invalid: patch: Invalid value: "\{.*\}": strict decoding error: duplicate field "data.a", unknown field "foo"$/);
    assert.equal((await call(s, 'GET', `${cms}/pm`)).body.data, undefined, 'a refused patch changes nothing');
    const warn = await call(s, 'PATCH', `${cms}/pm`, { raw: '{"data":{"a":"b","a":"c"},"foo":1}', contentType: merge });
    assert.deepEqual([warn.status, warn.headers.get('warning'), warn.body.data], [200, '299 - "duplicate field \\"data.a\\"", 299 - "unknown field \\"foo\\""', { a: 'c' }]);
    const json = await call(s, 'PATCH', `${cms}/pm?fieldValidation=Strict`, { body: [{ op: 'add', path: '/foo', value: 1 }], contentType: 'application/json-patch+json' });
    assert.match(json.body.message, /strict decoding error: unknown field "foo"$/);
  });
});

test('server-side apply refuses fields the kind does not have with a 500, whatever fieldValidation says', async () => {
  await withServer(async (s) => {
    const applied = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: pm\nfoo: 1\ndata:\n  b: b\n';
    for (const mode of ['Strict', 'Warn', 'Ignore']) {
      const r = await call(s, 'PATCH', `${cms}/pm?fieldManager=m&fieldValidation=${mode}`, { raw: applied, contentType: 'application/apply-patch+yaml' });
      assert.deepEqual([r.status, r.body.message], [500, 'failed to create typed patch object (/pm; /v1, Kind=ConfigMap): .foo: field not declared in schema'], mode);
    }
    const ok = await call(s, 'PATCH', `${cms}/pm?fieldManager=m`, { raw: applied.replace('foo: 1\n', ''), contentType: 'application/apply-patch+yaml' });
    assert.equal(ok.status, 201);
  });
});

test('custom resources: duplicates come before the unknown fields pruning finds; patches and apply as for built-ins', async () => {
  await withServer(async (s) => {
    await create(s, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'pats.example.com' },
      spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'pats', kind: 'Pat' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } }] },
    });
    const pats = '/apis/example.com/v1/namespaces/default/pats';
    const post = await call(s, 'POST', `${pats}?fieldValidation=Strict`, { raw: '{"apiVersion":"example.com/v1","kind":"Pat","metadata":{"name":"d1"},"spec":{"size":3,"zzz":1,"size":4},"aaa":1}' });
    assert.equal(post.body.message, 'Pat in version "v1" cannot be handled as a Pat: strict decoding error: duplicate field "spec.size", unknown field "aaa", unknown field "spec.zzz"');
    const yamlPost = await call(s, 'POST', pats, { raw: 'apiVersion: example.com/v1\nkind: Pat\nmetadata:\n  name: y2\nspec:\n  size: 3\n  size: 4\n  zzz: 1\n', contentType: yaml });
    assert.deepEqual([yamlPost.status, yamlPost.headers.get('warning'), yamlPost.body.spec], [201, '299 - "line 7: key \\"size\\" already set in map", 299 - "unknown field \\"spec.zzz\\""', { size: 4 }]);
    const merge = await call(s, 'PATCH', `${pats}/y2`, { raw: '{"spec":{"size":2,"size":3,"zz":1},"top":1}', contentType: 'application/merge-patch+json' });
    assert.equal(merge.headers.get('warning'), '299 - "duplicate field \\"spec.size\\"", 299 - "unknown field \\"spec.zz\\"", 299 - "unknown field \\"top\\""');
    const strictMerge = await call(s, 'PATCH', `${pats}/y2?fieldValidation=Strict`, { raw: '{"spec":{"zz":1}}', contentType: 'application/merge-patch+json' });
    assert.equal(strictMerge.status, 422);
    assert.match(strictMerge.body.message, /^ "" is invalid: patch: Invalid value: "\{\\"apiVersion\\":\\"example.com\/v1\\",\\"kind\\":\\"Pat\\",\\"metadata\\":\{.*\}": strict decoding error: unknown field "spec.zz"$/);
    const apply = await call(s, 'PATCH', `${pats}/y2?fieldManager=m`, { raw: 'apiVersion: example.com/v1\nkind: Pat\nmetadata:\n  name: y2\nspec:\n  size: 4\n  zz: 1\n', contentType: 'application/apply-patch+yaml' });
    assert.deepEqual([apply.status, apply.body.message], [500, 'failed to create typed patch object (/y2; example.com/v1, Kind=Pat): .spec.zz: field not declared in schema']);
  });
});
