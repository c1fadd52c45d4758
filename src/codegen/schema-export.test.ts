import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readModel } from './generate.ts';
import { openApiV2Definitions, openApiV3Components, typeToOpenApi } from './schema-export.ts';

test('v3 export writes references as the upstream documents do', async () => {
  const model = await readModel();
  const pod = typeToOpenApi(model, 'io.k8s.api.core.v1.Pod') as { properties: Record<string, unknown>; 'x-kubernetes-group-version-kind': unknown };
  assert.deepEqual(pod['x-kubernetes-group-version-kind'], [{ group: '', kind: 'Pod', version: 'v1' }]);
  assert.deepEqual(pod.properties['spec'], {
    allOf: [{ $ref: '#/components/schemas/io.k8s.api.core.v1.PodSpec' }],
    default: {},
    description: 'Specification of the desired behavior of the pod. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status',
  });
  const intOrString = typeToOpenApi(model, 'io.k8s.apimachinery.pkg.util.intstr.IntOrString');
  assert.deepEqual(intOrString['oneOf'], [{ type: 'integer' }, { type: 'string' }]);
});

test('v2 export drops what Swagger 2 cannot say and keeps kubectl explain working', async () => {
  const model = await readModel();
  const defs = openApiV2Definitions(model) as Record<string, Record<string, unknown>>;
  assert.equal(Object.keys(defs).length, Object.keys(model.types).length);
  const intOrString = defs['io.k8s.apimachinery.pkg.util.intstr.IntOrString']!;
  assert.equal(intOrString['type'], 'string');
  assert.equal(intOrString['format'], 'int-or-string');
  assert.equal(intOrString['oneOf'], undefined);
  const spec = (defs['io.k8s.api.apps.v1.Deployment']!['properties'] as Record<string, unknown>)['spec'];
  assert.deepEqual(spec, { $ref: '#/definitions/io.k8s.api.apps.v1.DeploymentSpec', default: {}, description: 'Specification of the desired behavior of the Deployment.' });
});

test('a group-version document holds its kinds and everything they reference', async () => {
  const model = await readModel();
  const { schemas } = openApiV3Components(model, 'apps', 'v1') as { schemas: Record<string, unknown> };
  for (const name of ['io.k8s.api.apps.v1.Deployment', 'io.k8s.api.apps.v1.DeploymentList', 'io.k8s.api.autoscaling.v1.Scale', 'io.k8s.api.core.v1.PodSpec', 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']) {
    assert.ok(schemas[name] !== undefined, name);
  }
  assert.equal(schemas['io.k8s.api.batch.v1.Job'], undefined);
  assert.throws(() => openApiV3Components(model, 'apps', 'v9'), /no group-version apps\/v9/);
});
