/**
 * Server-side conversions: meta.k8s.io Tables (v1 and v1beta1, includeObject, column definitions of
 * built-in printers) and PartialObjectMetadata(List), for get, list and watch.
 */
import type { Scenario } from '../scenario.ts';
import { configMap, deployment, job, pod, service } from './objects.ts';

const cms = '/api/v1/namespaces/{{ns}}/configmaps';
const table = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const meta = 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io';
const metaList = 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io';

export const tables: Scenario[] = [
  {
    id: 'tables/configmap-table',
    title: 'Table of ConfigMaps: columns, rows with PartialObjectMetadata objects, for a list and one object',
    steps: [
      { req: `POST ${cms}`, body: configMap('a', { k: 'v', l: 'w' }), keep: 'status' },
      { req: `GET ${cms}`, accept: table },
      { req: `GET ${cms}/a`, accept: table },
    ],
  },
  {
    id: 'tables/include-object',
    title: 'Table includeObject=None, Object and an invalid value; Table v1beta1',
    steps: [
      { req: `POST ${cms}`, body: configMap('a'), keep: 'status' },
      { req: `GET ${cms}?includeObject=None`, accept: table, pick: ['rows'] },
      { req: `GET ${cms}?includeObject=Object`, accept: table, pick: ['rows'] },
      { req: `GET ${cms}?includeObject=Everything`, accept: table },
      { req: `GET ${cms}`, accept: 'application/json;as=Table;v=v1beta1;g=meta.k8s.io', pick: ['kind', 'apiVersion', 'columnDefinitions.*.name'] },
    ],
  },
  {
    id: 'tables/builtin-printers',
    title: 'Table columns of pods, deployments, services, jobs, namespaces and roles',
    steps: [
      { req: 'POST /api/v1/namespaces/{{ns}}/pods', body: pod('p'), keep: 'status' },
      { req: 'POST /apis/apps/v1/namespaces/{{ns}}/deployments', body: deployment('d'), keep: 'status' },
      { req: 'POST /api/v1/namespaces/{{ns}}/services', body: service('s'), keep: 'status' },
      { req: 'POST /apis/batch/v1/namespaces/{{ns}}/jobs', body: job('j'), keep: 'status' },
      { req: 'GET /api/v1/namespaces/{{ns}}/pods', accept: table, pick: ['columnDefinitions', 'rows.*.cells'] },
      { req: 'GET /apis/apps/v1/namespaces/{{ns}}/deployments', accept: table, pick: ['columnDefinitions', 'rows.*.cells'] },
      { req: 'GET /api/v1/namespaces/{{ns}}/services', accept: table, pick: ['columnDefinitions', 'rows.*.cells'] },
      { req: 'GET /apis/batch/v1/namespaces/{{ns}}/jobs', accept: table, pick: ['columnDefinitions', 'rows.*.cells'] },
      { req: 'GET /api/v1/namespaces/{{ns}}', accept: table, pick: ['columnDefinitions', 'rows.*.cells'] },
      { req: 'GET /apis/rbac.authorization.k8s.io/v1/namespaces/{{ns}}/roles', accept: table, pick: ['columnDefinitions'] },
    ],
  },
  {
    id: 'tables/partial-object-metadata',
    title: 'PartialObjectMetadata for one object and PartialObjectMetadataList for a list',
    steps: [
      { req: `POST ${cms}`, body: configMap('a', { k: 'v' }, { labels: { x: 'y' } }), keep: 'status' },
      { req: `GET ${cms}/a`, accept: meta },
      { req: `GET ${cms}`, accept: metaList },
      { req: `GET ${cms}/a`, accept: metaList },
      { req: `GET ${cms}`, accept: meta },
    ],
  },
  {
    id: 'tables/watch-as-table',
    title: 'Watch with Table and PartialObjectMetadata encodings',
    steps: [
      { req: `POST ${cms}`, body: configMap('a'), keep: 'status' },
      { watch: 't', req: `GET ${cms}?watch=true&resourceVersion=0&timeoutSeconds=30`, accept: table },
      { events: 't', count: 1 },
      { watch: 'm', req: `GET ${cms}?watch=true&resourceVersion=0&timeoutSeconds=30`, accept: meta },
      { events: 'm', count: 1 },
    ],
  },
  {
    id: 'tables/kubectl-get-outputs',
    title: 'kubectl get: default table, -o wide, --no-headers, custom-columns, -o name for pods and services',
    steps: [
      { req: 'POST /api/v1/namespaces/{{ns}}/pods', body: pod('p', { labels: { app: 'p' } }), keep: 'status' },
      { req: 'POST /api/v1/namespaces/{{ns}}/services', body: service('s', { type: 'NodePort' }), keep: 'status' },
      { kubectl: 'get pods' },
      { kubectl: 'get pods -o wide' },
      { kubectl: 'get pods,services --no-headers' },
      { kubectl: 'get pods -o custom-columns=NAME:.metadata.name,PHASE:.status.phase' },
      { kubectl: 'get services' },
      { kubectl: 'get all' },
    ],
  },
  {
    id: 'tables/kubectl-describe',
    title: 'kubectl describe configmap and deployment',
    steps: [
      { req: `POST ${cms}`, body: configMap('a', { k: 'v' }, { labels: { x: 'y' } }), keep: 'status' },
      { req: 'POST /apis/apps/v1/namespaces/{{ns}}/deployments', body: deployment('d'), keep: 'status' },
      { kubectl: 'describe configmap a' },
      { kubectl: 'describe deployment d' },
    ],
  },
];
