import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { parse, parseAllDocuments } from 'yaml';
import { buildModelFromCrds } from '../codegen/crd-model.ts';
import { typeToOpenApi } from '../codegen/schema-export.ts';
import { defineCrd, s, type ObjectOf } from './crd-builder.ts';
import { toYaml } from './manifest-yaml.ts';

/** The v1 Widget of test/fixtures/crds/widgets.yaml, declared in TypeScript. */
const widgetSchema = s.object({
  spec: s.object(
    {
      size: s.integer({ format: 'int32', minimum: 0, description: 'How many parts the widget has.' }),
      color: s.enum(['red', 'green', 'blue'], { default: 'red' }),
      port: s.intOrString({ description: 'A port number or name.' }),
      ports: s.listMap(s.object({ name: s.string(), port: s.integer(), protocol: s.string({ default: 'TCP' }) }, { required: ['name'] }), ['name']),
      labels: s.map(s.string()),
      config: s.preserveUnknown({ description: 'Free-form settings, kept as given.' }),
      template: s.embeddedResource({ description: 'An object the widget creates.' }),
      owner: s.string({ nullable: true }),
    },
    { required: ['size'], description: 'What the widget should look like.' },
  ),
  status: s.object({
    size: s.integer(),
    conditions: s.array(s.object({ type: s.string(), status: s.enum(['True', 'False', 'Unknown']) })),
  }),
}, { description: 'A Widget is a made-up resource with a size and a color.' });

const widgets = defineCrd({
  group: 'example.com',
  kind: 'Widget',
  plural: 'widgets',
  scope: 'Namespaced',
  versions: [{ name: 'v1', schema: widgetSchema, subresources: { status: {} } }],
});

test('the builder emits the structural schema a hand-written CRD spells out', async () => {
  const text = await readFile(new URL('../../test/fixtures/crds/widgets.yaml', import.meta.url), 'utf8');
  const fixture = parseAllDocuments(text)[0]!.toJS() as { spec: { versions: Array<{ schema: { openAPIV3Schema: unknown } }> } };
  assert.deepEqual(widgets.manifest.spec.versions[0]!.schema?.openAPIV3Schema, fixture.spec.versions[0]!.schema.openAPIV3Schema);
  assert.deepEqual(widgets.manifest.metadata, { name: 'widgets.example.com' });
  assert.deepEqual(widgets.manifest.spec.versions.map((v) => [v.name, v.served, v.storage]), [['v1', true, true]]);
});

test('round trip: builder → CRD → API model → schema gives back the schema unchanged', () => {
  const { model, versions } = buildModelFromCrds([{ source: 'builder', object: widgets.manifest }]);
  assert.deepEqual(versions.map((v) => v.type), ['com.example.v1.Widget']);
  const { 'x-kubernetes-group-version-kind': gvk, ...exported } = typeToOpenApi(model, 'com.example.v1.Widget');
  assert.deepEqual(gvk, [{ group: 'example.com', kind: 'Widget', version: 'v1' }]);
  assert.deepEqual(exported, widgets.manifest.spec.versions[0]!.schema?.openAPIV3Schema);
});

test('the declared object type follows the schema (checked by tsc)', () => {
  type Widget = ObjectOf<typeof widgets>;
  const ok: Widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 3, color: 'blue', port: 'http', ports: [{ name: 'http' }], owner: null } };
  assert.equal(ok.spec?.size, 3);
  const resource = widgets.resource('v1');
  assert.deepEqual({ ...resource }, { group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true, subresources: ['status'] });
  // Never called: tsc must reject every marked line.
  const _mistakes = (): Widget[] => [
    // @ts-expect-error size is an integer
    { spec: { size: 'three' } },
    // @ts-expect-error size is required in spec
    { spec: { color: 'red' } },
    // @ts-expect-error color is an enum
    { spec: { size: 1, color: 'purple' } },
  ];
  void _mistakes;
  // @ts-expect-error only declared versions have registrations
  assert.throws(() => widgets.resource('v2'), /has no version v2/);
});

test('defineCrd writes Webhook conversion settings (service, path /convert, review versions v1) and refuses inconsistent ones', () => {
  const schema = s.object({ spec: s.object({ size: s.integer() }) });
  const crd = defineCrd({
    group: 'diag.example.com',
    kind: 'Website',
    plural: 'websites',
    scope: 'Namespaced',
    annotations: { 'cert-manager.io/inject-ca-from': 'system/serving-cert' },
    versions: [{ name: 'v1', schema }, { name: 'v2', schema, storage: true }],
    conversion: { strategy: 'Webhook', service: { namespace: 'system', name: 'webhook-service' } },
  });
  assert.deepEqual(crd.manifest.spec.conversion, { strategy: 'Webhook', webhook: { clientConfig: { service: { namespace: 'system', name: 'webhook-service', path: '/convert' } }, conversionReviewVersions: ['v1'] } });
  assert.deepEqual(crd.manifest.metadata?.annotations, { 'cert-manager.io/inject-ca-from': 'system/serving-cert' });
  const byUrl = defineCrd({ group: 'g.example.com', kind: 'K', plural: 'ks', scope: 'Cluster', versions: [{ name: 'v1', schema }], conversion: { strategy: 'Webhook', url: 'https://127.0.0.1:9443/convert', caBundle: 'Q0E=', conversionReviewVersions: ['v1', 'v1beta1'] } });
  assert.deepEqual(byUrl.manifest.spec.conversion, { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://127.0.0.1:9443/convert', caBundle: 'Q0E=' }, conversionReviewVersions: ['v1', 'v1beta1'] } });
  assert.throws(() => defineCrd({ group: 'g.example.com', kind: 'K', plural: 'ks', scope: 'Cluster', versions: [{ name: 'v1', schema }], conversion: { strategy: 'Webhook' } }), { code: 'ERR_CRD_DECLARATION', message: 'ks.g.example.com: a Webhook conversion needs exactly one of service and url' });
  assert.throws(() => defineCrd({ group: 'g.example.com', kind: 'K', plural: 'ks', scope: 'Cluster', versions: [{ name: 'v1', schema }], conversion: { strategy: 'None', url: 'https://x' } }), { code: 'ERR_CRD_DECLARATION' });
  // Without conversion settings the manifest is what it was.
  assert.equal(defineCrd({ group: 'g.example.com', kind: 'K', plural: 'ks', scope: 'Cluster', versions: [{ name: 'v1', schema }] }).manifest.spec.conversion, undefined);
});

test('toYaml writes manifests without anchors, one document per object', () => {
  const shared = s.object({ name: s.string() });
  const crd = defineCrd({ group: 'g.example.com', kind: 'K', plural: 'ks', scope: 'Cluster', versions: [{ name: 'v1', schema: s.object({ spec: s.object({ a: shared, b: shared }) }) }] });
  const text = toYaml(crd.manifest);
  assert.doesNotMatch(text, /[&*]a\d/);
  assert.equal(text.match(/name:\n\s+type: string/g)?.length, 2);
  assert.deepEqual(parse(text), crd.manifest);
  const two = toYaml([{ a: 1 }, { b: 2 }]);
  assert.equal(two, 'a: 1\n---\nb: 2\n');
});
