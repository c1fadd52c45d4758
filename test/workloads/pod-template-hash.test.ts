/**
 * The hash labels end to end: templates sent to a real kube-apiserver v1.24, whose real
 * kube-controller-manager v1.24 labelled the ReplicaSets and ControllerRevisions it created (recorded in
 * src/controllers/hash/testdata/real-kcm-hashes.json), sent unchanged to the embedded server: its
 * defaulting and kubeloom's Deployment and DaemonSet controllers must produce the same names and labels.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { ControllerRevision, DaemonSet, Deployment, ReplicaSet } from '../../src/api/apps/v1.ts';
import type { PodTemplateSpec } from '../../src/api/core/v1.ts';
import { startCluster, waitForItems } from './support.ts';

interface Recorded {
  readonly name: string;
  readonly sent: PodTemplateSpec;
  readonly hash: string;
}

const recorded = JSON.parse(readFileSync(new URL('../../src/controllers/hash/testdata/real-kcm-hashes.json', import.meta.url), 'utf8')) as Recorded[];

/**
 * `template` without the fields v1.24 drops as feature-gated off and the embedded server (which models
 * 1.32, where they are GA) keeps: a topology spread constraint's minDomains (MinDomainsInPodTopologySpread,
 * alpha) and a probe's terminationGracePeriodSeconds (ProbeTerminationGracePeriod, beta but off).
 */
function dropFieldsOffInV124(template: PodTemplateSpec): PodTemplateSpec {
  const t = structuredClone(template);
  for (const c of t.spec?.topologySpreadConstraints ?? []) delete c.minDomains;
  for (const c of [...(t.spec?.initContainers ?? []), ...(t.spec?.containers ?? [])]) {
    for (const probe of [c.livenessProbe, c.readinessProbe, c.startupProbe]) if (probe !== undefined) delete probe.terminationGracePeriodSeconds;
  }
  return t;
}

test('Deployments and a DaemonSet get the pod-template-hash and controller-revision-hash a real kube-controller-manager gave them', async (t) => {
  const { client } = await startCluster(t, { scheduler: false, kubelet: false });
  const expected = new Map<string, string>();
  for (const [i, r] of recorded.entries()) {
    const [kind] = r.name.split(' ');
    const sent = dropFieldsOffInV124(r.sent);
    const labels = sent.metadata?.labels ?? {};
    const name = `h${i}`;
    if (kind === 'Deployment') {
      const d: Deployment = { metadata: { name }, spec: { replicas: 0, selector: { matchLabels: { 'kcm-case': labels['kcm-case'] ?? '' } }, template: sent } };
      await client.appsV1().deployments('default').create(d);
      expected.set(`ReplicaSet ${name}-${r.hash}`, r.hash);
    } else {
      const ds: DaemonSet = { metadata: { name }, spec: { selector: { matchLabels: labels }, template: sent } };
      await client.appsV1().daemonSets('default').create(ds);
      expected.set(`ControllerRevision ${name}-${r.hash}`, r.hash);
    }
  }
  const deployments = recorded.filter((r) => r.name.startsWith('Deployment ')).length;
  const sets = await waitForItems<ReplicaSet>(client.appsV1().replicaSets('default'), (items) => items.length >= deployments);
  const revisions = await waitForItems<ControllerRevision>(client.appsV1().controllerRevisions('default'), (items) => items.length >= recorded.length - deployments);
  const got = new Map<string, string>([
    ...sets.map((s): [string, string] => [`ReplicaSet ${s.metadata?.name ?? ''}`, s.metadata?.labels?.['pod-template-hash'] ?? '']),
    ...revisions.map((r): [string, string] => [`ControllerRevision ${r.metadata?.name ?? ''}`, r.metadata?.labels?.['controller-revision-hash'] ?? '']),
  ]);
  assert.deepEqual(new Map([...got].sort()), new Map([...expected].sort()));
});
