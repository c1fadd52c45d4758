/**
 * DELETE and its options: finalizers, propagationPolicy (Orphan, Foreground, Background), preconditions
 * (uid, resourceVersion), gracePeriodSeconds, dryRun, DeleteOptions bodies, deletecollection.
 */
import type { Scenario } from '../scenario.ts';
import { configMap, deployment, pod } from './objects.ts';

const cms = '/api/v1/namespaces/{{ns}}/configmaps';
const deps = '/apis/apps/v1/namespaces/{{ns}}/deployments';
const deleteOptions = (o: Record<string, unknown>): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'DeleteOptions', ...o });

export const deleteScenarios: Scenario[] = [
  {
    id: 'delete/finalizers',
    title: 'Finalizers: delete marks the object, a second delete answers it unchanged, removing the last finalizer deletes it',
    steps: [
      { watch: 'w', req: `GET ${cms}?watch=true&timeoutSeconds=30` },
      { req: `POST ${cms}`, body: configMap('f', { a: '1' }, { finalizers: ['fidelity.kubeloom.test/a', 'fidelity.kubeloom.test/b'] }), keep: 'status' },
      { req: `DELETE ${cms}/f` },
      { req: `DELETE ${cms}/f`, pick: ['metadata.deletionTimestamp', 'metadata.resourceVersion'] },
      { req: `PATCH ${cms}/f`, type: 'jsonpatch', body: [{ op: 'remove', path: '/metadata/finalizers/0' }], pick: ['metadata.finalizers'] },
      { req: `PATCH ${cms}/f`, type: 'merge', body: { metadata: { finalizers: ['fidelity.kubeloom.test/new'] } } },
      { req: `PATCH ${cms}/f`, type: 'merge', body: { metadata: { finalizers: null } }, pick: ['metadata.name', 'metadata.finalizers', 'metadata.deletionTimestamp'] },
      { req: `GET ${cms}/f` },
      { events: 'w', count: 4 },
    ],
  },
  {
    id: 'delete/propagation-orphan',
    title: 'propagationPolicy=Orphan adds the orphan finalizer (nothing removes it without a garbage collector)',
    steps: [
      { req: `POST ${deps}`, body: deployment('web'), keep: 'status' },
      { req: `DELETE ${deps}/web?propagationPolicy=Orphan`, pick: ['metadata.finalizers', 'metadata.deletionTimestamp', 'metadata.deletionGracePeriodSeconds'] },
      { req: `GET ${deps}/web`, pick: ['metadata.finalizers'] },
    ],
    cleanup: [{ req: `PATCH ${deps}/web`, type: 'merge', body: { metadata: { finalizers: null } } }],
  },
  {
    id: 'delete/propagation-foreground',
    title: 'propagationPolicy=Foreground adds the foregroundDeletion finalizer; a body DeleteOptions does the same',
    steps: [
      { req: `POST ${deps}`, body: deployment('web'), keep: 'status' },
      { req: `DELETE ${deps}/web`, body: deleteOptions({ propagationPolicy: 'Foreground' }), pick: ['metadata.finalizers', 'metadata.deletionTimestamp'] },
      { req: `POST ${cms}`, body: configMap('c'), keep: 'status' },
      { req: `DELETE ${cms}/c?propagationPolicy=Foreground`, pick: ['kind', 'metadata.finalizers'] },
    ],
    cleanup: [{ req: `PATCH ${deps}/web`, type: 'merge', body: { metadata: { finalizers: null } } }, { req: `PATCH ${cms}/c`, type: 'merge', body: { metadata: { finalizers: null } } }],
  },
  {
    id: 'delete/propagation-background-and-invalid',
    title: 'propagationPolicy=Background deletes at once; an unknown policy is 422; orphanDependents with a policy is 422',
    steps: [
      { req: `POST ${cms}`, body: configMap('c'), keep: 'status' },
      { req: `DELETE ${cms}/c?propagationPolicy=Sideways` },
      { req: `DELETE ${cms}/c`, body: deleteOptions({ orphanDependents: true, propagationPolicy: 'Background' }) },
      { req: `DELETE ${cms}/c?propagationPolicy=Background` },
    ],
  },
  {
    id: 'delete/orphan-dependents',
    title: 'orphanDependents=true (deprecated) behaves as Orphan; false as Background',
    steps: [
      { req: `POST ${cms}`, body: configMap('a'), keep: 'status' },
      { req: `POST ${cms}`, body: configMap('b'), keep: 'status' },
      { req: `DELETE ${cms}/a`, body: deleteOptions({ orphanDependents: true }), pick: ['kind', 'metadata.finalizers'] },
      { req: `DELETE ${cms}/b`, body: deleteOptions({ orphanDependents: false }), pick: ['kind', 'status', 'details'] },
    ],
    cleanup: [{ req: `PATCH ${cms}/a`, type: 'merge', body: { metadata: { finalizers: null } } }],
  },
  {
    id: 'delete/preconditions',
    title: 'Preconditions: uid and resourceVersion mismatches are 409 Conflict naming the Kind; matching ones delete',
    steps: [
      { req: `POST ${cms}`, body: configMap('c'), save: { uid: 'metadata.uid', rv: 'metadata.resourceVersion' }, keep: 'status' },
      { req: `DELETE ${cms}/c`, body: deleteOptions({ preconditions: { uid: '11111111-2222-3333-4444-555555555555' } }) },
      { req: `DELETE ${cms}/c`, body: deleteOptions({ preconditions: { resourceVersion: '1' } }) },
      { req: `DELETE ${cms}/c`, body: deleteOptions({ preconditions: { uid: '{{uid}}', resourceVersion: '{{rv}}' } }) },
      { req: `DELETE ${deps}/ghost`, body: deleteOptions({ preconditions: { uid: '{{uid}}' } }) },
    ],
  },
  {
    id: 'delete/preconditions-apps',
    title: 'Preconditions on a Deployment: the conflict names Deployment and group apps',
    steps: [
      { req: `POST ${deps}`, body: deployment('web'), keep: 'status' },
      { req: `DELETE ${deps}/web`, body: deleteOptions({ preconditions: { resourceVersion: '1' } }) },
    ],
  },
  {
    id: 'delete/grace-period',
    title: 'gracePeriodSeconds: 0 and 30 on an unscheduled pod (deleted at once), invalid values, on a ConfigMap',
    steps: [
      { req: 'POST /api/v1/namespaces/{{ns}}/pods', body: pod('a'), keep: 'status' },
      { req: 'POST /api/v1/namespaces/{{ns}}/pods', body: pod('b'), keep: 'status' },
      { req: 'DELETE /api/v1/namespaces/{{ns}}/pods/a?gracePeriodSeconds=0', pick: ['kind', 'metadata.deletionTimestamp', 'metadata.deletionGracePeriodSeconds'] },
      { req: 'DELETE /api/v1/namespaces/{{ns}}/pods/b', body: deleteOptions({ gracePeriodSeconds: 30 }), pick: ['kind', 'metadata.deletionTimestamp', 'metadata.deletionGracePeriodSeconds'] },
      { req: 'GET /api/v1/namespaces/{{ns}}/pods/b' },
      { req: `POST ${cms}`, body: configMap('c'), keep: 'status' },
      { req: `DELETE ${cms}/c?gracePeriodSeconds=abc` },
      { req: `DELETE ${cms}/c?gracePeriodSeconds=-5`, pick: ['kind', 'status', 'details.name'] },
    ],
  },
  {
    id: 'delete/grace-period-finalizer',
    title: 'A pod with a finalizer deleted with a grace period keeps deletionGracePeriodSeconds',
    steps: [
      { req: 'POST /api/v1/namespaces/{{ns}}/pods', body: pod('p', { finalizers: ['fidelity.kubeloom.test/hold'] }), keep: 'status' },
      { req: 'DELETE /api/v1/namespaces/{{ns}}/pods/p?gracePeriodSeconds=15', pick: ['metadata.deletionGracePeriodSeconds', 'metadata.finalizers', 'status.phase'] },
      { req: 'PATCH /api/v1/namespaces/{{ns}}/pods/p', type: 'merge', body: { metadata: { finalizers: null } }, pick: ['metadata.name', 'metadata.finalizers'] },
      { req: 'GET /api/v1/namespaces/{{ns}}/pods/p' },
    ],
  },
  {
    id: 'delete/dry-run',
    title: 'dryRun=All delete answers as a delete would and keeps the object; an invalid dryRun is 400',
    steps: [
      { req: `POST ${cms}`, body: configMap('c'), keep: 'status' },
      { req: `DELETE ${cms}/c?dryRun=All` },
      { req: `GET ${cms}/c`, pick: ['metadata.name'] },
      { req: `DELETE ${cms}/c?dryRun=Some` },
      { req: `DELETE ${cms}/c`, body: deleteOptions({ dryRun: ['All'] }) },
      { req: `GET ${cms}/c`, pick: ['metadata.name'] },
      { req: 'POST /api/v1/namespaces/{{ns}}/pods', body: pod('p'), keep: 'status' },
      { req: 'DELETE /api/v1/namespaces/{{ns}}/pods/p?dryRun=All', pick: ['kind', 'metadata.name'] },
    ],
  },
  {
    id: 'delete/options-body',
    title: 'DeleteOptions bodies: malformed JSON, wrong kind, meta.k8s.io/v1 apiVersion',
    steps: [
      { req: `POST ${cms}`, body: configMap('c'), keep: 'status' },
      { req: `DELETE ${cms}/c`, body: '{"kind":' },
      { req: `DELETE ${cms}/c`, body: { apiVersion: 'v1', kind: 'ConfigMap' } },
      { req: `DELETE ${cms}/c`, body: { apiVersion: 'meta.k8s.io/v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 } },
    ],
  },
  {
    id: 'delete/deletecollection',
    title: 'deletecollection: all, with a field selector, with dryRun; then the namespace is empty',
    steps: [
      { req: `POST ${cms}`, body: configMap('a'), keep: 'status' },
      { req: `POST ${cms}`, body: configMap('b'), keep: 'status' },
      { req: `POST ${cms}`, body: configMap('c'), keep: 'status' },
      { req: `DELETE ${cms}?fieldSelector=metadata.name%3Da`, pick: ['kind', 'items.*.metadata.name'] },
      { req: `DELETE ${cms}?dryRun=All`, pick: ['kind', 'items.*.metadata.name'] },
      { req: `DELETE ${cms}`, pick: ['kind', 'apiVersion', 'metadata', 'items.*.metadata.name'] },
      { req: `GET ${cms}`, pick: ['items'] },
    ],
  },
  {
    id: 'delete/kubectl-delete',
    title: 'kubectl delete: by name, by label, --cascade=orphan, missing object, --ignore-not-found',
    steps: [
      { req: `POST ${cms}`, body: configMap('a', {}, { labels: { x: 'y' } }), keep: 'status' },
      { req: `POST ${cms}`, body: configMap('b', {}, { labels: { x: 'y' } }), keep: 'status' },
      { req: `POST ${cms}`, body: configMap('c'), keep: 'status' },
      { kubectl: 'delete configmap -l x=y' },
      { kubectl: 'delete configmap c --cascade=orphan --wait=false' },
      { kubectl: 'delete configmap ghost' },
      { kubectl: 'delete configmap ghost --ignore-not-found' },
    ],
    cleanup: [{ req: `PATCH ${cms}/c`, type: 'merge', body: { metadata: { finalizers: null } } }],
  },
];
