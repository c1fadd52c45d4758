import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  RequestConstructionError,
  buildApply,
  buildCreate,
  buildDelete,
  buildDeleteCollection,
  buildGet,
  buildList,
  buildPatch,
  buildUpdate,
  buildWatch,
  requestUrl,
  resourcePath,
} from './request.ts';

test('resourcePath builds core, named-group, namespaced and subresource paths', () => {
  const cases: Array<[Parameters<typeof resourcePath>[0], string]> = [
    [{ group: '', version: 'v1' }, '/api/v1'],
    [{ group: '', version: 'v1', resource: 'namespaces' }, '/api/v1/namespaces'],
    [{ group: '', version: 'v1', resource: 'namespaces', name: 'kube-system' }, '/api/v1/namespaces/kube-system'],
    [{ group: '', version: 'v1', namespace: 'default', resource: 'pods' }, '/api/v1/namespaces/default/pods'],
    [{ group: '', version: 'v1', namespace: '', resource: 'pods' }, '/api/v1/pods'],
    [{ group: '', version: 'v1', namespace: 'ns', resource: 'pods', name: 'web', subresource: 'status' }, '/api/v1/namespaces/ns/pods/web/status'],
    [{ group: 'apps', version: 'v1', namespace: 'ns', resource: 'Deployments', name: 'd', subresource: 'scale' }, '/apis/apps/v1/namespaces/ns/deployments/d/scale'],
    [{ group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles' }, '/apis/rbac.authorization.k8s.io/v1/clusterroles'],
  ];
  for (const [loc, path] of cases) assert.equal(resourcePath(loc), path);
});

test('resourcePath refuses names that would change the path', () => {
  for (const loc of [
    { group: '', version: 'v1', resource: 'pods', name: '..' },
    { group: '', version: 'v1', resource: 'pods', name: 'a/b' },
    { group: '', version: 'v1', resource: 'pods', name: '' },
    { group: '', version: 'v1', namespace: 'a%2F', resource: 'pods' },
    { group: '', version: 'v1', resource: 'pods', subresource: 'status' },
    { group: '', version: '' },
  ]) {
    assert.throws(() => resourcePath(loc), RequestConstructionError, JSON.stringify(loc));
  }
});

test('list and watch carry every ListOptions field as query parameters, sorted by key', () => {
  const req = buildList(
    { group: '', version: 'v1', namespace: 'default', resource: 'pods' },
    {
      labelSelector: 'app=web,tier!=db',
      fieldSelector: 'spec.nodeName=n1',
      resourceVersion: '10',
      resourceVersionMatch: 'NotOlderThan',
      limit: 500,
      continue: 'tok',
      timeoutSeconds: 30,
      shardSelector: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
    },
  );
  assert.deepEqual(req.query, [
    ['continue', 'tok'],
    ['fieldSelector', 'spec.nodeName=n1'],
    ['labelSelector', 'app=web,tier!=db'],
    ['limit', '500'],
    ['resourceVersion', '10'],
    ['resourceVersionMatch', 'NotOlderThan'],
    ['shardSelector', "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"],
    ['timeoutSeconds', '30'],
  ]);
  assert.equal(req.verb, 'GET');
  assert.equal(req.watch, undefined);
  const w = buildWatch({ group: 'apps', version: 'v1', resource: 'deployments' }, { resourceVersion: '5', allowWatchBookmarks: true, sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' });
  assert.deepEqual(w.query, [
    ['allowWatchBookmarks', 'true'],
    ['resourceVersion', '5'],
    ['resourceVersionMatch', 'NotOlderThan'],
    ['sendInitialEvents', 'true'],
    ['watch', 'true'],
  ]);
  assert.equal(w.watch, true);
  assert.equal(requestUrl('https://h:6443/prefix/', w), 'https://h:6443/prefix/apis/apps/v1/deployments?allowWatchBookmarks=true&resourceVersion=5&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true');
});

test('empty options produce no query parameters and a JSON Accept header', () => {
  const req = buildGet({ group: '', version: 'v1', namespace: 'ns', resource: 'pods', name: 'p' });
  assert.deepEqual(req, { verb: 'GET', path: '/api/v1/namespaces/ns/pods/p', query: [], headers: { accept: 'application/json' }, target: { group: '', resource: 'pods', name: 'p' } });
  assert.deepEqual(buildGet({ group: '', version: 'v1', resource: 'nodes', name: 'n' }, { resourceVersion: '0' }).query, [['resourceVersion', '0']]);
  assert.equal(buildList({ group: '', version: 'v1', resource: 'nodes' }, {}, { accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1' }).headers['accept'], 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1');
});

test('create and update send JSON bodies with write options', () => {
  const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' } };
  const c = buildCreate({ group: '', version: 'v1', namespace: 'ns', resource: 'configmaps' }, obj, { dryRun: ['All'], fieldManager: 'me', fieldValidation: 'Strict' });
  assert.deepEqual(c, {
    verb: 'POST',
    path: '/api/v1/namespaces/ns/configmaps',
    query: [['dryRun', 'All'], ['fieldManager', 'me'], ['fieldValidation', 'Strict']],
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify(obj),
    target: { group: '', resource: 'configmaps' },
  });
  const u = buildUpdate({ group: '', version: 'v1', namespace: 'ns', resource: 'configmaps', name: 'c' }, obj);
  assert.equal(u.verb, 'PUT');
  assert.equal(u.path, '/api/v1/namespaces/ns/configmaps/c');
  assert.throws(() => buildUpdate({ group: '', version: 'v1', namespace: 'ns', resource: 'configmaps' }, obj), RequestConstructionError);
});

test('each patch type is sent with its content type; apply requires a field manager', () => {
  const loc = { group: 'apps', version: 'v1', namespace: 'ns', resource: 'deployments', name: 'd' };
  assert.equal(buildPatch(loc, 'application/json-patch+json', [{ op: 'add', path: '/x', value: 1 }]).headers['content-type'], 'application/json-patch+json');
  assert.equal(buildPatch(loc, 'application/merge-patch+json', { a: 1 }).body, '{"a":1}');
  assert.equal(buildPatch(loc, 'application/strategic-merge-patch+json', '{"a":1}').body, '{"a":1}');
  const a = buildApply(loc, { apiVersion: 'apps/v1', kind: 'Deployment' }, { fieldManager: 'ctl', force: true });
  assert.equal(a.verb, 'PATCH');
  assert.equal(a.headers['content-type'], 'application/apply-patch+yaml');
  assert.deepEqual(a.query, [['fieldManager', 'ctl'], ['force', 'true']]);
  assert.throws(() => buildApply(loc, {}, { fieldManager: '' }), /fieldManager is required/);
});

test('delete sends DeleteOptions in the body; deleteCollection adds list options', () => {
  const loc = { group: '', version: 'v1', namespace: 'ns', resource: 'pods' };
  assert.deepEqual(buildDelete({ ...loc, name: 'p' }), { verb: 'DELETE', path: '/api/v1/namespaces/ns/pods/p', query: [], headers: { accept: 'application/json' }, target: { group: '', resource: 'pods', name: 'p' } });
  const d = buildDelete({ ...loc, name: 'p' }, { gracePeriodSeconds: 0, propagationPolicy: 'Foreground', preconditions: { uid: 'u1' }, dryRun: ['All'] });
  assert.deepEqual(JSON.parse(d.body!), { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0, preconditions: { uid: 'u1' }, propagationPolicy: 'Foreground', dryRun: ['All'] });
  assert.equal(d.headers['content-type'], 'application/json');
  const dc = buildDeleteCollection(loc, { propagationPolicy: 'Background' }, { labelSelector: 'app=x' });
  assert.equal(dc.path, '/api/v1/namespaces/ns/pods');
  assert.deepEqual(dc.query, [['labelSelector', 'app=x']]);
  assert.deepEqual(JSON.parse(dc.body!), { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' });
});
