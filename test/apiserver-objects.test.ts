import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../src/util/clock/index.ts';
import { startApiServer, type ApiServer } from '../src/testing/index.ts';
import { call, create, pod, configMap, type Json } from './apiserver-helpers.ts';

let server: ApiServer;
const clock = new FakeClock(Date.parse('2024-05-01T10:00:00Z'));
before(async () => {
  server = await startApiServer({ clock });
});
after(async () => {
  await server.stop();
});

const cms = '/api/v1/namespaces/default/configmaps';

test('namespaces default, kube-system and kube-public exist at start', async () => {
  const r = await call(server, 'GET', '/api/v1/namespaces');
  const names = r.body.items.map((n: Json) => n.metadata.name);
  for (const n of ['default', 'kube-system', 'kube-public']) assert.ok(names.includes(n), n);
  assert.equal(r.body.items[0].status.phase, 'Active');
});

test('create assigns uid, creationTimestamp and the next global resourceVersion', async () => {
  const before = server.revision();
  const created = await create(server, cms, configMap('lifecycle-a', { k: 'v' }));
  assert.match(created.metadata.uid, /^[0-9a-f-]{36}$/);
  assert.equal(created.metadata.creationTimestamp, '2024-05-01T10:00:00Z');
  assert.equal(created.metadata.resourceVersion, String(before + 1));
  assert.equal(created.metadata.namespace, 'default');
  assert.equal(created.apiVersion, 'v1');
  assert.equal(created.kind, 'ConfigMap');
  assert.equal(server.revision(), before + 1);
  const got = await call(server, 'GET', `${cms}/lifecycle-a`);
  assert.deepEqual(got.body, created);
  // Another resource shares the same revision counter, like etcd's.
  const other = await create(server, '/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' } });
  assert.equal(other.metadata.resourceVersion, String(before + 2));
});

test('generateName appends five random characters', async () => {
  const created = await create(server, cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } });
  assert.match(created.metadata.name, /^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
});

test('empty metadata collections are dropped on write, as ObjectMeta encodes them (omitempty)', async () => {
  const created = await create(server, cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'empty-meta', labels: {}, annotations: {}, finalizers: ['x.io/hold'], ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'u1' }] } });
  assert.deepEqual([created.metadata.labels, created.metadata.annotations, created.metadata.finalizers], [undefined, undefined, ['x.io/hold']]);
  const patched = await call(server, 'PATCH', `${cms}/empty-meta`, { body: { metadata: { finalizers: [], ownerReferences: [], labels: null } }, contentType: 'application/merge-patch+json' });
  assert.equal(patched.status, 200);
  assert.deepEqual(Object.keys(patched.body.metadata).filter((k) => ['labels', 'annotations', 'finalizers', 'ownerReferences'].includes(k)), []);
  await call(server, 'DELETE', `${cms}/empty-meta`);
});

test('POST of an existing name is 409 AlreadyExists with details', async () => {
  await create(server, cms, configMap('dup'));
  const r = await call(server, 'POST', cms, { body: configMap('dup') });
  assert.equal(r.status, 409);
  assert.deepEqual(r.body, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'configmaps "dup" already exists',
    reason: 'AlreadyExists',
    details: { name: 'dup', kind: 'configmaps' },
    code: 409,
  });
});

test('PUT with a stale resourceVersion is 409 Conflict; with the current one it updates', async () => {
  const created = await create(server, cms, configMap('cas', { n: '1' }));
  const ok = await call(server, 'PUT', `${cms}/cas`, { body: { ...created, data: { n: '2' } } });
  assert.equal(ok.status, 200);
  assert.equal(ok.body.data.n, '2');
  assert.ok(Number(ok.body.metadata.resourceVersion) > Number(created.metadata.resourceVersion));
  const stale = await call(server, 'PUT', `${cms}/cas`, { body: { ...created, data: { n: '3' } } });
  assert.equal(stale.status, 409);
  assert.equal(stale.body.reason, 'Conflict');
  assert.equal(stale.body.message, 'Operation cannot be fulfilled on configmaps "cas": the object has been modified; please apply your changes to the latest version and try again');
  // Without a resourceVersion the update is unconditional.
  const { resourceVersion: _rv, ...meta } = created.metadata;
  const unconditional = await call(server, 'PUT', `${cms}/cas`, { body: { ...created, metadata: meta, data: { n: '4' } } });
  assert.equal(unconditional.status, 200);
  assert.equal(unconditional.body.metadata.uid, created.metadata.uid);
});

