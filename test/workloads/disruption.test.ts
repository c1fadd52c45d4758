/**
 * The disruption controller (src/controllers/disruption): PodDisruptionBudget status from the pods and
 * their controllers' scale, and evictions through the API answered by that status.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isTooManyRequests } from '../../src/apimachinery/errors.ts';
import { startCluster, waitForItems, waitForObject } from './support.ts';

test('a budget gets its status from the pods and their Deployment; evictions are allowed as far as it says', async (t) => {
  const { client } = await startCluster(t);
  await client.appsV1().deployments('default').create({ metadata: { name: 'web' }, spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } });
  const pdbs = client.policyV1().podDisruptionBudgets('default');
  await pdbs.create({ metadata: { name: 'web' }, spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'web' } } } });
  const pdb = await waitForObject(pdbs, 'web', (p) => p?.status?.currentHealthy === 3);
  assert.deepEqual([pdb?.status?.expectedPods, pdb?.status?.desiredHealthy, pdb?.status?.disruptionsAllowed, pdb?.status?.observedGeneration], [3, 2, 1, 1]);
  assert.deepEqual(
    pdb?.status?.conditions?.map((c) => [c.type, c.status, c.reason]),
    [['DisruptionAllowed', 'True', 'SufficientPods']],
  );
  const pods = (await client.coreV1().pods('default').list()).items;
  const evict = (name: string) => client.coreV1().pods('default').createSubresource(name, 'eviction', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'default' } });
  await evict(pods[0]!.metadata!.name!);
  // The second eviction would leave fewer than desiredHealthy until the replacement is Ready.
  const refused = await evict(pods[1]!.metadata!.name!).then(
    () => undefined,
    (err: unknown) => err,
  );
  assert.ok(refused === undefined || isTooManyRequests(refused), String(refused));
  // The Deployment replaces the evicted pod; the budget recovers.
  await waitForItems(client.coreV1().pods('default'), (items) => items.filter((p) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length === 3 && items.length === 3);
  const after = await waitForObject(pdbs, 'web', (p) => p?.status?.currentHealthy === 3 && p.status.disruptionsAllowed === 1);
  assert.equal(after?.status?.disruptedPods, undefined);

  await pdbs.create({ metadata: { name: 'strict' }, spec: { minAvailable: 3, selector: { matchLabels: { app: 'web' } } } });
  const strict = await waitForObject(pdbs, 'strict', (p) => p?.status?.expectedPods === 3);
  assert.deepEqual([strict?.status?.desiredHealthy, strict?.status?.disruptionsAllowed, strict?.status?.conditions?.[0]?.reason], [3, 0, 'InsufficientPods']);
});

test('a budget over no pods reports NoPods (Normal, "No matching pods found") and allows no disruption', async (t) => {
  const { client } = await startCluster(t, { workloads: ['disruption'] });
  const pdbs = client.policyV1().podDisruptionBudgets('default');
  await pdbs.create({ metadata: { name: 'none' }, spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'none' } } } });
  const pdb = await waitForObject(pdbs, 'none', (p) => p?.status?.observedGeneration === 1);
  assert.deepEqual([pdb?.status?.expectedPods ?? 0, pdb?.status?.currentHealthy ?? 0, pdb?.status?.disruptionsAllowed ?? 0, pdb?.status?.conditions?.[0]?.reason], [0, 0, 0, 'InsufficientPods']);
  const events = await waitForItems(client.coreV1().events('default'), (es) => es.some((e) => e.involvedObject.name === 'none' && e.reason === 'NoPods'));
  const e = events.find((x) => x.reason === 'NoPods');
  assert.deepEqual([e?.type, e?.message, e?.involvedObject.kind, e?.source?.component], ['Normal', 'No matching pods found', 'PodDisruptionBudget', 'controllermanager']);
});

test('pods without a controller are left out of a maxUnavailable budget\'s expected count, not a sync failure', async (t) => {
  const { client } = await startCluster(t, { workloads: ['disruption'] });
  await client.coreV1().pods('default').create({ metadata: { name: 'solo', labels: { app: 'solo' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
  await waitForObject(client.coreV1().pods('default'), 'solo', (p) => p?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true);
  const pdbs = client.policyV1().podDisruptionBudgets('default');
  await pdbs.create({ metadata: { name: 'solo' }, spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'solo' } } } });
  const pdb = await waitForObject(pdbs, 'solo', (p) => p?.status?.observedGeneration === 1);
  assert.deepEqual([pdb?.status?.currentHealthy, pdb?.status?.expectedPods ?? 0, pdb?.status?.desiredHealthy ?? 0, pdb?.status?.disruptionsAllowed ?? 0], [1, 0, 0, 0]);
  assert.deepEqual(pdb?.status?.conditions?.map((c) => [c.type, c.status, c.reason]), [['DisruptionAllowed', 'False', 'InsufficientPods']]);
});
