/**
 * The whole built-in API of a v1.32 kube-apiserver (resources.ts, the registry strategies of the
 * resources added with it) and the objects kube-apiserver writes at start (bootstrap/bootstrap.ts).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer, type ApiServer } from '../src/testing/index.ts';
import { apiModel } from '../src/apiserver/api-model.ts';
import { call, create, pod, type Json } from './apiserver-helpers.ts';

let server: ApiServer;
before(async () => {
  server = await startApiServer();
});
after(async () => {
  await server.stop();
});

const tableAccept = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
const protobuf = { accept: 'application/vnd.kubernetes.protobuf' };

// What a v1.32 kube-apiserver enables by default: every GA version of the model that v1.32 has (the
// model is v1.34's: ServiceCIDRs, IPAddresses, VolumeAttributesClasses and resource.k8s.io/v1 went GA later).
const newerThanV132 = new Set(['networking.k8s.io/v1/ipaddresses', 'networking.k8s.io/v1/servicecidrs', 'storage.k8s.io/v1/volumeattributesclasses', 'resource.k8s.io/v1']);

test('every GA resource of the model that v1.32 serves is in discovery, with the model\'s kind, scope and verbs', async () => {
  const missing: string[] = [];
  for (const gv of apiModel.groupVersions) {
    if (!/^v\d+$/.test(gv.version) || newerThanV132.has(`${gv.group}/${gv.version}`)) continue;
    const path = gv.group === '' ? `/api/${gv.version}` : `/apis/${gv.group}/${gv.version}`;
    const r = await call(server, 'GET', path);
    const served = new Map<string, Json>((r.body?.resources ?? []).map((x: Json) => [x.name, x]));
    for (const res of gv.resources) {
      if (newerThanV132.has(`${gv.group}/${gv.version}/${res.name}`)) continue;
      const entry = served.get(res.name);
      if (entry === undefined) {
        missing.push(`${path}/${res.name}`);
        continue;
      }
      assert.equal(entry.kind, res.kind, res.name);
      assert.equal(entry.namespaced, res.namespaced, res.name);
      assert.deepEqual(entry.verbs, res.verbs, res.name);
    }
  }
  assert.deepEqual(missing, []);
});

test('the resources added with the whole API list in JSON, protobuf and Table', async () => {
  const paths = [
    '/apis/storage.k8s.io/v1/storageclasses',
    '/apis/storage.k8s.io/v1/csidrivers',
    '/apis/storage.k8s.io/v1/csinodes',
    '/apis/storage.k8s.io/v1/csistoragecapacities',
    '/apis/storage.k8s.io/v1/volumeattachments',
    '/apis/discovery.k8s.io/v1/endpointslices',
    '/apis/node.k8s.io/v1/runtimeclasses',
    '/apis/apiregistration.k8s.io/v1/apiservices',
    '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas',
    '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations',
    '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies',
    '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings',
  ];
  for (const p of paths) {
    const json = await call(server, 'GET', p);
    assert.equal(json.status, 200, p);
    const pb = await fetch(server.url + p, { headers: protobuf });
    assert.equal(pb.status, 200, p);
    assert.equal(pb.headers.get('content-type'), 'application/vnd.kubernetes.protobuf', p);
    const table = await call(server, 'GET', p, { headers: tableAccept });
    assert.equal(table.body.kind, 'Table', p);
  }
});

test('StorageClass: defaults, Table columns as printers.go, and the fields an update may not change', async () => {
  const path = '/apis/storage.k8s.io/v1/storageclasses';
  const sc = await create(server, path, { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fast', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } }, provisioner: 'example.com/disk', parameters: { type: 'ssd' } });
  assert.equal(sc.reclaimPolicy, 'Delete');
  assert.equal(sc.volumeBindingMode, 'Immediate');
  const table = await call(server, 'GET', `${path}/fast`, { headers: tableAccept });
  assert.deepEqual(
    table.body.columnDefinitions.map((c: Json) => c.name),
    ['Name', 'Provisioner', 'ReclaimPolicy', 'VolumeBindingMode', 'AllowVolumeExpansion', 'Age'],
  );
  assert.deepEqual(table.body.rows[0].cells.slice(0, 5), ['fast (default)', 'example.com/disk', 'Delete', 'Immediate', false]);
  const r = await call(server, 'PUT', `${path}/fast`, { body: { ...sc, parameters: { type: 'hdd' }, reclaimPolicy: 'Retain' } });
  assert.equal(r.status, 422);
  assert.deepEqual(
    r.body.details.causes.map((c: Json) => `${c.field}: ${c.message}`),
    ['parameters: Forbidden: updates to parameters are forbidden.', 'reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.'],
  );
  const bad = await call(server, 'POST', path, { body: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'x' }, provisioner: '', volumeBindingMode: 'Later' } });
  assert.equal(bad.status, 422);
  assert.deepEqual(
    bad.body.details.causes.map((c: Json) => c.field),
    ['provisioner', 'volumeBindingMode'],
  );
});

test('CSIDriver defaults as SetDefaults_CSIDriver; EndpointSlice generation follows every change but metadata', async () => {
  const driver = await create(server, '/apis/storage.k8s.io/v1/csidrivers', { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: 'csi.example.com' }, spec: {} });
  assert.deepEqual(driver.spec, { attachRequired: true, podInfoOnMount: false, volumeLifecycleModes: ['Persistent'], storageCapacity: false, fsGroupPolicy: 'ReadWriteOnceWithFSType', requiresRepublish: false, seLinuxMount: false });
  const path = '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices';
  const slice = await create(server, path, { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'web-abc' }, addressType: 'IPv4', endpoints: [], ports: [{ port: 80 }] });
  assert.equal(slice.metadata.generation, 1);
  assert.deepEqual(slice.ports, [{ name: '', protocol: 'TCP', port: 80 }]);
  const moved = await call(server, 'PUT', `${path}/web-abc`, { body: { ...slice, endpoints: [{ addresses: ['10.0.0.1'] }] } });
  assert.equal(moved.body.metadata.generation, 2);
  const labelled = await call(server, 'PUT', `${path}/web-abc`, { body: { ...moved.body, metadata: { ...moved.body.metadata, labels: { a: 'b' } } } });
  assert.equal(labelled.body.metadata.generation, 2);
  const retyped = await call(server, 'PUT', `${path}/web-abc`, { body: { ...labelled.body, addressType: 'IPv6' } });
  assert.equal(retyped.status, 422);
  assert.match(retyped.body.message, /addressType: Invalid value: "IPv6": field is immutable/);
});

test('kube-apiserver\'s start-time objects: the kubernetes Service with its Endpoints and EndpointSlice, configmaps, APIServices, APF configuration', async () => {
  const port = Number(new URL(server.url).port);
  const svc = (await call(server, 'GET', '/api/v1/namespaces/default/services/kubernetes')).body;
  assert.equal(svc.spec.clusterIP, '10.96.0.1');
  assert.deepEqual(svc.spec.ports, [{ name: 'https', protocol: 'TCP', port: 443, targetPort: port }]);
  assert.deepEqual(svc.metadata.labels, { component: 'apiserver', provider: 'kubernetes' });
  const ep = (await call(server, 'GET', '/api/v1/namespaces/default/endpoints/kubernetes')).body;
  assert.deepEqual(ep.subsets, [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port, protocol: 'TCP' }] }]);
  const slice = (await call(server, 'GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes')).body;
  assert.deepEqual([slice.addressType, slice.endpoints, slice.metadata.labels], ['IPv4', [{ addresses: ['127.0.0.1'], conditions: { ready: true } }], { 'kubernetes.io/service-name': 'kubernetes' }]);
  const cms = (await call(server, 'GET', '/api/v1/namespaces/kube-system/configmaps')).body.items.map((c: Json) => c.metadata.name);
  assert.deepEqual(cms, ['extension-apiserver-authentication', 'kube-apiserver-legacy-service-account-token-tracking']);
  const apps = (await call(server, 'GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.apps')).body;
  assert.deepEqual(apps.spec, { group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 });
  assert.equal(apps.status.conditions[0].reason, 'Local');
  const core = (await call(server, 'GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.')).body;
  assert.deepEqual(core.spec, { version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 });
  const fs = (await call(server, 'GET', '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas')).body.items;
  assert.equal(fs.length, 13);
  const exempt = fs.find((x: Json) => x.metadata.name === 'exempt');
  assert.deepEqual([exempt.spec.matchingPrecedence, exempt.status.conditions[0].type, exempt.status.conditions[0].status], [1, 'Dangling', 'False']);
  const levels = (await call(server, 'GET', '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations', { headers: tableAccept })).body;
  assert.deepEqual(
    levels.rows.map((r: Json) => r.cells.slice(0, 3).join(' ')),
    ['catch-all Limited 5', 'exempt Exempt <none>', 'global-default Limited 20', 'leader-election Limited 10', 'node-high Limited 40', 'system Limited 30', 'workload-high Limited 40', 'workload-low Limited 100'],
  );
  const classes = (await call(server, 'GET', '/apis/scheduling.k8s.io/v1/priorityclasses')).body.items.map((c: Json) => `${c.metadata.name}=${c.value}`);
  assert.deepEqual(classes, ['system-cluster-critical=2000000000', 'system-node-critical=2000001000']);
});

test('componentstatuses are computed, read-only and carry the deprecation warning', async () => {
  const r = await call(server, 'GET', '/api/v1/componentstatuses');
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('warning'), '299 - "v1 ComponentStatus is deprecated in v1.19+"');
  assert.deepEqual(r.body.items.map((c: Json) => c.metadata.name), ['scheduler', 'controller-manager', 'etcd-0']);
  const one = await call(server, 'GET', '/api/v1/componentstatuses/etcd-0', { headers: tableAccept });
  assert.deepEqual(one.body.rows[0].cells, ['etcd-0', 'Healthy', '{"health":"true"}', '']);
  assert.equal((await call(server, 'GET', '/api/v1/componentstatuses/nope')).status, 404);
  assert.equal((await call(server, 'POST', '/api/v1/componentstatuses', { body: {} })).status, 405);
});

test('POST bindings binds the pod its metadata names; SelfSubjectReview answers who is asking', async () => {
  await create(server, '/api/v1/namespaces/default/pods', pod('to-bind'));
  const r = await call(server, 'POST', '/api/v1/namespaces/default/bindings', { body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'to-bind' }, target: { kind: 'Node', name: 'n1' } } });
  assert.equal(r.status, 201);
  assert.equal((await call(server, 'GET', '/api/v1/namespaces/default/pods/to-bind')).body.spec.nodeName, 'n1');
  const who = await call(server, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
  assert.equal(who.status, 201);
  assert.equal(who.body.status.userInfo.username, 'system:anonymous');
});