test('an update that changes nothing keeps the resourceVersion', async () => {
  const created = await create(server, cms, configMap('noop', { a: 'b' }));
  const r = await call(server, 'PUT', `${cms}/noop`, { body: created });
  assert.equal(r.status, 200);
  assert.equal(r.body.metadata.resourceVersion, created.metadata.resourceVersion);
});

test('missing objects and missing namespaces are 404 NotFound', async () => {
  const r = await call(server, 'GET', `${cms}/nope`);
  assert.equal(r.status, 404);
  assert.equal(r.body.message, 'configmaps "nope" not found');
  assert.deepEqual(r.body.details, { name: 'nope', kind: 'configmaps' });
  const apps = await call(server, 'GET', '/apis/apps/v1/namespaces/default/deployments/nope');
  assert.equal(apps.body.message, 'deployments.apps "nope" not found');
  assert.deepEqual(apps.body.details, { name: 'nope', group: 'apps', kind: 'deployments' });
  const ns = await call(server, 'POST', '/api/v1/namespaces/ghost/configmaps', { body: configMap('x') });
  assert.equal(ns.status, 404);
  assert.equal(ns.body.message, 'namespaces "ghost" not found');
  assert.equal((await call(server, 'PUT', `${cms}/nope`, { body: configMap('nope') })).status, 404);
  assert.equal((await call(server, 'DELETE', `${cms}/nope`)).status, 404);
});

