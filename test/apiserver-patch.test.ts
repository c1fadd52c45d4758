import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer, type ApiServer } from '../src/testing/index.ts';
import { call, create, configMap, type Json } from './apiserver-helpers.ts';

let s: ApiServer;
before(async () => {
  s = await startApiServer();
});
after(async () => {
  await s.stop();
});

const cms = '/api/v1/namespaces/default/configmaps';
const deployments = '/apis/apps/v1/namespaces/default/deployments';

const json = 'application/json-patch+json';
const merge = 'application/merge-patch+json';
const strategic = 'application/strategic-merge-patch+json';
const apply = 'application/apply-patch+yaml';

test('JSON patch (RFC 6902) applies operations in order; a failing test op leaves the object unchanged', async () => {
  const created = await create(s, cms, configMap('jp', { a: '1' }));
  const r = await call(s, 'PATCH', `${cms}/jp`, {
    body: [
      { op: 'test', path: '/data/a', value: '1' },
      { op: 'add', path: '/data/b', value: '2' },
      { op: 'remove', path: '/data/a' },
    ],
    contentType: json,
  });
  assert.equal(r.status, 200);
  assert.deepEqual(r.body.data, { b: '2' });
  const failed = await call(s, 'PATCH', `${cms}/jp`, { body: [{ op: 'test', path: '/data/b', value: 'nope' }, { op: 'remove', path: '/data/b' }], contentType: json });
  assert.equal(failed.body.kind, 'Status');
  assert.ok(failed.status >= 400 && failed.status < 500, String(failed.status));
  const now = (await call(s, 'GET', `${cms}/jp`)).body;
  assert.deepEqual(now.data, { b: '2' });
  assert.equal(now.metadata.uid, created.metadata.uid);
  const notArray = await call(s, 'PATCH', `${cms}/jp`, { body: { op: 'add' }, contentType: json });
  assert.equal(notArray.status, 400);
});

test('merge patch (RFC 7386): null deletes, objects merge, lists replace', async () => {
  await create(s, cms, { ...configMap('mp', { a: '1', b: '2' }), metadata: { name: 'mp', labels: { x: '1', y: '2' } } });
  const r = await call(s, 'PATCH', `${cms}/mp`, { body: { data: { a: null, c: '3' }, metadata: { labels: { y: null } } }, contentType: merge });
  assert.equal(r.status, 200);
  assert.deepEqual(r.body.data, { b: '2', c: '3' });
  assert.deepEqual(r.body.metadata.labels, { x: '1' });
});

