/**
 * Validation errors of built-in kinds: the 422 Invalid Status with its message and causes, for object
 * metadata (names, labels, annotations, generateName) and for the specs of common kinds.
 */
import type { Scenario } from '../scenario.ts';
import { configMap, container, pod, podSpec, service } from './objects.ts';

const cms = '/api/v1/namespaces/{{ns}}/configmaps';
const pods = '/api/v1/namespaces/{{ns}}/pods';
const svcs = '/api/v1/namespaces/{{ns}}/services';

export const validation: Scenario[] = [
  {
    id: 'validation/object-names',
    title: 'Names: uppercase, too long, a dot-dot, generateName that yields an invalid name',
    steps: [
      { req: `POST ${cms}`, body: configMap('Upper') },
      { req: `POST ${cms}`, body: configMap('a'.repeat(254)) },
      { req: `POST ${cms}`, body: configMap('a..b') },
      { req: `POST ${cms}`, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'Bad_' } } },
      { req: `POST ${pods}`, body: pod('my.pod') },
      { req: `POST ${svcs}`, body: service('my.svc') },
    ],
  },
  {
    id: 'validation/generate-name',
    title: 'generateName: a valid prefix gets five random characters; name wins over generateName',
    steps: [
      { req: `POST ${cms}`, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } }, pick: ['metadata.name', 'metadata.generateName'] },
      { req: `POST ${cms}`, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-', name: 'fixed' } }, pick: ['metadata.name', 'metadata.generateName'] },
    ],
  },
  {
    id: 'validation/labels-annotations',
    title: 'Labels and annotations: bad keys, bad values, too long values, too large annotations',
    steps: [
      { req: `POST ${cms}`, body: configMap('a', {}, { labels: { 'bad key': 'v' } }) },
      { req: `POST ${cms}`, body: configMap('b', {}, { labels: { k: 'bad value!' } }) },
      { req: `POST ${cms}`, body: configMap('c', {}, { labels: { k: 'x'.repeat(64) } }) },
      { req: `POST ${cms}`, body: configMap('d', {}, { annotations: { 'a/b/c': 'v' } }) },
      { req: `POST ${cms}`, body: configMap('e', {}, { annotations: { big: 'x'.repeat(262145) } }) },
      { req: `POST ${cms}`, body: configMap('f', {}, { labels: { 'example.com/': 'v' } }) },
    ],
  },
  {
    id: 'validation/configmap-keys',
    title: 'ConfigMap data keys: invalid characters, a key in both data and binaryData',
    steps: [
      { req: `POST ${cms}`, body: configMap('a', { 'bad/key': 'v' }) },
      { req: `POST ${cms}`, body: { ...configMap('b', { k: 'v' }), binaryData: { k: 'YQ==' } } },
      { req: `POST ${cms}`, body: configMap('c', { '..': 'v' }) },
    ],
  },
  {
    id: 'validation/pod-spec',
    title: 'Pod spec: no containers, container without image, invalid container name, duplicate names, bad restartPolicy',
    steps: [
      { req: `POST ${pods}`, body: pod('a', { spec: { containers: [] } }) },
      { req: `POST ${pods}`, body: pod('b', { spec: { containers: [{ name: 'c' }] } }) },
      { req: `POST ${pods}`, body: pod('c', { spec: podSpec({ containers: [container('Bad_Name')] }) }) },
      { req: `POST ${pods}`, body: pod('d', { spec: podSpec({ containers: [container('x'), container('x')] }) }) },
      { req: `POST ${pods}`, body: pod('e', { spec: podSpec({ restartPolicy: 'Sometimes' }) }) },
    ],
  },
  {
    id: 'validation/pod-container-fields',
    title: 'Container fields: bad port numbers, bad protocol, negative resources, request above limit, bad pull policy',
    steps: [
      { req: `POST ${pods}`, body: pod('a', { spec: podSpec({ containers: [container('c', 'nginx', { ports: [{ containerPort: 70000 }] })] }) }) },
      { req: `POST ${pods}`, body: pod('b', { spec: podSpec({ containers: [container('c', 'nginx', { ports: [{ containerPort: 80, protocol: 'ICMP' }] })] }) }) },
      { req: `POST ${pods}`, body: pod('c', { spec: podSpec({ containers: [container('c', 'nginx', { resources: { requests: { cpu: '-1' } } })] }) }) },
      { req: `POST ${pods}`, body: pod('d', { spec: podSpec({ containers: [container('c', 'nginx', { resources: { requests: { cpu: '2' }, limits: { cpu: '1' } } })] }) }) },
      { req: `POST ${pods}`, body: pod('e', { spec: podSpec({ containers: [container('c', 'nginx', { imagePullPolicy: 'Sometimes' })] }) }) },
    ],
  },
  {
    id: 'validation/service-spec',
    title: 'Service spec: no ports, port 0, bad type, targetPort out of range, duplicate port names',
    steps: [
      { req: `POST ${svcs}`, body: service('a', { ports: [] }) },
      { req: `POST ${svcs}`, body: service('b', { ports: [{ port: 0 }] }) },
      { req: `POST ${svcs}`, body: service('c', { type: 'Magic' }) },
      { req: `POST ${svcs}`, body: service('d', { ports: [{ port: 80, targetPort: 70000 }] }) },
      { req: `POST ${svcs}`, body: service('e', { ports: [{ port: 80, name: 'x' }, { port: 81, name: 'x' }] }) },
    ],
  },
  {
    id: 'validation/secret-and-serviceaccount',
    title: 'Secret: bad data key, data not base64 (400), service-account-token without annotation; ServiceAccount bad name',
    steps: [
      { req: 'POST /api/v1/namespaces/{{ns}}/secrets', body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'a' }, data: { 'bad key': 'YQ==' } } },
      { req: 'POST /api/v1/namespaces/{{ns}}/secrets', body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'b' }, data: { k: 'not base64!' } } },
      { req: 'POST /api/v1/namespaces/{{ns}}/secrets', body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'c' }, type: 'kubernetes.io/service-account-token' } },
      { req: 'POST /api/v1/namespaces/{{ns}}/serviceaccounts', body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'Bad' } } },
    ],
  },
  {
    id: 'validation/type-errors',
    title: 'Fields of the wrong JSON type: a string for replicas, a number for a label, a list for metadata',
    steps: [
      { req: 'POST /apis/apps/v1/namespaces/{{ns}}/deployments', body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' }, spec: { replicas: 'three' } } },
      { req: `POST ${cms}`, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', labels: { a: 1 } } } },
      { req: `POST ${cms}`, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: [] } },
      { req: `POST ${cms}`, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'y' }, data: { a: 1 } } },
    ],
  },
  {
    id: 'validation/immutable-configmap',
    title: 'Immutable ConfigMap: data changes are refused, immutable cannot be unset, metadata may change',
    steps: [
      { req: `POST ${cms}`, body: { ...configMap('frozen'), immutable: true }, keep: 'status' },
      { req: `PATCH ${cms}/frozen`, type: 'merge', body: { data: { a: '2' } } },
      { req: `PATCH ${cms}/frozen`, type: 'merge', body: { immutable: false } },
      { req: `PATCH ${cms}/frozen`, type: 'merge', body: { metadata: { labels: { ok: 'yes' } } }, pick: ['metadata.labels', 'immutable'] },
    ],
  },
  {
    id: 'validation/metadata-update-rules',
    title: 'Updates: uid and creationTimestamp are immutable, a changed namespace in the body is 400, a finalizer with a bad name',
    steps: [
      { req: `POST ${cms}`, body: configMap('a'), keep: 'status' },
      { req: `PATCH ${cms}/a`, type: 'merge', body: { metadata: { uid: '00000000-0000-0000-0000-000000000000' } } },
      { req: `PATCH ${cms}/a`, type: 'merge', body: { metadata: { creationTimestamp: '2001-01-01T00:00:00Z' } }, pick: ['metadata.creationTimestamp'] },
      { req: `PATCH ${cms}/a`, type: 'merge', body: { metadata: { finalizers: ['Bad Finalizer'] } } },
      { req: `PATCH ${cms}/a`, type: 'merge', body: { metadata: { namespace: 'elsewhere' } } },
    ],
  },
];
