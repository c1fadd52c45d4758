import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hasBuiltinSchema, schemaFor } from './patch-merge-keys.ts';
import { applyStrategicMergePatch } from './strategic-merge-patch.ts';
import { applyServerSideApply } from './server-side-apply.ts';

test('built-in kinds have a schema; custom resources fall back to metadata only', () => {
  assert.equal(hasBuiltinSchema({ group: 'apps', kind: 'Deployment' }), true);
  assert.equal(hasBuiltinSchema({ group: '', kind: 'Pod' }), true);
  assert.equal(hasBuiltinSchema({ group: 'example.com', kind: 'Widget' }), false);
  assert.deepEqual(Object.keys(schemaFor({ group: 'example.com', kind: 'Widget' }).fields ?? {}), ['metadata']);
});

const t0 = '2024-01-01T00:00:00Z';

test('where SMP and SSA disagree, each follows its own upstream markers', () => {
  // Job conditions: patchStrategy merge by type for SMP, listType=atomic for SSA.
  const job = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, status: { conditions: [{ type: 'A', status: 'True' }, { type: 'B', status: 'True' }] } };
  const jobKind = { group: 'batch', version: 'v1', kind: 'Job' };
  assert.deepEqual((applyStrategicMergePatch(job, { status: { conditions: [{ type: 'B', status: 'False' }] } }, jobKind) as typeof job).status.conditions,
    [{ type: 'A', status: 'True' }, { type: 'B', status: 'False' }]);
  const applied = applyServerSideApply(job, { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, status: { conditions: [{ type: 'B', status: 'False' }] } },
    { manager: 'm', force: true, now: t0, apiVersion: 'batch/v1', subresource: 'status' });
  assert.deepEqual((applied.status as typeof job.status).conditions, [{ type: 'B', status: 'False' }]);

  // nodeSelector: merged key by key by SMP, mapType=atomic for SSA.
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { nodeSelector: { a: '1', b: '2' } } };
  const podKind = { group: '', version: 'v1', kind: 'Pod' };
  assert.deepEqual((applyStrategicMergePatch(pod, { spec: { nodeSelector: { b: '3' } } }, podKind) as typeof pod).spec.nodeSelector, { a: '1', b: '3' });
  const ssa = applyServerSideApply(pod, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { nodeSelector: { b: '3' } } },
    { manager: 'm', force: true, now: t0, apiVersion: 'v1' });
  assert.deepEqual((ssa.spec as typeof pod.spec).nodeSelector, { b: '3' });
});
