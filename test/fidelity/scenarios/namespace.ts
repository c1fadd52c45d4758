/**
 * A namespace being deleted. Without a namespace controller (the recording cluster runs no
 * kube-controller-manager; the replay server is started without one) it stays Terminating with its
 * contents: nothing new may be created in it (403 from the NamespaceLifecycle admission plugin),
 * existing objects may still be read, updated and deleted. The immortal namespaces may not be deleted.
 *
 * Upstream: staging/src/k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle/admission.go,
 * pkg/registry/core/namespace/storage/storage.go.
 */
import type { Scenario } from '../scenario.ts';
import { configMap, pod } from './objects.ts';

const cms = '/api/v1/namespaces/{{ns}}/configmaps';

export const namespaceScenarios: Scenario[] = [
  {
    id: 'namespace/terminating',
    title: 'Deleting a namespace with objects: Terminating, creates refused (403), updates and deletes of existing objects allowed',
    steps: [
      { req: `POST ${cms}`, body: configMap('c1'), keep: 'status' },
      { req: `POST ${cms}`, body: configMap('c2'), keep: 'status' },
      { req: 'POST /api/v1/namespaces/{{ns}}/pods', body: pod('p1'), keep: 'status' },
      { req: 'DELETE /api/v1/namespaces/{{ns}}', pick: ['kind', 'metadata.name', 'metadata.deletionTimestamp', 'spec', 'status'] },
      { req: 'GET /api/v1/namespaces/{{ns}}', pick: ['metadata.deletionTimestamp', 'metadata.finalizers', 'spec', 'status'] },
      { req: `GET ${cms}`, pick: ['items.*.metadata.name'] },
      { req: `POST ${cms}`, body: configMap('c3') },
      { req: `POST ${cms}`, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } } },
      { req: 'POST /api/v1/namespaces/{{ns}}/secrets', body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' } } },
      { req: `POST ${cms}?dryRun=All`, body: configMap('c4') },
      { req: `PUT ${cms}/c1`, body: configMap('c1', { a: 'updated' }), pick: ['metadata.name', 'data'] },
      { req: `PATCH ${cms}/c2`, type: 'merge', body: { data: { b: 'patched' } }, pick: ['data'] },
      { req: 'PATCH /api/v1/namespaces/{{ns}}/pods/p1', type: 'merge', body: { metadata: { labels: { x: 'y' } } }, pick: ['metadata.labels'] },
      { req: `DELETE ${cms}/c2`, keep: 'status' },
      { req: `GET ${cms}`, pick: ['items.*.metadata.name'] },
      { req: 'DELETE /api/v1/namespaces/{{ns}}', pick: ['kind', 'metadata.name', 'status'] },
      { req: 'PATCH /api/v1/namespaces/{{ns}}', type: 'merge', body: { metadata: { labels: { still: 'here' } } }, pick: ['metadata.labels', 'status'] },
    ],
  },
  {
    id: 'namespace/immortal',
    title: 'default, kube-system and kube-public may not be deleted (403); a missing namespace is 404',
    namespace: false,
    steps: [
      { req: 'DELETE /api/v1/namespaces/default?dryRun=All' },
      { req: 'DELETE /api/v1/namespaces/kube-system?dryRun=All' },
      { req: 'DELETE /api/v1/namespaces/kube-public?dryRun=All' },
      { req: 'DELETE /api/v1/namespaces/fid-missing-{{r}}' },
      { req: 'POST /api/v1/namespaces/fid-missing-{{r}}/configmaps', body: configMap('c') },
    ],
  },
];
