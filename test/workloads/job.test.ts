/**
 * The Job controller and the TTL-after-finished controller (src/controllers/job, ttlafterfinished) on the
 * embedded server with the stand-ins (whose kubelet finishes Jobs' pods as `podOutcome` says).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Job } from '../../src/api/batch/v1.ts';
import type { Pod } from '../../src/api/core/v1.ts';
import { startCluster, waitForItems, waitForObject } from './support.ts';

function job(name: string, spec: Partial<NonNullable<Job['spec']>> = {}): Job {
  return { metadata: { name }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } }, ...spec } };
}

const types = (j: Job | undefined) => (j?.status?.conditions ?? []).filter((c) => c.status === 'True').map((c) => [c.type, c.reason, c.message]);
const finished = (j: Job | undefined) => j?.status?.conditions?.some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True') === true;

test('a Job runs at most parallelism pods until completions succeeded, then gets SuccessCriteriaMet and Complete with its completionTime', async (t) => {
  const { client } = await startCluster(t);
  const jobs = client.batchV1().jobs('default');
  await jobs.create(job('pi', { completions: 3, parallelism: 2 }));
  let maxActive = 0;
  const watching = waitForItems(client.coreV1().pods('default'), (pods: Pod[]) => {
    maxActive = Math.max(maxActive, pods.filter((p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed').length);
    return pods.filter((p) => p.status?.phase === 'Succeeded').length === 3;
  });
  const done = await waitForObject(jobs, 'pi', finished);
  await watching;
  assert.ok(maxActive <= 2, `never more than parallelism pods at once (saw ${maxActive})`);
  assert.deepEqual(types(done), [
    ['SuccessCriteriaMet', 'CompletionsReached', 'Reached expected number of succeeded pods'],
    ['Complete', 'CompletionsReached', 'Reached expected number of succeeded pods'],
  ]);
  assert.equal(done?.status?.succeeded, 3);
  assert.equal(done?.status?.active ?? 0, 0);
  assert.ok(done?.status?.completionTime !== undefined && done.status.startTime !== undefined);
  const events = await waitForItems(client.coreV1().events('default'), (items) => items.some((e) => e.reason === 'Completed'));
  assert.equal(events.filter((e) => e.reason === 'SuccessfulCreate' && e.source?.component === 'job-controller').length, 3);
  assert.equal(events.find((e) => e.reason === 'Completed')?.message, 'Job completed');
});

test('backoffLimit 0: one failed pod fails the Job (FailureTarget, then Failed: BackoffLimitExceeded)', async (t) => {
  const { client } = await startCluster(t, { kubelet: { podOutcome: () => ({ phase: 'Failed', exitCode: 1 }) } });
  const jobs = client.batchV1().jobs('default');
  await jobs.create(job('fail', { backoffLimit: 0 }));
  const done = await waitForObject(jobs, 'fail', finished);
  assert.deepEqual(types(done), [
    ['FailureTarget', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
    ['Failed', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
  ]);
  assert.equal(done?.status?.failed, 1);
  const events = await waitForItems(client.coreV1().events('default'), (items) => items.some((e) => e.reason === 'BackoffLimitExceeded'));
  assert.equal(events.find((e) => e.reason === 'BackoffLimitExceeded')?.type, 'Warning');
});

test('podFailurePolicy: a FailJob rule on an exit code fails the Job at once, whatever the backoffLimit', async (t) => {
  const { client } = await startCluster(t, { kubelet: { podOutcome: () => ({ phase: 'Failed', exitCode: 42 }) } });
  const jobs = client.batchV1().jobs('default');
  await jobs.create(job('policy', { backoffLimit: 6, podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } }] } }));
  const done = await waitForObject(jobs, 'policy', finished);
  const failed = done?.status?.conditions?.find((c) => c.type === 'Failed');
  assert.equal(failed?.reason, 'PodFailurePolicy');
  assert.match(failed?.message ?? '', /^Container c for pod default\/policy-[a-z0-9]+ failed with exit code 42 matching FailJob rule at index 0$/);
});

test('activeDeadlineSeconds: a Job running too long fails with DeadlineExceeded and its pods are deleted', async (t) => {
  const { client } = await startCluster(t, { kubelet: { podOutcome: () => ({ phase: 'Running' }) } });
  const jobs = client.batchV1().jobs('default');
  await jobs.create(job('slow', { activeDeadlineSeconds: 1 }));
  const done = await waitForObject(jobs, 'slow', finished);
  assert.deepEqual(types(done).at(-1), ['Failed', 'DeadlineExceeded', 'Job was active longer than specified deadline']);
  await waitForItems(client.coreV1().pods('default'), (pods) => pods.length === 0);
});

test('ttlSecondsAfterFinished 0: the finished Job is deleted with its pods', async (t) => {
  const { client } = await startCluster(t);
  const jobs = client.batchV1().jobs('default');
  await jobs.create(job('once', { ttlSecondsAfterFinished: 0 }));
  await waitForObject(jobs, 'once', (j) => j === undefined || finished(j));
  await waitForItems(jobs, (items) => items.length === 0);
  await waitForItems(client.coreV1().pods('default'), (pods) => pods.length === 0);
});

const indexOf = (p: Pod): string | undefined => p.metadata?.annotations?.['batch.kubernetes.io/job-completion-index'];

test('an Indexed Job runs one pod per index (annotation, label, hostname, name, JOB_COMPLETION_INDEX) and completes once every index succeeded', async (t) => {
  const { client } = await startCluster(t);
  const jobs = client.batchV1().jobs('default');
  await jobs.create(job('idx', { completions: 4, parallelism: 2, completionMode: 'Indexed' }));
  const done = await waitForObject(jobs, 'idx', finished);
  assert.deepEqual(types(done), [
    ['SuccessCriteriaMet', 'CompletionsReached', 'Reached expected number of succeeded pods'],
    ['Complete', 'CompletionsReached', 'Reached expected number of succeeded pods'],
  ]);
  assert.equal(done?.status?.completedIndexes, '0-3');
  assert.equal(done?.status?.succeeded, 4);
  const pods = (await client.coreV1().pods('default').list()).items.filter((p) => p.metadata?.labels?.['job-name'] === 'idx');
  assert.deepEqual(pods.map(indexOf).sort(), ['0', '1', '2', '3'], 'one pod per index');
  for (const p of pods) {
    const ix = indexOf(p)!;
    assert.equal(p.metadata?.labels?.['batch.kubernetes.io/job-completion-index'], ix);
    assert.match(p.metadata?.name ?? '', new RegExp(`^idx-${ix}-[a-z0-9]{5}$`));
    assert.equal(p.spec?.hostname, `idx-${ix}`);
    assert.deepEqual(p.spec?.containers[0]?.env, [{ name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: "metadata.labels['batch.kubernetes.io/job-completion-index']" } } }]);
  }
});

test('successPolicy: once index 0 succeeded the Job gets SuccessCriteriaMet (SuccessPolicy), its other pods are deleted, then Complete', async (t) => {
  const { client } = await startCluster(t, { kubelet: { podOutcome: (p) => (indexOf(p) === '0' ? { phase: 'Succeeded' } : { phase: 'Running' }) } });
  const jobs = client.batchV1().jobs('default');
  await jobs.create(job('leader', { completions: 3, parallelism: 3, completionMode: 'Indexed', successPolicy: { rules: [{ succeededIndexes: '0' }] } }));
  const done = await waitForObject(jobs, 'leader', finished);
  assert.deepEqual(types(done), [
    ['SuccessCriteriaMet', 'SuccessPolicy', 'Matched rules at index 0'],
    ['Complete', 'SuccessPolicy', 'Matched rules at index 0'],
  ]);
  assert.equal(done?.status?.completedIndexes, '0');
  await waitForItems(client.coreV1().pods('default'), (pods) => pods.filter((p) => p.status?.phase !== 'Succeeded').length === 0);
});

test('the server validates Indexed Jobs: completions required, backoffLimitPerIndex and successPolicy only for Indexed, completionMode immutable; backoffLimit defaults to MaxInt32 with backoffLimitPerIndex', async (t) => {
  const { client } = await startCluster(t, { workloads: false });
  const jobs = client.batchV1().jobs('default');
  await assert.rejects(jobs.create(job('nocompl', { parallelism: 2, completionMode: 'Indexed' })), /spec\.completions: Required value: when completion mode is Indexed/);
  await assert.rejects(jobs.create(job('perindex', { backoffLimitPerIndex: 1 })), /spec\.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode/);
  await assert.rejects(jobs.create(job('maxfailed', { completions: 2, completionMode: 'Indexed', maxFailedIndexes: 1 })), /spec\.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified/);
  await assert.rejects(jobs.create(job('policy', { successPolicy: { rules: [{ succeededCount: 1 }] } })), /spec\.successPolicy: Invalid value: .*requires indexed completion mode/);
  const created = await jobs.create(job('ok', { completions: 2, completionMode: 'Indexed', backoffLimitPerIndex: 1, suspend: true }));
  assert.equal(created.spec?.backoffLimit, 2_147_483_647);
  await assert.rejects(jobs.update({ ...created, spec: { ...created.spec!, completionMode: 'NonIndexed' } }), /spec\.completionMode: Invalid value: "NonIndexed": field is immutable/);
});