test('malformed bodies are 400, a missing name is 422 Invalid with causes', async () => {
  const bad = await call(server, 'POST', cms, { raw: '{"apiVersion": "v1", "kind": ' });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.reason, 'BadRequest');
  // Worded as the create handler's transformDecodeError, with the body summarised to 30 bytes.
  assert.match(bad.body.message, /^the object provided is unrecognized \(must be of type ConfigMap\): couldn't get version\/kind; json parse error: .* \(\{"apiVersion": "v1", "kind": \)$/);
  const notObject = await call(server, 'POST', cms, { raw: '[1,2]' });
  assert.equal(notObject.status, 400);
  assert.match(notObject.body.message, /\(5b312c325d\)$/);
  const kind = await call(server, 'POST', cms, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } } });
  assert.equal(kind.status, 400);
  assert.equal(kind.body.reason, 'BadRequest');
  assert.equal(kind.body.message, 'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion');
  const version = await call(server, 'POST', cms, { body: { apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name: 'x' } } });
  assert.equal(version.status, 400);
  const noName = await call(server, 'POST', cms, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} } });
  assert.equal(noName.status, 422);
  assert.equal(noName.body.reason, 'Invalid');
  assert.equal(noName.body.message, 'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required');
  assert.deepEqual(noName.body.details.causes, [{ reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' }]);
  const badName = await call(server, 'POST', cms, { body: configMap('Not_Valid') });
  assert.equal(badName.status, 422);
  assert.equal(badName.body.details.causes[0].field, 'metadata.name');
  await create(server, cms, configMap('renamed'));
  const mismatch = await call(server, 'PUT', `${cms}/renamed`, { body: configMap('other') });
  assert.equal(mismatch.status, 400);
  assert.equal(mismatch.body.message, 'the name of the object (other) does not match the name on the URL (renamed)');
  const wrongNs = await call(server, 'POST', cms, { body: { ...configMap('y'), metadata: { name: 'y', namespace: 'kube-system' } } });
  assert.equal(wrongNs.status, 400);
  // Storage is intact after all of that.
  assert.equal((await call(server, 'GET', `${cms}/renamed`)).status, 200);
});

test('wrong content types are 415, oversized bodies 413, unsupported verbs 405', async () => {
  const ct = await call(server, 'POST', cms, { raw: 'x', contentType: 'text/plain' });
  assert.equal(ct.status, 415);
  assert.equal(ct.body.reason, 'UnsupportedMediaType');
  const big = await call(server, 'POST', cms, { body: configMap('big', { blob: 'x'.repeat(3 * 1024 * 1024) }) });
  assert.equal(big.status, 413);
  assert.equal(big.body.reason, 'RequestEntityTooLarge');
  assert.equal((await call(server, 'PUT', cms, { body: configMap('x') })).status, 405);
  assert.equal((await call(server, 'POST', `${cms}/x`, { body: configMap('x') })).status, 405);
  const ns = await call(server, 'DELETE', '/api/v1/namespaces');
  assert.equal(ns.status, 405);
  assert.equal(ns.body.reason, 'MethodNotAllowed');
  assert.equal((await call(server, 'OPTIONS', cms)).status, 405);
  assert.equal((await call(server, 'GET', '/api/v1/namespaces/default/widgets')).status, 404);
  assert.equal((await call(server, 'GET', '/api/v1/namespaces/default/configmaps/x/status')).status, 404);
  assert.equal((await call(server, 'GET', '/api/v1/namespaces/default/configmaps/%E0%A4%A')).status, 400);
  // The server is still fine.
  assert.equal((await call(server, 'GET', '/version')).status, 200);
});

test('YAML bodies are accepted for create', async () => {
  const r = await call(server, 'POST', cms, { raw: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  a: b\n', contentType: 'application/yaml' });
  assert.equal(r.status, 201);
  assert.equal(r.body.data.a, 'b');
});

test('generation starts at 1 and is bumped by spec changes only', async () => {
  const deploy = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'gen' },
    spec: { replicas: 1, selector: { matchLabels: { app: 'gen' } }, template: { metadata: { labels: { app: 'gen' } }, spec: { containers: [{ name: 'c', image: 'a' }] } } },
  };
  const path = '/apis/apps/v1/namespaces/default/deployments';
  const created = await create(server, path, deploy);
  assert.equal(created.metadata.generation, 1);
  const labelled = await call(server, 'PUT', `${path}/gen`, { body: { ...created, metadata: { ...created.metadata, labels: { x: 'y' } } } });
  assert.equal(labelled.body.metadata.generation, 1);
  const scaled = await call(server, 'PUT', `${path}/gen`, { body: { ...labelled.body, spec: { ...labelled.body.spec, replicas: 3 } } });
  assert.equal(scaled.body.metadata.generation, 2);
});

test('the status subresource changes only status; the main resource ignores status', async () => {
  const path = '/apis/apps/v1/namespaces/default/deployments';
  const created = await create(server, path, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'st' },
    spec: { replicas: 1, selector: { matchLabels: { app: 'st' } }, template: { metadata: { labels: { app: 'st' } }, spec: { containers: [{ name: 'c', image: 'a' }] } } },
  });
  const viaStatus = await call(server, 'PUT', `${path}/st/status`, {
    body: { ...created, metadata: { ...created.metadata, labels: { ignored: 'yes' } }, spec: { ...created.spec, replicas: 9 }, status: { readyReplicas: 1 } },
  });
  assert.equal(viaStatus.status, 200);
  assert.deepEqual(viaStatus.body.status, { readyReplicas: 1 });
  assert.equal(viaStatus.body.spec.replicas, 1);
  assert.equal(viaStatus.body.metadata.labels, undefined);
  assert.equal(viaStatus.body.metadata.generation, 1);
  const viaMain = await call(server, 'PUT', `${path}/st`, { body: { ...viaStatus.body, status: { readyReplicas: 5 } } });
  assert.deepEqual(viaMain.body.status, { readyReplicas: 1 });
  const patched = await call(server, 'PATCH', `${path}/st/status`, { body: { status: { availableReplicas: 1 }, spec: { replicas: 4 } }, contentType: 'application/merge-patch+json' });
  assert.equal(patched.status, 200);
  assert.deepEqual(patched.body.status, { readyReplicas: 1, availableReplicas: 1 });
  assert.equal(patched.body.spec.replicas, 1);
});

