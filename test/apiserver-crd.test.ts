import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer, type ApiServer } from '../src/testing/index.ts';
import { call, create, watch, type Json } from './apiserver-helpers.ts';

async function withServer(fn: (s: ApiServer) => Promise<void>): Promise<void> {
  const s = await startApiServer();
  try {
    await fn(s);
  } finally {
    await s.stop();
  }
}

const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

function widgetCrd(scope: 'Namespaced' | 'Cluster' = 'Namespaced'): Json {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope,
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'], categories: ['all'] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          subresources: { status: {} },
          additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
        },
        { name: 'v1beta1', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
        { name: 'v1alpha1', served: false, storage: false, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
      ],
    },
  };
}

function widget(name: string, version = 'v1'): Json {
  return { apiVersion: `example.com/${version}`, kind: 'Widget', metadata: { name }, spec: { size: 1 } };
}

const widgets = '/apis/example.com/v1/namespaces/default/widgets';

test('creating a CRD serves its resource in every served version and updates discovery', async () => {
  await withServer(async (s) => {
    assert.equal((await call(s, 'GET', widgets)).status, 404);
    const crd = await create(s, crds, widgetCrd());
    const established = crd.status.conditions.find((c: Json) => c.type === 'Established');
    assert.equal(established.status, 'True');
    assert.deepEqual(crd.status.storedVersions, ['v1']);
    const groups = (await call(s, 'GET', '/apis')).body.groups;
    const group = groups.find((g: Json) => g.name === 'example.com');
    assert.deepEqual(
      group.versions.map((v: Json) => v.version),
      ['v1', 'v1beta1'],
    );
    assert.equal(group.preferredVersion.version, 'v1');
    const v1 = (await call(s, 'GET', '/apis/example.com/v1')).body;
    assert.deepEqual(
      v1.resources.map((r: Json) => r.name),
      ['widgets', 'widgets/status'],
    );
    assert.deepEqual([v1.resources[0].kind, v1.resources[0].namespaced, v1.resources[0].singularName, v1.resources[0].shortNames], ['Widget', true, 'widget', ['wd']]);
    const beta = (await call(s, 'GET', '/apis/example.com/v1beta1')).body;
    assert.deepEqual(
      beta.resources.map((r: Json) => r.name),
      ['widgets'],
    );
    assert.equal((await call(s, 'GET', '/apis/example.com/v1alpha1')).status, 404);
  });
});

test('custom resources: CRUD, version conversion, status subresource, watch', async () => {
  await withServer(async (s) => {
    await create(s, crds, widgetCrd());
    const start = s.revision();
    const w = await watch(s, `${widgets}?watch=true&resourceVersion=${start}`);
    const created = await create(s, widgets, { ...widget('w1'), status: { ready: true } });
    assert.equal(created.metadata.generation, 1);
    assert.equal(created.status, undefined, 'status is ignored on create when the status subresource is enabled');
    const viaBeta = await call(s, 'GET', '/apis/example.com/v1beta1/namespaces/default/widgets/w1');
    assert.equal(viaBeta.body.apiVersion, 'example.com/v1beta1');
    assert.equal(viaBeta.body.metadata.uid, created.metadata.uid);
    const betaList = await call(s, 'GET', '/apis/example.com/v1beta1/namespaces/default/widgets');
    assert.equal(betaList.body.kind, 'WidgetList');
    assert.equal(betaList.body.items[0].apiVersion, 'example.com/v1beta1');
    const status = await call(s, 'PUT', `${widgets}/w1/status`, { body: { ...created, spec: { size: 5 }, status: { ready: true } } });
    assert.deepEqual(status.body.status, { ready: true });
    assert.deepEqual(status.body.spec, { size: 1 });
    const resized = await call(s, 'PUT', `${widgets}/w1`, { body: { ...status.body, spec: { size: 2 } } });
    assert.equal(resized.body.metadata.generation, 2);
    assert.deepEqual(resized.body.status, { ready: true });
    // kube-apiserver decodes any kind into the unstructured object; the CR strategy's validation refuses it.
    const wrongKind = await call(s, 'POST', widgets, { body: { ...widget('w2'), kind: 'Gadget' } });
    assert.equal(wrongKind.status, 422);
    const events = [await w.next(), await w.next(), await w.next()];
    assert.deepEqual(
      events.map((e: Json) => `${e.type} ${e.object.apiVersion}`),
      ['ADDED example.com/v1', 'MODIFIED example.com/v1', 'MODIFIED example.com/v1'],
    );
    await w.close();
  });
});