test('strategic merge patch merges containers by name and honours $patch directives', async () => {
  // A Deployment's pod template (a pod's own containers may not change after creation, as upstream validates).
  const template = (containers: Json[]): Json => ({ metadata: { labels: { app: 'smp' } }, spec: { containers } });
  await create(s, deployments, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'smp' },
    spec: { selector: { matchLabels: { app: 'smp' } }, template: template([{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1', env: [{ name: 'X', value: '1' }] }]) },
  });
  const r = await call(s, 'PATCH', `${deployments}/smp`, {
    body: { spec: { template: { spec: { containers: [{ name: 'b', image: 'b:2', env: [{ name: 'Y', value: '2' }] }] } } } },
    contentType: strategic,
  });
  assert.equal(r.status, 200, r.text);
  const containers = r.body.spec.template.spec.containers;
  assert.deepEqual(
    containers.map((c: Json) => `${c.name}=${c.image}`),
    ['a=a:1', 'b=b:2'],
  );
  assert.deepEqual(
    containers[1].env.map((e: Json) => e.name).sort(),
    ['X', 'Y'],
  );
  const del = await call(s, 'PATCH', `${deployments}/smp`, { body: { spec: { template: { spec: { containers: [{ name: 'a', $patch: 'delete' }] } } } }, contentType: strategic });
  assert.deepEqual(
    del.body.spec.template.spec.containers.map((c: Json) => c.name),
    ['b'],
  );
});

test('PATCH with an unsupported content type is 415; on a missing object 404; a bad body 400', async () => {
  await create(s, cms, configMap('ct'));
  const plain = await call(s, 'PATCH', `${cms}/ct`, { body: { data: {} }, contentType: 'application/json' });
  // The route has no consumer for plain JSON: kube-apiserver's router answers with its short 415.
  assert.equal(plain.status, 415);
  assert.equal(plain.body.message, '415: Unsupported Media Type');
  assert.equal(plain.body.reason, 'UnsupportedMediaType');
  const yaml = await call(s, 'PATCH', `${cms}/ct`, { raw: 'data: {}', contentType: 'application/yaml' });
  assert.equal(yaml.status, 415);
  assert.equal((await call(s, 'PATCH', `${cms}/missing`, { body: { data: {} }, contentType: merge })).status, 404);
  assert.equal((await call(s, 'PATCH', `${cms}/ct`, { raw: '{bad', contentType: merge })).status, 400);
  const rename = await call(s, 'PATCH', `${cms}/ct`, { body: { metadata: { name: 'other' } }, contentType: merge });
  assert.equal(rename.status, 400);
  assert.equal(rename.body.message, 'the name of the object (other) does not match the name on the URL (ct)');
});

const deployYaml = (replicas: number, image = 'app:1'): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ssa
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: ssa}
  template:
    metadata:
      labels: {app: ssa}
    spec:
      containers:
      - name: app
        image: ${image}
`;

test('server-side apply: fieldManager required, creates when missing, conflicts name the owner, force takes over', async () => {
  const missing = await call(s, 'PATCH', `${deployments}/ssa`, { raw: deployYaml(1), contentType: apply });
  assert.equal(missing.status, 422);
  assert.equal(missing.body.message, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
  const created = await call(s, 'PATCH', `${deployments}/ssa?fieldManager=alice`, { raw: deployYaml(1), contentType: apply });
  assert.equal(created.status, 201);
  assert.equal(created.body.spec.replicas, 1);
  assert.equal(created.body.metadata.generation, 1);
  assert.deepEqual(
    created.body.metadata.managedFields.map((m: Json) => [m.manager, m.operation, m.apiVersion]),
    [['alice', 'Apply', 'apps/v1']],
  );
  // Re-applying the same configuration changes nothing.
  const same = await call(s, 'PATCH', `${deployments}/ssa?fieldManager=alice`, { raw: deployYaml(1), contentType: apply });
  assert.equal(same.status, 200);
  assert.equal(same.body.metadata.resourceVersion, created.body.metadata.resourceVersion);
  const conflict = await call(s, 'PATCH', `${deployments}/ssa?fieldManager=bob`, { raw: deployYaml(2), contentType: apply });
  assert.equal(conflict.status, 409);
  assert.equal(conflict.body.reason, 'Conflict');
  assert.equal(conflict.body.message, 'Apply failed with 1 conflict: conflict with "alice": .spec.replicas');
  assert.deepEqual(conflict.body.details.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.spec.replicas' }]);
  const forced = await call(s, 'PATCH', `${deployments}/ssa?fieldManager=bob&force=true`, { raw: deployYaml(2), contentType: apply });
  assert.equal(forced.status, 200);
  assert.equal(forced.body.spec.replicas, 2);
  assert.equal(forced.body.metadata.generation, 2);
  // JSON is valid YAML: an apply body may be JSON.
  const asJson = await call(s, 'PATCH', `${cms}/applied-json?fieldManager=carol`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied-json' }, data: { k: 'v' } }, contentType: apply });
  assert.equal(asJson.status, 201);
  assert.deepEqual(asJson.body.data, { k: 'v' });
});

test('managedFields record Update operations by fieldManager, else by the User-Agent product', async () => {
  const viaParam = await call(s, 'POST', `${cms}?fieldManager=my-controller`, { body: configMap('mf', { a: '1' }) });
  assert.deepEqual(
    viaParam.body.metadata.managedFields.map((m: Json) => [m.manager, m.operation]),
    [['my-controller', 'Update']],
  );
  const viaAgent = await call(s, 'PATCH', `${cms}/mf`, { body: { data: { b: '2' } }, contentType: merge, headers: { 'user-agent': 'my-tool/1.2.3 (linux/amd64)' } });
  assert.deepEqual(
    viaAgent.body.metadata.managedFields.map((m: Json) => [m.manager, m.operation]).sort(),
    [
      ['my-controller', 'Update'],
      ['my-tool', 'Update'],
    ],
  );
});

test('dryRun PATCH answers the patched object without storing it', async () => {
  const created = await create(s, cms, configMap('dry-patch', { a: '1' }));
  const r = await call(s, 'PATCH', `${cms}/dry-patch?dryRun=All`, { body: { data: { a: '2' } }, contentType: merge });
  assert.equal(r.body.data.a, '2');
  assert.equal((await call(s, 'GET', `${cms}/dry-patch`)).body.metadata.resourceVersion, created.metadata.resourceVersion);
});
