/**
 * The protocol around the objects: content negotiation (YAML and protobuf answers and bodies, 406,
 * 415), validation of every query parameter, size limits of objects and requests, and the health
 * endpoints.
 */
import type { Scenario } from '../scenario.ts';
import { configMap, deployment, widget, widgetCrd, widgets } from './objects.ts';

const cms = '/api/v1/namespaces/{{ns}}/configmaps';
const deps = '/apis/apps/v1/namespaces/{{ns}}/deployments';
const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

export const protocol: Scenario[] = [
  {
    id: 'negotiation/yaml',
    title: 'YAML: a YAML body is decoded, Accept application/yaml answers YAML for objects, lists and errors',
    steps: [
      { req: `POST ${cms}`, type: 'yaml', body: configMap('y', { a: '1' }) },
      { req: `GET ${cms}/y`, accept: 'application/yaml' },
      { req: `GET ${cms}`, accept: 'application/yaml', pick: ['kind', 'apiVersion', 'items.*.metadata.name'] },
      { req: `GET ${cms}/ghost`, accept: 'application/yaml' },
      { req: `POST ${cms}`, type: 'yaml', body: 'metadata: [' },
    ],
  },
  {
    id: 'negotiation/protobuf-answers',
    title: 'Accept protobuf: objects and lists of built-in kinds are answered in protobuf',
    steps: [
      { req: `POST ${cms}`, body: configMap('p', { a: '1' }), keep: 'status' },
      { req: `GET ${cms}/p`, accept: 'application/vnd.kubernetes.protobuf' },
      { req: `GET ${cms}`, accept: 'application/vnd.kubernetes.protobuf' },
      { req: `POST ${deps}`, body: deployment('web'), keep: 'status' },
      { req: `GET ${deps}/web`, accept: 'application/vnd.kubernetes.protobuf, application/json' },
      { req: `GET ${cms}/ghost`, accept: 'application/vnd.kubernetes.protobuf' },
    ],
  },
  {
    id: 'negotiation/protobuf-custom-resource',
    title: 'Custom resources have no protobuf: Accept protobuf alone is 406, with JSON as a fallback is JSON',
    steps: [
      { req: `POST ${crds}`, body: widgetCrd(), keep: 'status' },
      { req: `GET ${widgets}`, until: 200, keep: 'status' },
      { req: `POST ${widgets}`, body: widget('w'), keep: 'status' },
      { req: `GET ${widgets}/w`, accept: 'application/vnd.kubernetes.protobuf' },
      { req: `GET ${widgets}/w`, accept: 'application/vnd.kubernetes.protobuf,application/json', pick: ['kind', 'metadata.name'] },
    ],
    cleanup: [{ req: `DELETE ${crds}/widgets.{{r}}.fidelity.kubeloom.test` }],
  },
  {
    id: 'negotiation/not-acceptable',
    title: 'Accept with nothing the server can produce is 406; */* and application/* are JSON',
    steps: [
      { req: `POST ${cms}`, body: configMap('p'), keep: 'status' },
      { req: `GET ${cms}/p`, accept: 'text/plain' },
      { req: `GET ${cms}/p`, accept: 'application/xml' },
      { req: `GET ${cms}/p`, accept: '*/*', pick: ['kind'] },
      { req: `GET ${cms}/p`, accept: 'application/*' },
      { req: `GET ${cms}/p`, accept: 'application/json;as=Table;v=v9;g=meta.k8s.io' },
      { req: `GET ${cms}/p`, accept: 'application/json;as=Frobnicator;v=v1;g=meta.k8s.io' },
    ],
  },
  {
    id: 'negotiation/unsupported-media-type',
    title: 'Bodies in a media type the server does not read are 415; protobuf bodies of core kinds are decoded',
    steps: [
      { req: `POST ${cms}`, type: 'text/plain', body: 'hello' },
      { req: `POST ${cms}`, type: 'application/xml', body: '<ConfigMap/>' },
      { req: `PUT ${cms}/x`, type: 'application/x-www-form-urlencoded', body: 'a=b' },
      { req: `POST ${cms}`, type: 'protobuf', body: 'not protobuf at all' },
    ],
  },
  {
    id: 'negotiation/json-decoding',
    title: 'JSON decoding: empty body, not an object, duplicate fields, unknown fields are dropped',
    steps: [
      { req: `POST ${cms}`, body: '' },
      { req: `POST ${cms}`, body: '[1,2]' },
      { req: `POST ${cms}`, body: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d"},"data":{"a":"1"},"data":{"b":"2"}}', pick: ['data'] },
      { req: `POST ${cms}`, body: { ...configMap('u'), bogus: true, metadata: { name: 'u', bogus: 1 } }, pick: ['bogus', 'metadata.bogus', 'data'] },
      { req: `POST ${cms}`, body: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"n"},"data":{"a":null}}', pick: ['data'] },
    ],
  },
  {
    id: 'options/dry-run-and-field-manager',
    title: 'Write options: dryRun values, fieldManager too long or with control characters, pretty',
    steps: [
      { req: `POST ${cms}?dryRun=All`, body: configMap('dry'), pick: ['metadata.name', 'metadata.uid', 'metadata.resourceVersion', 'metadata.creationTimestamp'] },
      { req: `GET ${cms}/dry` },
      { req: `POST ${cms}?dryRun=Partial`, body: configMap('dry') },
      { req: `POST ${cms}?dryRun=All&dryRun=All`, body: configMap('dry'), pick: ['metadata.name'] },
      { req: `POST ${cms}?fieldManager=${'m'.repeat(129)}`, body: configMap('fm') },
      { req: `POST ${cms}?fieldManager=bad%0Amanager`, body: configMap('fm2') },
      { req: `GET ${cms}?pretty=true`, pick: ['kind'] },
    ],
  },
  {
    id: 'options/field-validation',
    title: 'fieldValidation: Strict, Warn, Ignore and an invalid value, with an unknown field',
    steps: [
      { req: `POST ${cms}?fieldValidation=Strict`, body: { ...configMap('s'), bogus: 1 } },
      { req: `POST ${cms}?fieldValidation=Warn`, body: { ...configMap('w'), bogus: 1 }, pick: ['metadata.name'] },
      { req: `POST ${cms}?fieldValidation=Ignore`, body: { ...configMap('i'), bogus: 1 }, pick: ['metadata.name'] },
      { req: `POST ${cms}?fieldValidation=Loose`, body: configMap('l') },
    ],
  },
  {
    id: 'options/list-parameters',
    title: 'List parameters with bad values: limit, timeoutSeconds, watch, allowWatchBookmarks',
    steps: [
      { req: `GET ${cms}?limit=abc` },
      { req: `GET ${cms}?limit=-1`, pick: ['kind', 'metadata.continue'] },
      { req: `GET ${cms}?timeoutSeconds=abc` },
      { req: `GET ${cms}?watch=maybe&timeoutSeconds=1` },
      { req: `GET ${cms}?allowWatchBookmarks=maybe`, pick: ['kind'] },
      { req: `GET ${cms}?resourceVersionMatch=exact&resourceVersion=1` },
    ],
  },
  {
    id: 'options/patch-and-delete-parameters',
    title: 'force on a non-apply patch, force=maybe, propagationPolicy on a GET, unknown parameters are ignored',
    steps: [
      { req: `POST ${cms}`, body: configMap('p'), keep: 'status' },
      { req: `PATCH ${cms}/p?force=true`, type: 'jsonpatch', body: [] },
      { req: `PATCH ${cms}/p?fieldManager=a&force=maybe`, type: 'apply', body: configMap('p') },
      { req: `GET ${cms}/p?propagationPolicy=Orphan&frobnicate=1`, pick: ['metadata.name'] },
      { req: `DELETE ${cms}/p?gracePeriodSeconds=1.5` },
    ],
  },
  {
    id: 'options/methods',
    title: 'Methods a resource does not support: PUT on a collection, POST on an object, DELETE on /status',
    steps: [
      { req: `POST ${cms}`, body: configMap('p'), keep: 'status' },
      { req: `PUT ${cms}`, body: configMap('p') },
      { req: `POST ${cms}/p`, body: configMap('p') },
      { req: 'DELETE /apis/apps/v1/namespaces/{{ns}}/deployments/x/status' },
      { req: `OPTIONS ${cms}` },
      { req: `HEAD ${cms}/p` },
    ],
  },
  {
    id: 'limits/object-size',
    title: 'Object size: a ConfigMap over 1 MiB of data is 422, a body over 3 MiB is 413',
    steps: [
      { req: `POST ${cms}`, body: configMap('big', { a: 'x'.repeat(1024 * 1024 + 1) }) },
      { req: `POST ${cms}`, body: configMap('huge', { a: 'x'.repeat(3 * 1024 * 1024 + 10) }) },
      { req: 'POST /api/v1/namespaces/{{ns}}/secrets', body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'big' }, data: { a: Buffer.alloc(1024 * 1024 + 1).toString('base64') } } },
    ],
  },
  {
    id: 'limits/name-and-label-lengths',
    title: 'Length limits: label key prefix over 253, name segment over 63, generateName truncation',
    steps: [
      { req: `POST ${cms}`, body: configMap('a', {}, { labels: { [`${'p'.repeat(254)}/k`]: 'v' } }) },
      { req: `POST ${cms}`, body: configMap('b', {}, { labels: { ['k'.repeat(64)]: 'v' } }) },
      { req: `POST ${cms}`, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'g'.repeat(300) } } },
      { req: `POST ${cms}`, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: `${'g'.repeat(60)}-` } }, pick: ['metadata.generateName'] },
    ],
  },
  {
    id: 'health/endpoints',
    title: '/healthz, /livez, /readyz answer ok; a named check answers ok; an unknown check is 404',
    namespace: false,
    steps: [{ req: 'GET /healthz' }, { req: 'GET /livez' }, { req: 'GET /readyz' }, { req: 'GET /healthz/ping' }, { req: 'GET /livez/ping' }, { req: 'GET /readyz/nonsense' }, { req: 'POST /healthz', body: {} }],
  },
  {
    id: 'health/verbose',
    title: 'Verbose health answers list the checks',
    namespace: false,
    steps: [{ req: 'GET /healthz?verbose' }, { req: 'GET /livez?verbose=true' }, { req: 'GET /readyz?verbose&exclude=etcd' }],
  },
  {
    id: 'health/version-and-root',
    title: '/version, / (the path list), /metrics',
    namespace: false,
    steps: [
      { req: 'GET /version', pick: ['major', 'minor', 'platform'] },
      { req: 'GET /', pick: ['/api', '/api/v1', '/apis', '/apis/apps', '/apis/apps/v1', '/healthz', '/livez', '/readyz', '/openapi/v2', '/openapi/v3', '/version', '/metrics', '/nonsense'].map((p) => `paths.[=${p}]`) },
    ],
  },
];