test('strategic merge patch on a custom resource is 415, as kube-apiserver answers', async () => {
  await withServer(async (s) => {
    await create(s, crds, widgetCrd());
    await create(s, widgets, widget('w1'));
    const r = await call(s, 'PATCH', `${widgets}/w1`, { body: { spec: { size: 3 } }, contentType: 'application/strategic-merge-patch+json' });
    assert.equal(r.status, 415);
    assert.equal(r.body.reason, 'UnsupportedMediaType');
    const merge = await call(s, 'PATCH', `${widgets}/w1`, { body: { spec: { size: 3 } }, contentType: 'application/merge-patch+json' });
    assert.equal(merge.status, 200);
    assert.equal(merge.body.spec.size, 3);
  });
});

test('cluster-scoped CRDs are served without namespaces; the Table uses printer columns', async () => {
  await withServer(async (s) => {
    await create(s, crds, widgetCrd('Cluster'));
    const created = await create(s, '/apis/example.com/v1/widgets', widget('global'));
    assert.equal(created.metadata.namespace, undefined);
    assert.equal((await call(s, 'GET', widgets)).status, 404);
    const table = await call(s, 'GET', '/apis/example.com/v1/widgets', { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    assert.deepEqual(
      table.body.columnDefinitions.map((c: Json) => c.name),
      ['Name', 'Size'],
    );
    assert.deepEqual(table.body.rows[0].cells, ['global', 1]);
  });
});

test('deleting a CRD removes its objects, ends its watches and stops serving it', async () => {
  await withServer(async (s) => {
    await create(s, crds, widgetCrd());
    await create(s, widgets, widget('w1'));
    const w = await watch(s, `${widgets}?watch=true&resourceVersion=${s.revision()}`);
    const r = await call(s, 'DELETE', `${crds}/widgets.example.com`);
    assert.equal(r.status, 200);
    assert.deepEqual(await w.rest().then((x) => x.lines.map((l) => JSON.parse(l).type)), ['DELETED']);
    assert.equal((await call(s, 'GET', widgets)).status, 404);
    assert.equal((await call(s, 'GET', '/apis/example.com/v1')).status, 404);
    assert.equal((await call(s, 'GET', '/apis')).body.groups.some((g: Json) => g.name === 'example.com'), false);
    // Re-creating it starts empty.
    await create(s, crds, widgetCrd());
    assert.deepEqual((await call(s, 'GET', widgets)).body.items, []);
  });
});

test('an invalid CRD is 422 Invalid', async () => {
  await withServer(async (s) => {
    const bad = widgetCrd();
    bad.metadata.name = 'wrong.example.com';
    bad.spec.versions = [];
    const r = await call(s, 'POST', crds, { body: bad });
    assert.equal(r.status, 422);
    assert.deepEqual(
      r.body.details.causes.map((c: Json) => c.field),
      ['metadata.name', 'spec.versions'],
    );
  });
});

test('a custom resource body must carry kind and apiVersion; another kind is 422 on field kind', async () => {
  await withServer(async (s) => {
    await create(s, crds, widgetCrd());
    const widgets = '/apis/example.com/v1/namespaces/default/widgets';
    // As kube-apiserver v1.24 answers (unstructured decoding, then the CR strategy's validation).
    const noKind = await call(s, 'POST', widgets, { body: { metadata: { name: 'w' } } });
    assert.deepEqual([noKind.status, noKind.body.reason, noKind.body.message], [400, 'BadRequest', `Widget in version "v1" cannot be handled as a Widget: Object 'Kind' is missing in '{"metadata":{"name":"w"}}'`]);
    const noVersion = await call(s, 'POST', widgets, { body: { kind: 'Widget', metadata: { name: 'w' } } });
    assert.deepEqual([noVersion.status, noVersion.body.message], [400, 'the API version in the data () does not match the expected API version (example.com/v1)']);
    const other = await call(s, 'POST', widgets, { body: { apiVersion: 'example.com/v1', kind: 'Other', metadata: { name: 'w' } } });
    assert.deepEqual([other.status, other.body.message, other.body.details], [
      422,
      'Other.example.com "w" is invalid: kind: Invalid value: "Other": must be Widget',
      { name: 'w', group: 'example.com', kind: 'Other', causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "Other": must be Widget', field: 'kind' }] },
    ]);
    await create(s, widgets, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } });
    const put = await call(s, 'PUT', `${widgets}/w`, { body: { metadata: { name: 'w' } } });
    assert.equal(put.status, 400);
    // Built-in kinds take both from the URL.
    assert.equal((await call(s, 'POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'c' } } })).status, 201);
  });
});
