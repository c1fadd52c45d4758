/**
 * The Job controller's Indexed mode step by step on a fake clock: the test plays the kubelet (it sets the
 * pods' phases) and runs syncJob itself, so failures, the backoff and the per-index counts are exact.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import type { Job } from '../../api/batch/v1.ts';
import type { Pod } from '../../api/core/v1.ts';
import { startApiServer } from '../../apiserver/index.ts';
import { newSharedInformerFactory } from '../../informers/factory.ts';
import { newClientset, type Clientset } from '../../kubernetes/clientset.ts';
import { EventBroadcaster } from '../../tools/events/record/event.ts';
import { FakeClock } from '../../util/clock/clock.ts';
import type { ControllerContext } from '../controller-context.ts';
import { JobController } from './job-controller.ts';

interface Setup {
  client: Clientset;
  clock: FakeClock;
  /** Waits until the informers show what the server holds, then runs syncJob once. */
  sync: () => Promise<void>;
  /** The Job's pods on the server, by completion index. */
  pods: () => Promise<Pod[]>;
  job: () => Promise<Job>;
  /** Ends the pod of `index` that is still running with `phase` at the clock's time. */
  finish: (index: number, phase: 'Succeeded' | 'Failed', exitCode?: number) => Promise<void>;
}

async function setup(t: TestContext, spec: NonNullable<Job['spec']>): Promise<Setup> {
  const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
  const server = await startApiServer({ clock });
  const client = newClientset({ host: server.url });
  const informerFactory = newSharedInformerFactory(client);
  const ctx: ControllerContext = { client, informerFactory, eventBroadcaster: new EventBroadcaster({ clock }), clock, onError: (_c, err) => assert.fail(String(err)) };
  const controller = new JobController(ctx);
  const stop = new AbortController();
  informerFactory.start({ signal: stop.signal });
  await informerFactory.waitForCacheSync({ signal: stop.signal });
  t.after(async () => {
    stop.abort();
    await informerFactory.shutdown();
    await client.close();
    await server.stop();
  });
  const jobs = client.batchV1().jobs('default');
  const podApi = client.coreV1().pods('default');
  await jobs.create({ metadata: { name: 'j' }, spec });
  const jobLister = informerFactory.batchV1().jobs().lister();
  const podLister = informerFactory.coreV1().pods().lister();
  const versions = (items: ReadonlyArray<{ metadata?: { name?: string; resourceVersion?: string } }>): string =>
    items.map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`).sort().join(' ');
  const sync = async (): Promise<void> => {
    const want = versions([await jobs.get('j'), ...(await podApi.list()).items]);
    while (versions([...jobLister.list(), ...podLister.list()]) !== want) await new Promise((r) => setImmediate(r));
    await controller.syncJob('default/j');
  };
  const index = (p: Pod): number => Number(p.metadata?.annotations?.['batch.kubernetes.io/job-completion-index']);
  const pods = async (): Promise<Pod[]> => (await podApi.list()).items.sort((a, b) => index(a) - index(b) || (a.metadata?.creationTimestamp ?? '').localeCompare(b.metadata?.creationTimestamp ?? ''));
  const finish = async (ix: number, phase: 'Succeeded' | 'Failed', exitCode = phase === 'Failed' ? 1 : 0): Promise<void> => {
    const p = (await pods()).find((q) => index(q) === ix && q.status?.phase !== 'Succeeded' && q.status?.phase !== 'Failed');
    assert.ok(p !== undefined, `a running pod for index ${ix}`);
    const finishedAt = new Date(clock.now()).toISOString().replace(/\.\d+Z$/, 'Z');
    await podApi.updateStatus({ ...p, status: { phase, containerStatuses: [{ name: 'c', image: 'busybox', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode, finishedAt } } }] } });
  };
  return { client, clock, sync, pods, job: () => jobs.get('j'), finish };
}

const template = { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } };
const summary = (pods: Pod[]): string[] =>
  pods.map((p) => {
    const a = p.metadata?.annotations ?? {};
    const count = a['batch.kubernetes.io/job-index-failure-count'];
    return `${a['batch.kubernetes.io/job-completion-index']}:${p.status?.phase ?? 'Pending'}${count === undefined ? '' : `:${count}`}`;
  });
const conditions = (j: Job): string[] => (j.status?.conditions ?? []).filter((c) => c.status === 'True').map((c) => `${c.type}/${c.reason}`);

test('Indexed: a failed index is created again after the 10 s backoff, under the same index; completedIndexes grows as indexes succeed', async (t) => {
  const s = await setup(t, { completions: 3, parallelism: 2, completionMode: 'Indexed', template });
  await s.sync();
  assert.deepEqual(summary(await s.pods()), ['0:Pending', '1:Pending']);
  await s.finish(0, 'Succeeded');
  await s.finish(1, 'Failed');
  await s.sync();
  assert.deepEqual(summary(await s.pods()), ['0:Succeeded', '1:Failed'], 'the Job-wide backoff holds every create');
  assert.deepEqual([(await s.job()).status?.completedIndexes, (await s.job()).status?.failed, (await s.job()).status?.active ?? 0], ['0', 1, 0]);
  await s.clock.step(9_999);
  await s.sync();
  assert.equal((await s.pods()).length, 2);
  await s.clock.step(1);
  await s.sync();
  const again = await s.pods();
  assert.deepEqual(summary(again), ['0:Succeeded', '1:Failed', '1:Pending', '2:Pending'], 'the lowest pending indexes first');
  assert.match(again[2]!.metadata?.name ?? '', /^j-1-[a-z0-9]{5}$/);
  assert.equal(again[2]!.spec?.hostname, 'j-1');
  await s.finish(2, 'Succeeded');
  await s.sync();
  assert.equal((await s.job()).status?.completedIndexes, '0,2');
  await s.finish(1, 'Succeeded');
  await s.sync();
  const done = await s.job();
  assert.deepEqual(conditions(done), ['SuccessCriteriaMet/CompletionsReached', 'Complete/CompletionsReached']);
  assert.deepEqual([done.status?.completedIndexes, done.status?.succeeded, done.status?.failed], ['0-2', 3, 1]);
});

test('backoffLimitPerIndex 1: an index fails for good on its second failure (failure-count annotations 0, 1), the others run on, the Job fails with FailedIndexes', async (t) => {
  const s = await setup(t, { completions: 3, parallelism: 3, completionMode: 'Indexed', backoffLimitPerIndex: 1, template });
  assert.equal((await s.job()).spec?.backoffLimit, 2_147_483_647);
  await s.sync();
  assert.deepEqual(summary(await s.pods()), ['0:Pending:0', '1:Pending:0', '2:Pending:0']);
  await s.finish(1, 'Failed');
  await s.sync();
  await s.clock.step(10_000);
  await s.sync();
  assert.deepEqual(summary(await s.pods()), ['0:Pending:0', '1:Failed:0', '1:Pending:1', '2:Pending:0']);
  assert.equal((await s.job()).status?.failedIndexes, '');
  await s.finish(1, 'Failed');
  await s.sync();
  await s.clock.step(60_000);
  await s.sync();
  assert.deepEqual(summary(await s.pods()), ['0:Pending:0', '1:Failed:0', '1:Failed:1', '2:Pending:0'], 'a failed index is not run again');
  assert.deepEqual([(await s.job()).status?.failedIndexes, (await s.job()).status?.failed, conditions(await s.job())], ['1', 2, []]);
  await s.finish(0, 'Succeeded');
  await s.finish(2, 'Succeeded');
  await s.sync();
  const done = await s.job();
  assert.deepEqual(conditions(done), ['FailureTarget/FailedIndexes', 'Failed/FailedIndexes']);
  assert.deepEqual([done.status?.completedIndexes, done.status?.failedIndexes], ['0,2', '1']);
  assert.equal(done.status?.conditions?.find((c) => c.type === 'Failed')?.message, 'Job has failed indexes');
});

test('maxFailedIndexes 0: the first index failed for good fails the Job with MaxFailedIndexesExceeded and its running pods are deleted', async (t) => {
  const s = await setup(t, { completions: 3, parallelism: 3, completionMode: 'Indexed', backoffLimitPerIndex: 0, maxFailedIndexes: 0, template });
  await s.sync();
  await s.finish(2, 'Failed');
  await s.sync();
  const target = await s.job();
  assert.deepEqual(conditions(target), ['FailureTarget/MaxFailedIndexesExceeded']);
  assert.equal(target.status?.conditions?.[0]?.message, 'Job has exceeded the specified maximal number of failed indexes');
  assert.deepEqual(summary(await s.pods()), ['2:Failed:0'], 'the running pods were deleted (no grace: they were never scheduled)');
  await s.sync();
  assert.deepEqual(conditions(await s.job()), ['FailureTarget/MaxFailedIndexesExceeded', 'Failed/MaxFailedIndexesExceeded']);
});

test('with backoffLimitPerIndex a podFailurePolicy Ignore failure is not counted (ignored-failure-count), a FailIndex one fails the index at once', async (t) => {
  const s = await setup(t, {
    completions: 2,
    parallelism: 2,
    completionMode: 'Indexed',
    backoffLimitPerIndex: 3,
    podFailurePolicy: {
      rules: [
        { action: 'Ignore', onExitCodes: { operator: 'In', values: [1] } },
        { action: 'FailIndex', onExitCodes: { operator: 'In', values: [2] } },
      ],
    },
    template,
  });
  await s.sync();
  await s.finish(0, 'Failed', 1);
  await s.sync();
  await s.clock.step(10_000);
  await s.sync();
  const pods = await s.pods();
  assert.deepEqual(summary(pods), ['0:Failed:0', '0:Pending:0', '1:Pending:0'], 'the index runs again, its failure count unchanged');
  assert.equal(pods[1]!.metadata?.annotations?.['batch.kubernetes.io/job-index-ignored-failure-count'], '1');
  assert.equal((await s.job()).status?.failed ?? 0, 0);
  await s.finish(1, 'Failed', 2);
  await s.sync();
  await s.clock.step(60_000);
  await s.sync();
  assert.deepEqual(summary(await s.pods()), ['0:Failed:0', '0:Pending:0', '1:Failed:0']);
  assert.deepEqual([(await s.job()).status?.failedIndexes, (await s.job()).status?.failed], ['1', 1]);
});
