/**
 * The scale subresource of custom resources over HTTP, at the paths the CRD declares, with the answers
 * kube-apiserver v1.24 gave for the same requests (recorded from the real server).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../src/testing/index.ts';
import { call, create, type Json } from './apiserver-helpers.ts';

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'scalers.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'scalers', kind: 'Scaler' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {}, scale: { specReplicasPath: '.spec.count', statusReplicasPath: '.status.count', labelSelectorPath: '.status.sel' } },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', properties: { count: { type: 'integer' }, other: { type: 'string' } } }, status: { type: 'object', properties: { count: { type: 'integer' }, sel: { type: 'string' } } } },
          },
        },
      },
    ],
  },
};
const base = '/apis/example.com/v1/namespaces/default/scalers';
const scaler = (name: string, spec: Json): Json => ({ apiVersion: 'example.com/v1', kind: 'Scaler', metadata: { name }, spec });
const merge = 'application/merge-patch+json';

test('a custom resource scales through the declared spec, status and selector paths', async () => {
  const s = await startApiServer();
  try {
    await create(s, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    const s1 = await create(s, base, scaler('s1', { count: 2 }));
    const status = await call(s, 'PATCH', `${base}/s1/status`, { body: { status: { count: 1, sel: 'a=b' } }, contentType: merge });
    const meta = { name: 's1', namespace: 'default', uid: s1.metadata.uid, creationTimestamp: s1.metadata.creationTimestamp };
    const got = await call(s, 'GET', `${base}/s1/scale`);
    assert.deepEqual(got.body, { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { ...meta, resourceVersion: status.body.metadata.resourceVersion }, spec: { replicas: 2 }, status: { replicas: 1, selector: 'a=b' } });
    const patched = await call(s, 'PATCH', `${base}/s1/scale`, { body: { spec: { replicas: 5 } }, contentType: merge });
    assert.deepEqual([patched.status, patched.body.spec, patched.body.status], [200, { replicas: 5 }, { replicas: 1, selector: 'a=b' }]);
    const cr = (await call(s, 'GET', `${base}/s1`)).body;
    assert.deepEqual([cr.spec, cr.metadata.generation], [{ count: 5 }, 2]);
    // PUT without replicas writes Go's zero value; the Scale then omits spec.replicas.
    const zero = await call(s, 'PUT', `${base}/s1/scale`, { body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 's1' }, spec: {} } });
    assert.deepEqual([zero.status, zero.body.spec], [200, {}]);
    const stale = await call(s, 'PUT', `${base}/s1/scale`, { body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 's1', resourceVersion: '1' }, spec: { replicas: 3 } } });
    assert.equal(stale.body.message, 'Operation cannot be fulfilled on scalers.example.com "s1": the object has been modified; please apply your changes to the latest version and try again');
    const smp = await call(s, 'PATCH', `${base}/s1/scale`, { body: { spec: { replicas: 6 } }, contentType: 'application/strategic-merge-patch+json' });
    assert.deepEqual([smp.status, smp.body.message], [415, 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml']);
  } finally {
    await s.stop();
  }
});

test('replicas are checked by the custom resource: negative or past int32 is 422 at the declared path, also through /scale and /status', async () => {
  const s = await startApiServer();
  try {
    await create(s, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    await create(s, base, scaler('s1', { count: 2 }));
    const negative = await call(s, 'POST', base, { body: scaler('neg', { count: -3 }) });
    assert.deepEqual([negative.status, negative.body.message, negative.body.details.causes], [
      422,
      'Scaler.example.com "neg" is invalid: .spec.count: Invalid value: -3: should be a non-negative integer',
      [{ reason: 'FieldValueInvalid', message: 'Invalid value: -3: should be a non-negative integer', field: '.spec.count' }],
    ]);
    const big = await call(s, 'POST', base, { body: scaler('big', { count: 3000000000 }) });
    assert.equal(big.body.message, 'Scaler.example.com "big" is invalid: .spec.count: Invalid value: 3000000000: should be less than or equal to 2147483647');
    const viaScale = await call(s, 'PUT', `${base}/s1/scale`, { body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 's1' }, spec: { replicas: -1 } } });
    assert.equal(viaScale.body.message, 'Scaler.example.com "s1" is invalid: .spec.count: Invalid value: -1: should be a non-negative integer');
    const viaStatus = await call(s, 'PATCH', `${base}/s1/status`, { body: { status: { count: -1 } }, contentType: merge });
    assert.equal(viaStatus.body.message, 'Scaler.example.com "s1" is invalid: .status.count: Invalid value: -1: should be a non-negative integer');
  } finally {
    await s.stop();
  }
});

test('without spec replicas, GET /scale is 500 and a patch that does not set them 400; one that does writes them', async () => {
  const s = await startApiServer();
  try {
    await create(s, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    await create(s, base, scaler('none', { other: 'x' }));
    const got = await call(s, 'GET', `${base}/none/scale`);
    assert.deepEqual(got.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Internal error occurred: the spec replicas field ".spec.count" does not exist',
      reason: 'InternalError',
      details: { causes: [{ message: 'the spec replicas field ".spec.count" does not exist' }] },
      code: 500,
    });
    const unchanged = await call(s, 'PATCH', `${base}/none/scale`, { body: { metadata: { labels: { a: 'b' } } }, contentType: merge });
    assert.deepEqual([unchanged.status, unchanged.body.message], [400, 'the spec replicas field ".spec.count" cannot be empty']);
    const set = await call(s, 'PATCH', `${base}/none/scale`, { body: { spec: { replicas: 2 } }, contentType: merge });
    assert.deepEqual([set.status, set.body.spec, set.body.status], [200, { replicas: 2 }, { replicas: 0 }]);
    const json = await call(s, 'PATCH', `${base}/none/scale`, { body: [{ op: 'replace', path: '/spec/replicas', value: 4 }], contentType: 'application/json-patch+json' });
    assert.deepEqual(json.body.spec, { replicas: 4 });
    assert.deepEqual((await call(s, 'GET', `${base}/none`)).body.spec, { other: 'x', count: 4 });
  } finally {
    await s.stop();
  }
});