test('dryRun=All validates and answers without storing', async () => {
  const before = server.revision();
  const r = await call(server, 'POST', `${cms}?dryRun=All`, { body: configMap('dry') });
  assert.equal(r.status, 201);
  assert.equal(r.body.metadata.name, 'dry');
  assert.equal(server.revision(), before);
  assert.equal((await call(server, 'GET', `${cms}/dry`)).status, 404);
  const bad = await call(server, 'POST', `${cms}?dryRun=Some`, { body: configMap('dry') });
  assert.equal(bad.status, 400);
});

test('cluster-scoped objects live outside namespaces', async () => {
  const created = await create(server, '/apis/rbac.authorization.k8s.io/v1/clusterroles', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'system:reader', namespace: 'ignored' }, rules: [] });
  assert.equal(created.metadata.namespace, undefined);
  assert.equal((await call(server, 'GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/system:reader')).status, 200);
  // A namespaced path for a cluster-scoped resource does not exist.
  assert.equal((await call(server, 'GET', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/clusterroles')).status, 404);
});

test('creationTimestamp follows the injected clock; pods get phase Pending', async () => {
  await clock.step(90_000);
  const p = await create(server, '/api/v1/namespaces/default/pods', pod('clocked'));
  assert.equal(p.metadata.creationTimestamp, '2024-05-01T10:01:30Z');
  assert.equal(p.status.phase, 'Pending');
});

test('pod logs are served, tailed and followed', async () => {
  await create(server, '/api/v1/namespaces/default/pods', pod('logger'));
  server.setPodLogs('default', 'logger', ['one', 'two', 'three']);
  const all = await call(server, 'GET', '/api/v1/namespaces/default/pods/logger/log');
  assert.equal(all.text, 'one\ntwo\nthree\n');
  const tail = await call(server, 'GET', '/api/v1/namespaces/default/pods/logger/log?tailLines=1');
  assert.equal(tail.text, 'three\n');
  const none = await call(server, 'GET', '/api/v1/namespaces/default/pods/nobody/log');
  assert.equal(none.status, 404);
  const res = await fetch(`${server.url}/api/v1/namespaces/default/pods/logger/log?follow=true`);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.endsWith('three\n')) text += decoder.decode((await reader.read()).value);
  server.appendPodLogs('default', 'logger', ['four']);
  while (!text.endsWith('four\n')) text += decoder.decode((await reader.read()).value);
  assert.equal(text, 'one\ntwo\nthree\nfour\n');
  await reader.cancel();
});

