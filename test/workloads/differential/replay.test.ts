/**
 * The differential check against kube-controller-manager v1.24: the workload script (scenario.ts) runs on
 * the embedded server with kubeloom's controllers, and its normalised outcome must equal the golden file
 * recorded with the real kube-controller-manager (record.ts), once the documented differences between
 * v1.24 and the newer upstream kubeloom models are applied to both.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { knownDifferences, comparable, runScenario } from './scenario.ts';
import { featureDifferences, featureNodes, gatedDifferences, gatedFeatureGates, runFeatures, runGated } from './features.ts';
import { startControllers } from '../../../src/controllers/controller-manager.ts';
import { startCluster } from '../support.ts';

test('the workload script ends as it does with the real kube-controller-manager v1.24 (objects, owner references, hash labels, revisions, status, conditions, events)', async (t) => {
  const golden = JSON.parse(await readFile(new URL('./golden/kcm-v1.24.json', import.meta.url), 'utf8')) as { snapshot: Record<string, unknown> };
  const { client } = await startCluster(t);
  const ours = JSON.parse(JSON.stringify(comparable(await runScenario(client)))) as Record<string, unknown>;
  const theirs = structuredClone(golden.snapshot);
  for (const d of knownDifferences) d.apply(theirs);
  assert.deepEqual(ours, theirs);
});

test('Indexed Job, DaemonSet maxSurge and StatefulSet revision hashes end as with the real kube-controller-manager v1.24 (hashes compared as they are)', async (t) => {
  const golden = JSON.parse(await readFile(new URL('./golden/kcm-v1.24-features.json', import.meta.url), 'utf8')) as { snapshot: Record<string, unknown> };
  const { client } = await startCluster(t, { kubelet: { nodes: featureNodes } });
  const ours = JSON.parse(JSON.stringify(await runFeatures(client))) as Record<string, unknown>;
  const theirs = structuredClone(golden.snapshot);
  for (const d of featureDifferences) {
    d.apply(ours);
    d.apply(theirs);
  }
  assert.deepEqual(ours, theirs);
});

test('StatefulSet maxUnavailable and claim retention with the gates on end as with the real kube-controller-manager v1.24 given the same gates', async (t) => {
  const golden = JSON.parse(await readFile(new URL('./golden/kcm-v1.24-gated.json', import.meta.url), 'utf8')) as { snapshot: Record<string, unknown> };
  const { client } = await startCluster(t, { volumes: true, workloads: ['*', '-statefulset'] });
  const running = startControllers(client, { controllers: ['statefulset'], featureGates: gatedFeatureGates, onError: () => undefined });
  t.after(() => running.stop());
  const ours = JSON.parse(JSON.stringify(await runGated(client))) as Record<string, unknown>;
  await running.stop();
  const theirs = structuredClone(golden.snapshot);
  for (const d of gatedDifferences) {
    d.apply(ours);
    d.apply(theirs);
  }
  assert.deepEqual(ours, theirs);
});
