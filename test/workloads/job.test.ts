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