test('Table and PartialObjectMetadata renderings', async () => {
  await create(server, cms, configMap('tabled', { a: '1', b: '2' }));
  const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
  const t = await call(server, 'GET', `${cms}?fieldSelector=metadata.name%3Dtabled`, { headers: { accept } });
  assert.equal(t.body.kind, 'Table');
  assert.equal(t.body.apiVersion, 'meta.k8s.io/v1');
  assert.deepEqual(
    t.body.columnDefinitions.map((c: Json) => c.name),
    ['Name', 'Data', 'Age'],
  );
  assert.deepEqual(t.body.rows[0].cells.slice(0, 2), ['tabled', 2]);
  assert.equal(t.body.rows[0].object.kind, 'PartialObjectMetadata');
  const m = await call(server, 'GET', `${cms}/tabled`, { headers: { accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1' } });
  assert.deepEqual(Object.keys(m.body).sort(), ['apiVersion', 'kind', 'metadata']);
  assert.equal(m.body.kind, 'PartialObjectMetadata');
  const ml = await call(server, 'GET', `${cms}?limit=1`, { headers: { accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1' } });
  assert.equal(ml.body.kind, 'PartialObjectMetadataList');
  assert.equal(ml.body.items[0].kind, 'PartialObjectMetadata');
  // Protobuf is not spoken: JSON is the answer.
  const pb = await call(server, 'GET', `${cms}/tabled`, { headers: { accept: 'application/vnd.kubernetes.protobuf,application/json' } });
  assert.equal(pb.body.kind, 'ConfigMap');
});

test('the scale subresource reads and writes spec.replicas as an autoscaling/v1 Scale', async () => {
  const path = '/apis/apps/v1/namespaces/default/deployments';
  const created = await create(server, path, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'scaled' },
    spec: { replicas: 2, selector: { matchLabels: { app: 'scaled' } }, template: { metadata: { labels: { app: 'scaled' } }, spec: { containers: [{ name: 'c', image: 'a' }] } } },
  });
  const scale = await call(server, 'GET', `${path}/scaled/scale`);
  assert.deepEqual(scale.body, {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: 'scaled', namespace: 'default', uid: created.metadata.uid, resourceVersion: created.metadata.resourceVersion, creationTimestamp: created.metadata.creationTimestamp },
    spec: { replicas: 2 },
    status: { replicas: 0, selector: 'app=scaled' },
  });
  const patched = await call(server, 'PATCH', `${path}/scaled/scale`, { body: { spec: { replicas: 5 } }, contentType: 'application/merge-patch+json' });
  assert.equal(patched.body.spec.replicas, 5);
  const put = await call(server, 'PUT', `${path}/scaled/scale`, { body: { ...patched.body, spec: { replicas: 4 } } });
  assert.equal(put.body.spec.replicas, 4);
  const stale = await call(server, 'PUT', `${path}/scaled/scale`, { body: { ...patched.body, spec: { replicas: 1 } } });
  assert.equal(stale.status, 409);
  const negative = await call(server, 'PUT', `${path}/scaled/scale`, { body: { kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: -1 } } });
  assert.equal(negative.status, 422);
  const deploy = (await call(server, 'GET', `${path}/scaled`)).body;
  assert.equal(deploy.spec.replicas, 4);
  assert.equal(deploy.metadata.generation, 3);
  assert.equal((await call(server, 'GET', '/api/v1/namespaces/default/configmaps/x/scale')).status, 404);
});

test('Tables carry the columns and cells of kube-apiserver printers (priority 1 = -o wide)', async () => {
  const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io';
  const table = async (path: string): Promise<{ columns: string[]; wide: string[]; cells: unknown[] }> => {
    const r = await call(server, 'GET', path, { headers: { accept } });
    assert.equal(r.status, 200, r.text);
    const defs: Json[] = r.body.columnDefinitions;
    return { columns: defs.filter((c) => c.priority === 0).map((c) => c.name), wide: defs.filter((c) => c.priority === 1).map((c) => c.name), cells: r.body.rows[0].cells };
  };
  const template = { metadata: { labels: { app: 't' } }, spec: { containers: [{ name: 'c', image: 'img:1' }] } };
  await create(server, '/apis/apps/v1/namespaces/default/replicasets', { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs-t' }, spec: { replicas: 3, selector: { matchLabels: { app: 't' } }, template } });
  await create(server, '/apis/batch/v1/namespaces/default/jobs', { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'job-t' }, spec: { completions: 2, template } });
  await create(server, '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-t', labels: { 'node-role.kubernetes.io/control-plane': '' } } });
  await call(server, 'PATCH', '/api/v1/nodes/node-t/status', {
    contentType: 'application/merge-patch+json',
    body: { status: { conditions: [{ type: 'Ready', status: 'True' }], nodeInfo: { kubeletVersion: 'v1.32.0' }, addresses: [{ type: 'InternalIP', address: '10.0.0.5' }] } },
  });
  await create(server, '/api/v1/namespaces/default/events', {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'ev-t' },
    involvedObject: { kind: 'Pod', name: 'web' },
    reason: 'Pulled',
    type: 'Normal',
    message: ' pulled ',
    count: 3,
    firstTimestamp: new Date(clock.now() - 3_600_000).toISOString(),
    lastTimestamp: new Date(clock.now() - 120_000).toISOString(),
    source: { component: 'kubelet', host: 'node-t' },
  });
  await create(server, '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'role-t' }, rules: [] });
  const cases: [string, string[], string[], unknown[]][] = [
    ['/apis/apps/v1/namespaces/default/replicasets', ['Name', 'Desired', 'Current', 'Ready', 'Age'], ['Containers', 'Images', 'Selector'], ['rs-t', 3, 0, 0, '0s', 'c', 'img:1', 'app=t']],
    ['/apis/batch/v1/namespaces/default/jobs', ['Name', 'Status', 'Completions', 'Duration', 'Age'], ['Containers', 'Images', 'Selector'], ['job-t', 'Running', '0/2', '', '0s', 'c', 'img:1']],
    ['/api/v1/nodes', ['Name', 'Status', 'Roles', 'Age', 'Version'], ['Internal-IP', 'External-IP', 'OS-Image', 'Kernel-Version', 'Container-Runtime'], ['node-t', 'Ready', 'control-plane', '0s', 'v1.32.0', '10.0.0.5', '<none>', '<unknown>', '<unknown>', '<unknown>']],
    ['/api/v1/namespaces/default/events', ['Last Seen', 'Type', 'Reason', 'Object', 'Message'], ['Subobject', 'Source', 'First Seen', 'Count', 'Name'], ['2m', 'Normal', 'Pulled', 'pod/web', '', 'kubelet, node-t', 'pulled', '60m', 3, 'ev-t']],
    ['/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', ['Name', 'Created At'], [], ['role-t', new Date(clock.now()).toISOString().replace('.000Z', 'Z')]],
  ];
  for (const [path, columns, wide, cells] of cases) {
    const t = await table(path);
    assert.deepEqual(t.columns, columns, path);
    assert.deepEqual(t.wide, wide, path);
    assert.deepEqual(t.cells.slice(0, cells.length), cells, path);
  }
});

test('Services get a cluster IP, protocols, target ports and node ports; an update that omits them keeps them; Jobs get a generated selector', async () => {
  const svcs = '/api/v1/namespaces/default/services';
  const svc = await create(server, svcs, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc-d' }, spec: { type: 'NodePort', selector: { app: 'x' }, ports: [{ port: 80 }] } });
  assert.match(svc.spec.clusterIP, /^10\.96\.\d+\.\d+$/);
  assert.deepEqual(svc.spec.clusterIPs, [svc.spec.clusterIP]);
  assert.deepEqual(svc.spec.ports, [{ port: 80, protocol: 'TCP', targetPort: 80, nodePort: svc.spec.ports[0].nodePort }]);
  assert.ok(svc.spec.ports[0].nodePort >= 30000 && svc.spec.ports[0].nodePort <= 32767);
  assert.equal(svc.spec.sessionAffinity, 'None');
  assert.deepEqual(svc.spec.ipFamilies, ['IPv4']);
  assert.deepEqual(svc.status, { loadBalancer: {} });
  const { clusterIP: _ip, clusterIPs: _ips, ...specWithoutIp } = svc.spec;
  const put = await call(server, 'PUT', `${svcs}/svc-d`, { body: { ...svc, spec: { ...specWithoutIp, ports: [{ port: 80 }] } } });
  assert.equal(put.status, 200, put.text);
  assert.equal(put.body.spec.clusterIP, svc.spec.clusterIP);
  assert.equal(put.body.spec.ports[0].nodePort, svc.spec.ports[0].nodePort);
  // Nothing but defaults was left out: the update is a no-op.
  assert.equal(put.body.metadata.resourceVersion, svc.metadata.resourceVersion);
  const other = await create(server, svcs, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc-e' }, spec: { ports: [{ port: 81 }] } });
  assert.notEqual(other.spec.clusterIP, svc.spec.clusterIP);
  const job = await create(server, '/apis/batch/v1/namespaces/default/jobs', {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'job-d' },
    spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'x' }] } } },
  });
  assert.deepEqual([job.spec.completions, job.spec.parallelism, job.spec.backoffLimit, job.spec.completionMode], [1, 1, 6, 'NonIndexed']);
  assert.deepEqual(job.spec.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': job.metadata.uid } });
  assert.equal(job.spec.template.metadata.labels['batch.kubernetes.io/job-name'], 'job-d');
});

