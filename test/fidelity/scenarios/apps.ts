/**
 * apps/v1: every verb on Deployments, ReplicaSets, StatefulSets and DaemonSets, their defaults, the
 * generation rules (spec changes bump it, metadata and status do not) and the status and scale
 * subresources.
 */
import type { Scenario } from '../scenario.ts';
import { daemonSet, deployment, replicaSet, statefulSet } from './objects.ts';

const deps = '/apis/apps/v1/namespaces/{{ns}}/deployments';

export const apps: Scenario[] = [
  {
    id: 'apps/deployment-create-defaults',
    title: 'Deployment: create answers every default (strategy, revisionHistoryLimit, pod template defaults)',
    steps: [{ req: `POST ${deps}`, body: deployment('web') }],
  },
  {
    id: 'apps/deployment-verbs',
    title: 'Deployment: get, list, update, merge patch, delete (Status answer), get after delete',
    steps: [
      { req: `POST ${deps}`, body: deployment('web'), save: { rv: 'metadata.resourceVersion' }, keep: 'status' },
      { req: `GET ${deps}/web`, pick: ['metadata.name', 'metadata.generation', 'spec.replicas'] },
      { req: `GET ${deps}`, pick: ['kind', 'apiVersion', 'metadata', 'items.*.metadata.name'] },
      { req: `PUT ${deps}/web`, body: { ...deployment('web', 3), metadata: { name: 'web', resourceVersion: '{{rv}}' } }, pick: ['metadata.generation', 'spec.replicas'] },
      { req: `PATCH ${deps}/web`, type: 'merge', body: { spec: { paused: true } }, pick: ['metadata.generation', 'spec.paused'] },
      { req: `DELETE ${deps}/web` },
      { req: `GET ${deps}/web` },
    ],
  },
  {
    id: 'apps/deployment-generation',
    title: 'Deployment generation: label change keeps it, spec change bumps it, status change through /status keeps it',
    steps: [
      { req: `POST ${deps}`, body: deployment('web'), keep: 'status' },
      { req: `PATCH ${deps}/web`, type: 'merge', body: { metadata: { labels: { a: 'b' } } }, pick: ['metadata.generation', 'metadata.labels'] },
      { req: `PATCH ${deps}/web`, type: 'merge', body: { spec: { minReadySeconds: 5 } }, pick: ['metadata.generation'] },
      { req: `PATCH ${deps}/web/status`, type: 'merge', body: { status: { observedGeneration: 2, replicas: 2 } }, pick: ['metadata.generation', 'status'] },
      { req: `PATCH ${deps}/web`, type: 'merge', body: { status: { replicas: 7 } }, pick: ['metadata.generation', 'status'] },
      { req: `PATCH ${deps}/web`, type: 'merge', body: { spec: { minReadySeconds: 5 } }, pick: ['metadata.generation', 'metadata.resourceVersion'] },
    ],
  },
  {
    id: 'apps/deployment-scale',
    title: 'Deployment /scale: get, put, merge patch, bad replicas, stale resourceVersion',
    steps: [
      { req: `POST ${deps}`, body: deployment('web'), keep: 'status' },
      { req: `GET ${deps}/web/scale` },
      { req: `PUT ${deps}/web/scale`, body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web' }, spec: { replicas: 4 } } },
      { req: `PATCH ${deps}/web/scale`, type: 'merge', body: { spec: { replicas: 1 } }, pick: ['spec', 'status'] },
      { req: `PATCH ${deps}/web/scale`, type: 'merge', body: { spec: { replicas: -1 } } },
      { req: `PUT ${deps}/web/scale`, body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web', resourceVersion: '1' }, spec: { replicas: 2 } } },
      { req: `GET ${deps}/web`, pick: ['metadata.generation', 'spec.replicas'] },
      { req: `GET ${deps}/ghost/scale` },
    ],
  },
  {
    id: 'apps/deployment-validation',
    title: 'Deployment validation: selector not matching the template, negative replicas, missing selector',
    steps: [
      { req: `POST ${deps}`, body: { ...deployment('a'), spec: { ...(deployment('a').spec as object), selector: { matchLabels: { app: 'other' } } } } },
      { req: `POST ${deps}`, body: deployment('b', -1) },
      { req: `POST ${deps}`, body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'c' }, spec: { template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } } },
    ],
  },
  {
    id: 'apps/deployment-selector-immutable',
    title: 'Deployment: spec.selector is immutable in apps/v1',
    steps: [
      { req: `POST ${deps}`, body: deployment('web'), keep: 'status' },
      { req: `PATCH ${deps}/web`, type: 'strategic', body: { spec: { selector: { matchLabels: { app: 'web', x: 'y' } }, template: { metadata: { labels: { app: 'web', x: 'y' } } } } } },
    ],
  },
  {
    id: 'apps/replicaset-verbs',
    title: 'ReplicaSet: create defaults, scale subresource, delete',
    steps: [
      { req: 'POST /apis/apps/v1/namespaces/{{ns}}/replicasets', body: replicaSet('rs'), pick: ['metadata.generation', 'spec', 'status'] },
      { req: 'GET /apis/apps/v1/namespaces/{{ns}}/replicasets/rs/scale' },
      { req: 'DELETE /apis/apps/v1/namespaces/{{ns}}/replicasets/rs', pick: ['kind', 'status', 'details'] },
    ],
  },
  {
    id: 'apps/statefulset-verbs',
    title: 'StatefulSet: create defaults, scale, generation on update, delete',
    steps: [
      { req: 'POST /apis/apps/v1/namespaces/{{ns}}/statefulsets', body: statefulSet('db'), pick: ['metadata.generation', 'spec', 'status'] },
      { req: 'PATCH /apis/apps/v1/namespaces/{{ns}}/statefulsets/db/scale', type: 'merge', body: { spec: { replicas: 3 } }, pick: ['spec', 'status'] },
      { req: 'GET /apis/apps/v1/namespaces/{{ns}}/statefulsets/db', pick: ['metadata.generation', 'spec.replicas'] },
      { req: 'PATCH /apis/apps/v1/namespaces/{{ns}}/statefulsets/db', type: 'merge', body: { spec: { serviceName: 'other' } } },
      { req: 'DELETE /apis/apps/v1/namespaces/{{ns}}/statefulsets/db', pick: ['kind', 'status', 'details'] },
    ],
  },
  {
    id: 'apps/daemonset-verbs',
    title: 'DaemonSet: create defaults, no scale subresource, delete',
    steps: [
      { req: 'POST /apis/apps/v1/namespaces/{{ns}}/daemonsets', body: daemonSet('agent'), pick: ['metadata.generation', 'spec', 'status'] },
      { req: 'GET /apis/apps/v1/namespaces/{{ns}}/daemonsets/agent/scale' },
      { req: 'DELETE /apis/apps/v1/namespaces/{{ns}}/daemonsets/agent', pick: ['kind', 'status', 'details'] },
    ],
  },
  {
    id: 'apps/deployment-status-put',
    title: 'Deployment /status: PUT replaces status, a stale resourceVersion conflicts',
    steps: [
      { req: `POST ${deps}`, body: deployment('web'), save: { rv: 'metadata.resourceVersion' }, keep: 'status' },
      { req: `PUT ${deps}/web/status`, body: { ...deployment('web'), metadata: { name: 'web', resourceVersion: '{{rv}}' }, status: { replicas: 2, readyReplicas: 1 } }, pick: ['status', 'spec.replicas', 'metadata.generation'] },
      { req: `PUT ${deps}/web/status`, body: { ...deployment('web'), metadata: { name: 'web', resourceVersion: '{{rv}}' }, status: { replicas: 3 } } },
    ],
  },
  {
    id: 'apps/kubectl-scale-rollout',
    title: 'kubectl scale, get deployment table, get -o wide',
    steps: [
      { req: `POST ${deps}`, body: deployment('web'), keep: 'status' },
      { kubectl: 'scale deployment web --replicas=5' },
      { kubectl: 'get deployment web' },
      { kubectl: 'get deployment web -o wide' },
      { kubectl: 'get deployment web -o jsonpath={.spec.replicas}' },
    ],
  },
];
