import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { parseAllDocuments } from 'yaml';
import { buildModelFromCrds } from '../codegen/crd-model.ts';
import { typeToOpenApi } from '../codegen/schema-export.ts';
import { defineCrd, s, type ObjectOf } from './crd-builder.ts';

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
