/**
 * Server-side apply: creating by apply, managedFields, conflicts between managers (409 and its
 * causes), force, list-maps merged by key, the status subresource, the required fieldManager, and
 * kubectl apply both server- and client-side.
 */
import type { Scenario } from '../scenario.ts';
import { configMap, deployment } from './objects.ts';

const cms = '/api/v1/namespaces/{{ns}}/configmaps';
const deps = '/apis/apps/v1/namespaces/{{ns}}/deployments';

export const apply: Scenario[] = [
  {
    id: 'apply/create-and-update',
    title: 'Apply creates (201) with an Apply managedFields entry, re-apply updates (200), an identical apply changes nothing',
    steps: [
      { req: `PATCH ${cms}/a?fieldManager=alice`, type: 'apply', body: configMap('a', { x: '1' }) },
      { req: `PATCH ${cms}/a?fieldManager=alice`, type: 'apply', body: configMap('a', { x: '2', y: '3' }), pick: ['data', 'metadata.managedFields', 'metadata.resourceVersion'] },
      { req: `PATCH ${cms}/a?fieldManager=alice`, type: 'apply', body: configMap('a', { x: '2', y: '3' }), pick: ['metadata.resourceVersion'] },
      { req: `PATCH ${cms}/a?fieldManager=alice`, type: 'apply', body: configMap('a', { y: '3' }), pick: ['data', 'metadata.managedFields'] },
    ],
  },
  {
    id: 'apply/conflict-and-force',
    title: 'Apply conflicts with another manager (409 with one cause per field), force takes ownership',
    steps: [
      { req: `PATCH ${cms}/a?fieldManager=alice`, type: 'apply', body: configMap('a', { x: '1', y: '1' }), keep: 'status' },
      { req: `PATCH ${cms}/a?fieldManager=bob`, type: 'apply', body: configMap('a', { x: '2', y: '2' }) },
      { req: `PATCH ${cms}/a?fieldManager=bob&force=true`, type: 'apply', body: configMap('a', { x: '2' }), pick: ['data', 'metadata.managedFields'] },
      { req: `PATCH ${cms}/a?fieldManager=carol`, type: 'apply', body: configMap('a', { y: '1' }), pick: ['data', 'metadata.managedFields'] },
    ],
  },
  {
    id: 'apply/conflict-with-update',
    title: 'Apply conflicts with a field set by an Update (PUT/merge patch) manager',
    steps: [
      { req: `POST ${cms}?fieldManager=editor`, body: configMap('a', { x: '1' }), keep: 'status' },
      { req: `PATCH ${cms}/a?fieldManager=alice`, type: 'apply', body: configMap('a', { x: '2' }) },
      { req: `PATCH ${cms}/a?fieldManager=alice`, type: 'apply', body: configMap('a', { x: '1' }), pick: ['metadata.managedFields'] },
    ],
  },
  {
    id: 'apply/field-manager-required',
    title: 'Apply without fieldManager is 422; an apply with a different name than the URL is 400; force on a merge patch is 400',
    steps: [
      { req: `PATCH ${cms}/a`, type: 'apply', body: configMap('a') },
      { req: `PATCH ${cms}/a?fieldManager=alice`, type: 'apply', body: configMap('b') },
      { req: `PATCH ${cms}/a?fieldManager=alice`, type: 'apply', body: 'data: [unclosed' },
      { req: `POST ${cms}`, body: configMap('a'), keep: 'status' },
      { req: `PATCH ${cms}/a?force=true`, type: 'merge', body: { data: { a: '2' } } },
    ],
  },
  {
    id: 'apply/list-map-containers',
    title: 'Apply merges containers by name and ports by containerPort+protocol; two managers own different containers',
    steps: [
      { req: `PATCH ${deps}/web?fieldManager=alice`, type: 'apply', body: deployment('web', 1, { template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx:1.25', ports: [{ containerPort: 80 }] }] } } }), keep: 'status' },
      {
        req: `PATCH ${deps}/web?fieldManager=bob`,
        type: 'apply',
        body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { template: { spec: { containers: [{ name: 'side', image: 'busybox' }] } } } },
        pick: ['spec.template.spec.containers.*.name', 'metadata.managedFields'],
      },
      {
        req: `PATCH ${deps}/web?fieldManager=alice`,
        type: 'apply',
        body: deployment('web', 1, { template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx:1.25', ports: [{ containerPort: 80 }, { containerPort: 443 }] }] } } }),
        pick: ['spec.template.spec.containers'],
      },
      {
        req: `PATCH ${deps}/web?fieldManager=alice`,
        type: 'apply',
        body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'side', image: 'alpine' }] } } } },
      },
    ],
  },
  {
    id: 'apply/status-subresource',
    title: 'Apply to /status records a managedFields entry with subresource status',
    steps: [
      { req: `POST ${deps}`, body: deployment('web'), keep: 'status' },
      { req: `PATCH ${deps}/web/status?fieldManager=ctrl`, type: 'apply', body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, status: { replicas: 2 } }, pick: ['status', 'metadata.managedFields'] },
    ],
  },
  {
    id: 'apply/dry-run',
    title: 'Apply with dryRun=All answers the result without storing it',
    steps: [
      { req: `PATCH ${cms}/a?fieldManager=alice&dryRun=All`, type: 'apply', body: configMap('a') },
      { req: `GET ${cms}/a` },
    ],
  },
  {
    id: 'apply/managed-fields-stripped',
    title: 'An applied object carrying managedFields is refused; metadata.managedFields reset with a merge patch',
    steps: [
      { req: `PATCH ${cms}/a?fieldManager=alice`, type: 'apply', body: { ...configMap('a'), metadata: { name: 'a', managedFields: [{ manager: 'x', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {} }] } } },
      { req: `POST ${cms}`, body: configMap('b'), keep: 'status' },
      { req: `PATCH ${cms}/b`, type: 'merge', body: { metadata: { managedFields: [{}] } }, pick: ['metadata.managedFields'] },
    ],
  },
  {
    id: 'apply/kubectl-server-side',
    title: 'kubectl apply --server-side: create, reapply, conflict with another manager, --force-conflicts',
    steps: [
      { kubectl: 'apply --server-side -f -', stdin: JSON.stringify(configMap('a', { x: '1' })) },
      { kubectl: 'apply --server-side -f -', stdin: JSON.stringify(configMap('a', { x: '1' })) },
      { kubectl: 'apply --server-side --field-manager=other -f -', stdin: JSON.stringify(configMap('a', { x: '2' })) },
      { kubectl: 'apply --server-side --field-manager=other --force-conflicts -f -', stdin: JSON.stringify(configMap('a', { x: '2' })) },
      { kubectl: 'get configmap a -o json', pick: ['data', 'metadata.managedFields'] },
    ],
  },
  {
    id: 'apply/kubectl-client-side',
    title: 'kubectl apply (client-side): last-applied annotation, then a three-way patch',
    steps: [
      { kubectl: 'apply -f -', stdin: JSON.stringify(configMap('a', { x: '1', y: '2' })) },
      { kubectl: 'apply -f -', stdin: JSON.stringify(configMap('a', { x: '1' })) },
      { kubectl: 'get configmap a -o json', pick: ['data', 'metadata.annotations', 'metadata.managedFields'] },
      { kubectl: 'apply -f -', stdin: JSON.stringify(deployment('web')) },
      { kubectl: 'get deployment web -o json', pick: ['metadata.annotations', 'spec.replicas'] },
    ],
  },
];
