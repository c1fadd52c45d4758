import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SchemaInputError } from './errors.ts';
import { buildModelFromOpenApi, serializeModel, type OpenApiDocument } from './openapi-model.ts';

const source = { repository: 'example/fixtures', path: 'openapi', ref: 'test', kubernetesVersion: '0.0' };

const meta = {
  'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': { type: 'object', properties: { name: { type: 'string' }, namespace: { type: 'string' } } },
};

const ok = (ref: string): unknown => ({ content: { 'application/json': { schema: { $ref: `#/components/schemas/${ref}` } } }, description: 'OK' });
const op = (action: string, kind: string, response?: unknown, group = '', version = 'v1'): unknown => ({
  'x-kubernetes-action': action,
  'x-kubernetes-group-version-kind': { group, kind, version },
  responses: { '200': response ?? ok(`io.k8s.api.core.v1.${kind}`) },
});

/** A small core/v1 document: namespaced pods with status, log and eviction; cluster-scoped nodes. */
const coreDoc = (): OpenApiDocument => ({
  name: 'api__v1_openapi.json',
  text: JSON.stringify({
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'unversioned' },
    components: {
      schemas: {
        ...meta,
        'io.k8s.api.core.v1.Pod': {
          type: 'object',
          description: 'A pod.',
          properties: {
            apiVersion: { type: 'string' },
            kind: { type: 'string' },
            metadata: { allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }], default: {}, description: 'Standard metadata.' },
            spec: { $ref: '#/components/schemas/io.k8s.api.core.v1.PodSpec' },
          },
          'x-kubernetes-group-version-kind': [{ group: '', kind: 'Pod', version: 'v1' }],
        },
        'io.k8s.api.core.v1.PodList': {
          type: 'object',
          properties: { items: { type: 'array', items: { $ref: '#/components/schemas/io.k8s.api.core.v1.Pod' } } },
          required: ['items'],
          'x-kubernetes-group-version-kind': [{ group: '', kind: 'PodList', version: 'v1' }],
        },
        'io.k8s.api.core.v1.PodSpec': {
          type: 'object',
          properties: {
            containers: { type: 'array', items: { type: 'object' }, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] },
            port: { format: 'int-or-string', oneOf: [{ type: 'integer' }, { type: 'string' }] },
          },
        },
        'io.k8s.api.core.v1.Node': { type: 'object', properties: { metadata: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' } }, 'x-kubernetes-group-version-kind': [{ group: '', kind: 'Node', version: 'v1' }] },
        'io.k8s.api.policy.v1.Eviction': { type: 'object', properties: { metadata: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' } }, 'x-kubernetes-group-version-kind': [{ group: 'policy', kind: 'Eviction', version: 'v1' }] },
      },
    },
    paths: {
      '/api/v1/namespaces/{namespace}/pods': { get: op('list', 'Pod', ok('io.k8s.api.core.v1.PodList')), post: op('post', 'Pod'), delete: op('deletecollection', 'Pod') },
      '/api/v1/namespaces/{namespace}/pods/{name}': { get: op('get', 'Pod'), put: op('put', 'Pod'), patch: op('patch', 'Pod'), delete: op('delete', 'Pod') },
      '/api/v1/namespaces/{namespace}/pods/{name}/status': { get: op('get', 'Pod'), put: op('put', 'Pod'), patch: op('patch', 'Pod') },
      '/api/v1/namespaces/{namespace}/pods/{name}/log': { get: op('get', 'Pod', { content: { '*/*': { schema: { type: 'string' } } } }) },
      '/api/v1/namespaces/{namespace}/pods/{name}/eviction': { post: op('post', 'Eviction', ok('io.k8s.api.policy.v1.Eviction'), 'policy') },
      '/api/v1/namespaces/{namespace}/pods/{name}/exec': { get: op('connect', 'PodExecOptions', { content: { '*/*': { schema: { type: 'string' } } } }) },
      '/api/v1/pods': { get: op('list', 'Pod', ok('io.k8s.api.core.v1.PodList')) },
      '/api/v1/watch/namespaces/{namespace}/pods': { get: op('watchlist', 'Pod') },
      '/api/v1/nodes': { get: op('list', 'Node'), post: op('post', 'Node') },
      '/api/v1/nodes/{name}': { get: op('get', 'Node'), delete: op('delete', 'Node') },
      '/version/': { get: { operationId: 'getCodeVersion' } },
    },
  }),
});