test('pods start Pending with their QoS class and, as in v1.32, without metadata.generation', async () => {
  const pods = '/api/v1/namespaces/default/pods';
  const best = await create(server, pods, pod('qos-best'));
  assert.deepEqual(best.status, { phase: 'Pending', qosClass: 'BestEffort' });
  assert.equal(best.metadata.generation, undefined);
  const limits = { cpu: '100m', memory: '64Mi' };
  const guaranteed = await create(server, pods, pod('qos-guaranteed', { spec: { containers: [{ name: 'c', image: 'x', resources: { limits } }] } }));
  assert.equal(guaranteed.status.qosClass, 'Guaranteed');
  const burstable = await create(server, pods, pod('qos-burstable', { spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '50m' } } }] } }));
  assert.equal(burstable.status.qosClass, 'Burstable');
  // A finished pod's Table row carries printPod's Completed condition.
  await call(server, 'PATCH', `${pods}/qos-best/status`, { contentType: 'application/merge-patch+json', body: { status: { phase: 'Succeeded' } } });
  const t = await call(server, 'GET', `${pods}?fieldSelector=metadata.name%3Dqos-best`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
  assert.deepEqual(t.body.rows[0].conditions, [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }]);
  assert.equal(t.body.rows[0].cells[2], 'Succeeded');
});

