import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer, type ApiServer } from '../src/testing/index.ts';
import { call, type Json } from './apiserver-helpers.ts';

let server: ApiServer;
before(async () => {
  server = await startApiServer();
});
after(async () => {
  await server.stop();
});

test('GET /version reports a Kubernetes version', async () => {
  const r = await call(server, 'GET', '/version');
  assert.equal(r.status, 200);
  assert.equal(r.body.major, '1');
  assert.match(r.body.gitVersion, /^v1\.\d+\.\d+/);
});

test('GET /api lists the core group version v1', async () => {
  const r = await call(server, 'GET', '/api');
  assert.equal(r.body.kind, 'APIVersions');
  assert.deepEqual(r.body.versions, ['v1']);
});

test('GET /api/v1 describes pods like kube-apiserver, with its status and log subresources', async () => {
  const r = await call(server, 'GET', '/api/v1');
  assert.equal(r.body.kind, 'APIResourceList');
  assert.equal(r.body.groupVersion, 'v1');
  const byName = new Map<string, Json>(r.body.resources.map((x: Json) => [x.name, x]));
  const pods = byName.get('pods');
  assert.equal(pods.singularName, 'pod');
  assert.equal(pods.namespaced, true);
  assert.equal(pods.kind, 'Pod');
  assert.deepEqual(pods.verbs, ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
  assert.deepEqual(pods.shortNames, ['po']);
  assert.deepEqual(pods.categories, ['all']);
  assert.deepEqual(byName.get('pods/status').verbs, ['get', 'patch', 'update']);
  assert.deepEqual(byName.get('pods/log').verbs, ['get']);
  assert.equal(byName.get('namespaces').namespaced, false);
  assert.equal(byName.has('configmaps/status'), false);
  for (const name of ['namespaces', 'pods', 'services', 'configmaps', 'secrets', 'serviceaccounts', 'nodes', 'events', 'endpoints', 'persistentvolumeclaims']) {
    assert.ok(byName.has(name), name);
  }
});

test('GET /apis lists every group a v1.32 kube-apiserver serves by default, in its order (APIService priority)', async () => {
  const r = await call(server, 'GET', '/apis');
  assert.equal(r.body.kind, 'APIGroupList');
  const groups = r.body.groups.map((g: Json) => `${g.name}:${g.preferredVersion.groupVersion}`);
  // kube-apiserver v1.24 lists the same groups in the same order (plus the beta versions v1.25+ no longer serve).
  assert.deepEqual(groups, [
    'apiregistration.k8s.io:apiregistration.k8s.io/v1',
    'apps:apps/v1',
    'events.k8s.io:events.k8s.io/v1',
    'authentication.k8s.io:authentication.k8s.io/v1',
    'authorization.k8s.io:authorization.k8s.io/v1',
    'autoscaling:autoscaling/v2',
    'batch:batch/v1',
    'certificates.k8s.io:certificates.k8s.io/v1',
    'networking.k8s.io:networking.k8s.io/v1',
    'policy:policy/v1',
    'rbac.authorization.k8s.io:rbac.authorization.k8s.io/v1',
    'storage.k8s.io:storage.k8s.io/v1',
    'admissionregistration.k8s.io:admissionregistration.k8s.io/v1',
    'apiextensions.k8s.io:apiextensions.k8s.io/v1',
    'scheduling.k8s.io:scheduling.k8s.io/v1',
    'coordination.k8s.io:coordination.k8s.io/v1',
    'node.k8s.io:node.k8s.io/v1',
    'discovery.k8s.io:discovery.k8s.io/v1',
    'flowcontrol.apiserver.k8s.io:flowcontrol.apiserver.k8s.io/v1',
  ]);
});

test('/api and /apis answer aggregated discovery v2 to clients that ask for it first, legacy documents otherwise', async () => {
  const v2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
  const apis = await call(server, 'GET', '/apis', { headers: { accept: `${v2},application/json` } });
  assert.equal(apis.status, 200);
  assert.equal(apis.headers.get('content-type'), v2);
  assert.equal(apis.body.kind, 'APIGroupDiscoveryList');
  assert.equal(apis.body.apiVersion, 'apidiscovery.k8s.io/v2');
  const legacyGroups = (await call(server, 'GET', '/apis')).body.groups.map((g: Json) => g.name);
  assert.deepEqual(apis.body.items.map((g: Json) => g.metadata.name), legacyGroups, 'same groups in the same order');
  const apps = apis.body.items.find((g: Json) => g.metadata.name === 'apps');
  assert.equal(apps.versions[0].version, 'v1');
  assert.equal(apps.versions[0].freshness, 'Current');
  const deployments = apps.versions[0].resources.find((r: Json) => r.resource === 'deployments');
  assert.deepEqual(deployments.responseKind, { group: '', version: '', kind: 'Deployment' });
  assert.equal(deployments.scope, 'Namespaced');
  assert.equal(deployments.singularResource, 'deployment');
  assert.deepEqual(deployments.shortNames, ['deploy']);
  assert.deepEqual(
    deployments.subresources.map((x: Json) => [x.subresource, x.responseKind.group, x.responseKind.kind]),
    // In the legacy list's order (subresources sorted by name).
    [
      ['scale', 'autoscaling', 'Scale'],
      ['status', '', 'Deployment'],
    ],
  );

  const core = await call(server, 'GET', '/api', { headers: { accept: v2 } });
  assert.equal(core.body.items.length, 1);
  assert.equal(core.body.items[0].metadata.name, '');
  const namespaces = core.body.items[0].versions[0].resources.find((r: Json) => r.resource === 'namespaces');
  assert.equal(namespaces.scope, 'Cluster');

  // Legacy first, v2beta1 only (removed upstream) or no Accept: the legacy documents.
  for (const accept of [`application/json,${v2}`, 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json', '']) {
    const r = await call(server, 'GET', '/apis', { headers: accept === '' ? {} : { accept } });
    assert.equal(r.body.kind, 'APIGroupList', accept);
    assert.match(r.headers.get('content-type') ?? '', /^application\/json$/);
  }
});

test('GET /apis/<group>/<version> lists the group resources; /apis/<group> the group', async () => {
  const apps = await call(server, 'GET', '/apis/apps/v1');
  // In kube-apiserver's order: resources sorted, each followed by its subresources (sorted).
  assert.deepEqual(
    apps.body.resources.map((x: Json) => x.name),
    [
      'controllerrevisions',
      'daemonsets',
      'daemonsets/status',
      'deployments',
      'deployments/scale',
      'deployments/status',
      'replicasets',
      'replicasets/scale',
      'replicasets/status',
      'statefulsets',
      'statefulsets/scale',
      'statefulsets/status',
    ],
  );
  const scale = apps.body.resources.find((x: Json) => x.name === 'deployments/scale');
  assert.deepEqual([scale.group, scale.version, scale.kind, scale.verbs], ['autoscaling', 'v1', 'Scale', ['get', 'patch', 'update']]);
  const deploy = apps.body.resources.find((x: Json) => x.name === 'deployments');
  assert.deepEqual([deploy.kind, deploy.namespaced, deploy.shortNames], ['Deployment', true, ['deploy']]);
  const group = await call(server, 'GET', '/apis/apps');
  assert.equal(group.body.kind, 'APIGroup');
  assert.equal(group.body.preferredVersion.version, 'v1');
  const rbac = await call(server, 'GET', '/apis/rbac.authorization.k8s.io/v1');
  assert.deepEqual(rbac.body.resources.map((x: Json) => `${x.name}:${x.namespaced}`), ['clusterrolebindings:false', 'clusterroles:false', 'rolebindings:true', 'roles:true']);
  for (const [gv, names] of [
    ['batch/v1', ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status']],
    ['coordination.k8s.io/v1', ['leases']],
    ['events.k8s.io/v1', ['events']],
    ['apiextensions.k8s.io/v1', ['customresourcedefinitions', 'customresourcedefinitions/status']],
  ] as const) {
    const r = await call(server, 'GET', `/apis/${gv}`);
    assert.deepEqual(
      r.body.resources.map((x: Json) => x.name),
      names,
    );
  }
});

test('unknown versions and resources of served groups answer a 404 Status; other paths the mux 404 text', async () => {
  for (const path of ['/api/v2', '/apis/apps/v9', '/apis/apps/v1/widgets']) {
    const r = await call(server, 'GET', path);
    assert.equal(r.status, 404, path);
    assert.equal(r.body.kind, 'Status', path);
    assert.equal(r.body.reason, 'NotFound', path);
  }
  // Groups nobody serves fall through kube-apiserver's delegation chain to the mux's NotFound handler.
  for (const path of ['/apis/nope.example.com/v1', '/apis/nope.example.com', '/nothing/here']) {
    const r = await call(server, 'GET', path);
    assert.equal(r.status, 404, path);
    assert.equal(r.text, '404 page not found\n', path);
  }
});

test('OpenAPI v3 advertises server-side field validation per kind (what kubectl checks)', async () => {
  const root = await call(server, 'GET', '/openapi/v3');
  const url: string = root.body.paths['apis/apps/v1'].serverRelativeURL;
  assert.match(url, /^\/openapi\/v3\/apis\/apps\/v1\?hash=/);
  const doc = await call(server, 'GET', url);
  const op = doc.body.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch;
  assert.deepEqual(op['x-kubernetes-group-version-kind'], { group: 'apps', version: 'v1', kind: 'Deployment' });
  assert.ok(op.parameters.some((p: Json) => p.name === 'fieldValidation'));
});

test('OpenAPI v3 and v2 carry the schemas of built-in kinds, with their descriptions (what kubectl explain reads)', async () => {
  const apps = (await call(server, 'GET', '/openapi/v3/apis/apps/v1')).body;
  const spec = apps.components.schemas['io.k8s.api.apps.v1.DeploymentSpec'];
  assert.equal(spec.description, 'DeploymentSpec is the specification of the desired behavior of the Deployment.');
  assert.deepEqual(spec.required, ['selector', 'template']);
  assert.deepEqual(spec.properties.template.allOf, [{ $ref: '#/components/schemas/io.k8s.api.core.v1.PodTemplateSpec' }]);
  // Everything referenced is in the document.
  for (const ref of JSON.stringify(apps.components.schemas).match(/#\/components\/schemas\/[\w.-]+/g) ?? []) {
    assert.ok(apps.components.schemas[ref.slice('#/components/schemas/'.length)] !== undefined, ref);
  }
  assert.equal((await call(server, 'GET', '/openapi/v3/apis/apps/v9')).status, 404);
  const v2 = (await call(server, 'GET', '/openapi/v2', { headers: { accept: 'application/json' } })).body;
  const cm = v2.definitions['io.k8s.api.core.v1.ConfigMap'];
  assert.deepEqual(cm['x-kubernetes-group-version-kind'], [{ group: '', kind: 'ConfigMap', version: 'v1' }]);
  assert.equal(cm.properties.metadata.$ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
  assert.equal(v2.definitions['io.k8s.api.apps.v1.DeploymentSpec'].properties.strategy.default, undefined, 'v2 publishes no defaults');
  assert.equal(v2.definitions['io.k8s.api.core.v1.LimitRangeItem'].properties.default.type, 'object', 'a field named default stays');
});