/** A document of another group repeating ObjectMeta, as every upstream document does. */
const policyDoc = (): OpenApiDocument => ({
  name: 'apis__policy__v1_openapi.json',
  text: JSON.stringify({
    openapi: '3.0.0',
    components: { schemas: { ...meta, 'io.k8s.api.policy.v1.Eviction': { type: 'object', properties: { metadata: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' } }, 'x-kubernetes-group-version-kind': [{ group: 'policy', kind: 'Eviction', version: 'v1' }] } } },
    paths: {},
  }),
});

test('stage 1 derives resources, scope, verbs and subresources from the paths', () => {
  const model = buildModelFromOpenApi([coreDoc(), policyDoc()], source);
  assert.deepEqual(
    model.groupVersions.map((gv) => `${gv.group}/${gv.version}`),
    ['/v1'],
  );
  const [nodes, pods] = model.groupVersions[0]!.resources;
  assert.deepEqual(nodes, { name: 'nodes', kind: 'Node', type: 'io.k8s.api.core.v1.Node', namespaced: false, verbs: ['create', 'delete', 'get', 'list'], subresources: [] });
  assert.equal(pods!.namespaced, true);
  assert.equal(pods!.listType, 'io.k8s.api.core.v1.PodList');
  assert.deepEqual(pods!.verbs, ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
  assert.deepEqual(pods!.subresources, [
    { name: 'eviction', group: 'policy', version: 'v1', kind: 'Eviction', type: 'io.k8s.api.policy.v1.Eviction', verbs: ['create'] },
    { name: 'exec', group: '', version: 'v1', kind: 'PodExecOptions', verbs: ['connect'] },
    { name: 'log', group: '', version: 'v1', kind: 'Pod', verbs: ['get'], text: true },
    { name: 'status', group: '', version: 'v1', kind: 'Pod', type: 'io.k8s.api.core.v1.Pod', verbs: ['get', 'patch', 'update'] },
  ]);
});

test('stage 1 normalises references: allOf wrappers unwrapped, $ref becomes a type name', () => {
  const model = buildModelFromOpenApi([coreDoc()], source);
  const pod = model.types['io.k8s.api.core.v1.Pod']!;
  assert.deepEqual(pod.gvk, [{ group: '', version: 'v1', kind: 'Pod' }]);
  assert.deepEqual(pod.schema.properties!['metadata'], { default: {}, description: 'Standard metadata.', ref: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' });
  assert.deepEqual(pod.schema.properties!['spec'], { ref: 'io.k8s.api.core.v1.PodSpec' });
  assert.deepEqual(model.types['io.k8s.api.core.v1.PodSpec']!.schema.properties!['containers'], {
    items: { type: 'object' },
    type: 'array',
    'x-kubernetes-list-map-keys': ['name'],
    'x-kubernetes-list-type': 'map',
  });
});

test('stage 1 is deterministic: input order does not change a byte of the model', () => {
  const a = serializeModel(buildModelFromOpenApi([coreDoc(), policyDoc()], source));
  const b = serializeModel(buildModelFromOpenApi([policyDoc(), coreDoc()], source));
  assert.equal(a, b);
  assert.match(a, /"sha256":"[0-9a-f]{64}"/);
  assert.equal(a.includes(String(new Date().getFullYear())), false, 'no timestamps');
});

test('stage 1 rejects bad documents with the file and JSON path', () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- fixtures are patched freely
  type Doc = any;
  const broken = (patch: (d: Doc) => void, name = 'api__v1_openapi.json'): OpenApiDocument => {
    const doc = JSON.parse(coreDoc().text) as Doc;
    patch(doc);
    return { name, text: JSON.stringify(doc) };
  };
  const cases: Array<[OpenApiDocument[], RegExp]> = [
    [[broken((d) => (d.components.schemas['io.k8s.api.core.v1.PodSpec'].properties.port.format = 'int-or-bytes'))], /api__v1_openapi\.json: \$\.components\.schemas\["io\.k8s\.api\.core\.v1\.PodSpec"\]\.properties\.port\.format: unknown format "int-or-bytes"/],
    [[broken((d) => (d.components.schemas['io.k8s.api.core.v1.Pod'].properties.spec = { $ref: '#/components/schemas/io.k8s.api.core.v1.Missing' }))], /reference to undefined type "io\.k8s\.api\.core\.v1\.Missing"/],
    [[broken((d) => (d.components.schemas['io.k8s.api.core.v1.Pod'].properties.spec = { $ref: 'other.json#/Pod' }))], /\.properties\.spec\.\$ref: unsupported reference/],
    [[broken((d) => (d.components.schemas['io.k8s.api.core.v1.Node'].patternProperties = {}))], /Node"\]\.patternProperties: unsupported schema keyword "patternProperties"/],
    [[coreDoc(), broken((d) => (d.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'].properties.name.type = 'integer'), 'apis__policy__v1_openapi.json')], /apis__policy__v1_openapi\.json: .*ObjectMeta"\]: differs from the definition of the same type in api__v1_openapi\.json/],
    [[{ name: 'x.json', text: '{"openapi": "3.0.0",' }], /x\.json: \$: not valid JSON/],
    [[{ name: 'x.json', text: '{"swagger": "2.0"}' }], /x\.json: \$\.openapi: not an OpenAPI 3 document/],
  ];
  for (const [docs, message] of cases) {
    assert.throws(
      () => buildModelFromOpenApi(docs, source),
      (err: unknown) => err instanceof SchemaInputError && err.code === 'ERR_CODEGEN_SCHEMA' && message.test(err.message),
      message.source,
    );
  }
});