test('pod specs and workload templates get SetDefaults_PodSpec/Container; deployments their strategy; an update that omits defaults changes nothing', async () => {
  const p = await create(server, '/api/v1/namespaces/default/pods', pod('defaulted', { spec: { containers: [{ name: 'a', image: 'nginx', ports: [{ containerPort: 80 }] }, { name: 'b', image: 'nginx:1.27', resources: { limits: { cpu: '1' } } }] } }));
  assert.deepEqual(
    [p.spec.restartPolicy, p.spec.dnsPolicy, p.spec.terminationGracePeriodSeconds, p.spec.schedulerName, p.spec.enableServiceLinks, p.spec.securityContext],
    ['Always', 'ClusterFirst', 30, 'default-scheduler', true, {}],
  );
  assert.deepEqual(p.spec.containers[0], { name: 'a', image: 'nginx', ports: [{ containerPort: 80, protocol: 'TCP' }], terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'Always', resources: {} });
  assert.equal(p.spec.containers[1].imagePullPolicy, 'IfNotPresent');
  assert.deepEqual(p.spec.containers[1].resources, { limits: { cpu: '1' }, requests: { cpu: '1' } });
  const deploys = '/apis/apps/v1/namespaces/default/deployments';
  const sent = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'defaulted' },
    spec: { selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'img:1' }] } } },
  };
  const d = await create(server, deploys, sent);
  assert.deepEqual(d.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
  assert.deepEqual([d.spec.replicas, d.spec.revisionHistoryLimit, d.spec.progressDeadlineSeconds], [1, 10, 600]);
  assert.equal(d.spec.template.spec.containers[0].imagePullPolicy, 'IfNotPresent');
  const again = await call(server, 'PUT', `${deploys}/defaulted`, { body: { ...sent, metadata: { ...sent.metadata, resourceVersion: d.metadata.resourceVersion } } });
  assert.equal(again.status, 200);
  assert.equal(again.body.metadata.resourceVersion, d.metadata.resourceVersion);
  assert.equal(again.body.metadata.generation, 1);
});

test('PUT of a missing object creates it where the strategy allows create-on-update (leases, endpoints, events, RBAC), else 404', async () => {
  const leases = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
  const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'put-created' }, spec: { holderIdentity: 'me' } };
  const r = await call(server, 'PUT', `${leases}/put-created`, { body: lease });
  assert.equal(r.status, 201);
  assert.equal(r.body.spec.holderIdentity, 'me');
  assert.match(r.body.metadata.uid, /^[0-9a-f-]{36}$/);
  assert.equal((await call(server, 'PUT', `${cms}/put-missing`, { body: configMap('put-missing') })).status, 404);
});
