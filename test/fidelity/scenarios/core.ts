/**
 * Every verb on core/v1 resources: create, get, list, update, patch, delete, deletecollection, watch,
 * with the defaults each kind gets and the answers each registry gives.
 */
import type { Scenario } from '../scenario.ts';
import { configMap, pod, podSpec, secret, service } from './objects.ts';

const cms = '/api/v1/namespaces/{{ns}}/configmaps';

export const core: Scenario[] = [
  {
    id: 'core/configmap-crud',
    title: 'ConfigMap: create, get, update, stale update, delete, get',
    steps: [
      { req: `POST ${cms}`, body: configMap('one'), save: { rv: 'metadata.resourceVersion' } },
      { req: `GET ${cms}/one` },
      { req: `PUT ${cms}/one`, body: { ...configMap('one', { a: '2' }), metadata: { name: 'one', resourceVersion: '{{rv}}' } } },
      { req: `PUT ${cms}/one`, body: { ...configMap('one', { a: '3' }), metadata: { name: 'one', resourceVersion: '{{rv}}' } } },
      { req: `PUT ${cms}/one`, body: configMap('one', { a: '4' }) },
      { req: `DELETE ${cms}/one` },
      { req: `GET ${cms}/one` },
    ],
  },
  {
    id: 'core/configmap-create-errors',
    title: 'ConfigMap create: already exists, no name, name mismatch on PUT, namespace mismatch, wrong kind, wrong apiVersion',
    steps: [
      { req: `POST ${cms}`, body: configMap('dup'), keep: 'status' },
      { req: `POST ${cms}`, body: configMap('dup') },
      { req: `POST ${cms}`, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} } },
      { req: `PUT ${cms}/dup`, body: configMap('other') },
      { req: `POST ${cms}`, body: { ...configMap('x'), metadata: { name: 'x', namespace: 'elsewhere' } } },
      { req: `POST ${cms}`, body: secret('x') },
      { req: `POST ${cms}`, body: { ...configMap('x'), apiVersion: 'v2' } },
      { req: `PUT ${cms}/missing`, body: configMap('missing') },
      { req: `POST /api/v1/namespaces/fid-missing-{{r}}/configmaps`, body: configMap('x') },
    ],
  },
  {
    id: 'core/configmap-list-deletecollection',
    title: 'ConfigMaps: list with label selectors, deletecollection by label, list again',
    steps: [
      { req: `POST ${cms}`, body: configMap('a', { k: 'v' }, { labels: { tier: 'web' } }), keep: 'status' },
      { req: `POST ${cms}`, body: configMap('b', { k: 'v' }, { labels: { tier: 'db' } }), keep: 'status' },
      { req: `POST ${cms}`, body: configMap('c', { k: 'v' }, { labels: { tier: 'web' } }), keep: 'status' },
      { req: `GET ${cms}?labelSelector=tier%3Dweb`, pick: ['kind', 'apiVersion', 'metadata', 'items.*.metadata.name', 'items.*.kind', 'items.*.apiVersion'] },
      { req: `GET ${cms}?labelSelector=tier+in+(db,cache)`, pick: ['items.*.metadata.name'] },
      { req: `GET ${cms}?labelSelector=!tier`, pick: ['items.*.metadata.name'] },
      { req: `DELETE ${cms}?labelSelector=tier%3Dweb`, pick: ['kind', 'apiVersion', 'metadata', 'items.*.metadata.name', 'items.*.kind'] },
      { req: `GET ${cms}`, pick: ['items.*.metadata.name'] },
    ],
  },
  {
    id: 'core/secret-crud',
    title: 'Secret: create with stringData (merged into data), type defaulted, immutable secret refuses data changes',
    steps: [
      { req: 'POST /api/v1/namespaces/{{ns}}/secrets', body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, stringData: { user: 'admin' }, data: { pass: 'cGFzcw==' } } },
      { req: 'POST /api/v1/namespaces/{{ns}}/secrets', body: { ...secret('frozen'), immutable: true }, keep: 'status' },
      { req: 'PATCH /api/v1/namespaces/{{ns}}/secrets/frozen', type: 'merge', body: { data: { k: 'b3RoZXI=' } } },
      { req: 'POST /api/v1/namespaces/{{ns}}/secrets', body: secret('tls', { 'tls.crt': 'YQ==' }, 'kubernetes.io/tls') },
      { req: 'DELETE /api/v1/namespaces/{{ns}}/secrets/s' },
    ],
  },
  {
    id: 'core/pod-create-defaults',
    title: 'Pod: create answers the defaulted pod (admission and defaults), get, list',
    steps: [
      { req: 'POST /api/v1/namespaces/{{ns}}/pods', body: pod('web', { labels: { app: 'web' } }) },
      { req: 'GET /api/v1/namespaces/{{ns}}/pods/web', pick: ['spec', 'status'] },
      { req: 'GET /api/v1/namespaces/{{ns}}/pods', pick: ['kind', 'apiVersion', 'metadata', 'items.*.metadata.name'] },
    ],
  },
  {
    id: 'core/pod-resources-qos',
    title: 'Pod: requests defaulted from limits, QoS class Guaranteed and Burstable',
    steps: [
      { req: 'POST /api/v1/namespaces/{{ns}}/pods', body: pod('g', { spec: podSpec({ containers: [{ name: 'c', image: 'nginx', resources: { limits: { cpu: '100m', memory: '64Mi' } } }] }) }), pick: ['spec.containers', 'status'] },
      { req: 'POST /api/v1/namespaces/{{ns}}/pods', body: pod('b', { spec: podSpec({ containers: [{ name: 'c', image: 'nginx:latest', resources: { requests: { cpu: '0.5' } } }] }) }), pick: ['spec.containers', 'status'] },
    ],
  },
  {
    id: 'core/pod-delete',
    title: 'Pod: an unscheduled pod is deleted at once and DELETE answers with the pod',
    steps: [
      { req: 'POST /api/v1/namespaces/{{ns}}/pods', body: pod('p'), keep: 'status' },
      { req: 'DELETE /api/v1/namespaces/{{ns}}/pods/p', pick: ['kind', 'metadata.name', 'metadata.deletionTimestamp', 'metadata.deletionGracePeriodSeconds', 'status'] },
      { req: 'GET /api/v1/namespaces/{{ns}}/pods/p' },
    ],
  },
  {
    id: 'core/pod-status-subresource',
    title: 'Pod status: PUT /status changes status only; a spec change through /status is ignored',
    steps: [
      { req: 'POST /api/v1/namespaces/{{ns}}/pods', body: pod('p'), keep: 'status' },
      { req: 'PATCH /api/v1/namespaces/{{ns}}/pods/p/status', type: 'merge', body: { status: { phase: 'Running', message: 'hello' }, metadata: { labels: { x: 'y' } } }, pick: ['metadata.labels', 'status.phase', 'status.message'] },
      { req: 'PATCH /api/v1/namespaces/{{ns}}/pods/p', type: 'merge', body: { status: { phase: 'Failed' } }, pick: ['status.phase'] },
      { req: 'GET /api/v1/namespaces/{{ns}}/pods/p/status', pick: ['kind', 'status.phase', 'metadata.name'] },
    ],
  },
  {
    id: 'core/pod-update-immutable',
    title: 'Pod: changing anything but images and a few fields is forbidden',
    steps: [
      { req: 'POST /api/v1/namespaces/{{ns}}/pods', body: pod('p'), keep: 'status' },
      { req: 'PATCH /api/v1/namespaces/{{ns}}/pods/p', type: 'strategic', body: { spec: { containers: [{ name: 'app', image: 'nginx:1.26' }] } }, pick: ['spec.containers.0.image'] },
      { req: 'PATCH /api/v1/namespaces/{{ns}}/pods/p', type: 'merge', body: { spec: { restartPolicy: 'Never' } }, pick: ['code', 'reason', 'details.causes.0.field', 'details.causes.0.reason'] },
    ],
  },
  {
    id: 'core/service-clusterip',
    title: 'Service ClusterIP: defaults (protocol, targetPort, ipFamilies, sessionAffinity), allocation kept on update',
    steps: [
      { req: 'POST /api/v1/namespaces/{{ns}}/services', body: service('web'), save: { rv: 'metadata.resourceVersion' } },
      { req: 'PUT /api/v1/namespaces/{{ns}}/services/web', body: { ...service('web', { ports: [{ port: 8080, name: 'http' }] }), metadata: { name: 'web', resourceVersion: '{{rv}}' } }, pick: ['spec'] },
    ],
  },
  {
    id: 'core/service-types',
    title: 'Service NodePort, LoadBalancer, headless and ExternalName defaults',
    steps: [
      { req: 'POST /api/v1/namespaces/{{ns}}/services', body: service('np', { type: 'NodePort' }), pick: ['spec', 'status'] },
      { req: 'POST /api/v1/namespaces/{{ns}}/services', body: service('lb', { type: 'LoadBalancer' }), pick: ['spec', 'status'] },
      { req: 'POST /api/v1/namespaces/{{ns}}/services', body: service('headless', { clusterIP: 'None' }), pick: ['spec'] },
      { req: 'POST /api/v1/namespaces/{{ns}}/services', body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'ext' }, spec: { type: 'ExternalName', externalName: 'example.com' } }, pick: ['spec'] },
      { req: 'DELETE /api/v1/namespaces/{{ns}}/services/np', pick: ['kind', 'metadata.name'] },
    ],
  },
  {
    id: 'core/serviceaccount-crud',
    title: 'ServiceAccount: create, get, patch, delete answers the object',
    steps: [
      { req: 'POST /api/v1/namespaces/{{ns}}/serviceaccounts', body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } } },
      { req: 'PATCH /api/v1/namespaces/{{ns}}/serviceaccounts/robot', type: 'merge', body: { automountServiceAccountToken: false }, pick: ['automountServiceAccountToken'] },
      { req: 'DELETE /api/v1/namespaces/{{ns}}/serviceaccounts/robot', pick: ['kind', 'metadata.name', 'automountServiceAccountToken'] },
    ],
  },
  {
    id: 'core/serviceaccount-token',
    title: 'TokenRequest on serviceaccounts/token: a signed token for an existing account, 404 for a missing one',
    steps: [
      { req: 'POST /api/v1/namespaces/{{ns}}/serviceaccounts', body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } }, keep: 'status' },
      { req: 'POST /api/v1/namespaces/{{ns}}/serviceaccounts/robot/token', body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } } },
      { req: 'POST /api/v1/namespaces/{{ns}}/serviceaccounts/ghost/token', body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} } },
      { req: 'POST /api/v1/namespaces/{{ns}}/serviceaccounts/robot/token', body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 10 } } },
    ],
  },
  {
    id: 'core/namespace-lifecycle',
    title: 'Namespace: create (finalizer kubernetes, label), get, delete answers Terminating, immortal namespaces are refused',
    namespace: false,
    steps: [
      { req: 'POST /api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fid-life-{{r}}' } } },
      { req: 'DELETE /api/v1/namespaces/fid-life-{{r}}', pick: ['kind', 'metadata.name', 'metadata.labels', 'spec', 'status.phase'] },
      { req: 'DELETE /api/v1/namespaces/kube-system' },
      { req: 'DELETE /api/v1/namespaces/fid-never-{{r}}' },
      { req: 'POST /api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'Bad_Name' } } },
    ],
    cleanup: [{ req: 'PUT /api/v1/namespaces/fid-life-{{r}}/finalize', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fid-life-{{r}}' }, spec: { finalizers: [] } } }],
  },
  {
    id: 'core/endpoints-events-pvc',
    title: 'Endpoints, core/v1 Event and PersistentVolumeClaim: create and the defaults they get',
    steps: [
      { req: 'POST /api/v1/namespaces/{{ns}}/endpoints', body: { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'ep' }, subsets: [{ addresses: [{ ip: '10.1.2.3' }], ports: [{ port: 80 }] }] }, pick: ['subsets'] },
      {
        req: 'POST /api/v1/namespaces/{{ns}}/events',
        body: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'ev' }, involvedObject: { kind: 'Pod', name: 'p', namespace: '{{ns}}' }, reason: 'Tested', message: 'hello', type: 'Normal' },
        pick: ['involvedObject', 'reason', 'message', 'type', 'source', 'count', 'reportingComponent', 'reportingInstance'],
      },
      {
        req: 'POST /api/v1/namespaces/{{ns}}/persistentvolumeclaims',
        body: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
        pick: ['spec', 'status'],
      },
    ],
  },
  {
    id: 'core/watch-configmaps',
    title: 'Watch of a namespace: ADDED, MODIFIED, DELETED with the deleted state',
    steps: [
      { watch: 'w', req: `GET ${cms}?watch=true&timeoutSeconds=30` },
      { req: `POST ${cms}`, body: configMap('w1'), keep: 'status' },
      { req: `PATCH ${cms}/w1`, type: 'merge', body: { data: { a: '2' } }, keep: 'status' },
      { req: `DELETE ${cms}/w1`, keep: 'status' },
      { events: 'w', count: 3 },
    ],
  },
  {
    id: 'core/node-cluster-scoped',
    title: 'Node: cluster-scoped create, status kept on create, namespaced path is 404',
    namespace: false,
    steps: [
      { req: 'POST /api/v1/nodes', body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'fid-node-{{r}}', labels: { fid: '{{r}}' } }, status: { capacity: { cpu: '2' } } }, pick: ['metadata.name', 'metadata.labels', 'spec', 'status'] },
      { req: 'GET /api/v1/nodes?labelSelector=fid%3D{{r}}', pick: ['items.*.metadata.name'] },
      { req: 'GET /api/v1/namespaces/default/nodes/fid-node-{{r}}' },
      { req: 'DELETE /api/v1/nodes/fid-node-{{r}}', pick: ['kind', 'status', 'details'] },
    ],
    cleanup: [{ req: 'DELETE /api/v1/nodes/fid-node-{{r}}' }],
  },
  {
    id: 'core/configmap-kubectl',
    title: 'kubectl: create configmap, get -o yaml, get table, describe, label, delete',
    steps: [
      { kubectl: 'create configmap web --from-literal=a=1 --from-literal=b=2' },
      { kubectl: 'get configmap web -o yaml' },
      { kubectl: 'get configmaps' },
      { kubectl: 'label configmap web tier=front' },
      { kubectl: 'get configmaps --show-labels' },
      { kubectl: 'delete configmap web' },
      { kubectl: 'get configmap web' },
    ],
  },
];
