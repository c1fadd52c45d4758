import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../api/core/v1.ts';
import { checkConvergence } from './convergence.ts';
import type { PodSet } from './podset.ts';

const ps = (name: string, replicas: number, status: PodSet['status'], generation = 1): PodSet => ({
  metadata: { namespace: 'ns', name, uid: `uid-${name}`, generation },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: {} },
  ...(status !== undefined ? { status } : {}),
});
const pod = (name: string, owner: string | undefined, ready: boolean, labels: Record<string, string> = {}): Pod => ({
  metadata: {
    namespace: 'ns',
    name,
    labels,
    ...(owner !== undefined ? { ownerReferences: [{ apiVersion: 'demo.kubeloom.dev/v1alpha1', kind: 'PodSet', name: owner, uid: `uid-${owner}`, controller: true }] } : {}),
  },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});

test('checkConvergence: table of converged and not-yet-converged worlds', () => {
  const good = { replicas: 2, readyReplicas: 2, observedGeneration: 1 };
  const cases: { name: string; sets: PodSet[]; pods: Pod[]; expected: [string, number][]; want: string; convergedPodSets: number }[] = [
    { name: 'converged', sets: [ps('a', 2, good)], pods: [pod('a1', 'a', true), pod('a2', 'a', true)], expected: [['ns/a', 2]], want: '', convergedPodSets: 1 },
    { name: 'too few pods', sets: [ps('a', 2, good)], pods: [pod('a1', 'a', true)], expected: [['ns/a', 2]], want: 'PodSet ns/a has 1/2 pods', convergedPodSets: 0 },
    { name: 'not ready', sets: [ps('a', 2, good)], pods: [pod('a1', 'a', true), pod('a2', 'a', false)], expected: [['ns/a', 2]], want: 'PodSet ns/a has 1/2 ready pods', convergedPodSets: 0 },
    { name: 'stale status', sets: [ps('a', 2, good, 2)], pods: [pod('a1', 'a', true), pod('a2', 'a', true)], expected: [['ns/a', 2]], want: 'PodSet ns/a status is not up to date', convergedPodSets: 0 },
    { name: 'spec not yet seen', sets: [ps('a', 2, good)], pods: [pod('a1', 'a', true), pod('a2', 'a', true)], expected: [['ns/a', 3]], want: 'PodSet ns/a wants 2, expected 3', convergedPodSets: 0 },
    { name: 'orphan to adopt', sets: [ps('a', 2, good)], pods: [pod('a1', 'a', true), pod('a2', 'a', true), pod('o', undefined, true, { app: 'a' })], expected: [['ns/a', 2]], want: 'orphan pod ns/o matches PodSet ns/a', convergedPodSets: 1 },
    { name: 'PodSet still there', sets: [ps('a', 2, good)], pods: [], expected: [], want: 'PodSet ns/a should be gone', convergedPodSets: 0 },
    { name: 'pod of a gone PodSet', sets: [], pods: [pod('a1', 'a', true)], expected: [], want: 'pod ns/a1 is owned by a PodSet that is gone', convergedPodSets: 0 },
    { name: 'PodSet missing', sets: [], pods: [], expected: [['ns/a', 1]], want: 'PodSet ns/a is missing', convergedPodSets: 0 },
    { name: 'all gone', sets: [], pods: [pod('x', undefined, true, { app: 'other' })], expected: [], want: '', convergedPodSets: 0 },
  ];
  for (const c of cases) {
    const r = checkConvergence(c.sets, c.pods, new Map(c.expected));
    assert.deepEqual(r, { converged: c.want === '', reason: c.want, convergedPodSets: c.convergedPodSets }, c.name);
  }
});
