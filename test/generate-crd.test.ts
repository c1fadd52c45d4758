import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startApiServer, type ApiServer } from '../src/testing/index.ts';
import type { RestConfig } from '../src/rest/index.ts';
import { newClientset } from '../src/kubernetes/index.ts';
import { newSharedInformerFactory } from '../src/informers/index.ts';
import type { CustomResourceDefinition } from '../src/api/apiextensions/v1.ts';
import { generateCrdTypeScript, generateCommand } from '../src/cli/generate-command.ts';
import { SchemaInputError } from '../src/codegen/errors.ts';
import { gadgetResource, widgetResource, type Widget } from './generated/crds/example.com/v1/index.ts';

const fixtures = 'test/fixtures/crds';
const generated = 'test/generated/crds';

function configFor(s: ApiServer): RestConfig {
  return { host: s.url, qps: -1 };
}

test('regenerating the committed CRD fixtures changes nothing', async () => {
  const { files, crds } = await generateCrdTypeScript({ paths: [fixtures], outDir: generated, kubeloomSrc: 'src' });
  assert.equal(crds, 2);
  assert.deepEqual(
    files.map((f) => f.path),
    ['example.com/v1/apply.ts', 'example.com/v1/index.ts', 'example.com/v1/types.ts', 'example.com/v1beta1/apply.ts', 'example.com/v1beta1/index.ts', 'example.com/v1beta1/types.ts'],
  );
  for (const f of files) assert.equal(await readFile(join(generated, f.path), 'utf8'), f.text, `${f.path}: run \`kubeloom generate crd ${fixtures} --out ${generated} --kubeloom-src src\``);
});

test('generated CRD types map schemas as documented', async () => {
  const types = await readFile(join(generated, 'example.com/v1/types.ts'), 'utf8');
  assert.match(types, /\/\*\* A Widget is a made-up resource with a size and a color\. \*\/\nexport interface Widget \{/);
  assert.match(types, /color\?: 'red' \| 'green' \| 'blue';/);
  assert.match(types, /port\?: number \| string;/);
  assert.match(types, /config\?: \{ \[key: string\]: unknown \};/);
  assert.match(types, /owner\?: string \| null;/);
  const template = types.slice(types.indexOf('export interface WidgetSpecTemplate {'));
  for (const line of ['  apiVersion: string;', '  kind: string;', '  metadata?: metaV1.ObjectMeta;', '  [key: string]: unknown;']) assert.ok(template.split('}')[0]!.includes(line), line);
  assert.match(types, /size: number;/);
  const apply = await readFile(join(generated, 'example.com/v1/apply.ts'), 'utf8');
  assert.match(apply, /ports\?: Array<WidgetSpecPortsApplyConfiguration & \{ name: string \}>;/);
  assert.match(apply, /metadata: metaV1Apply\.ObjectMetaApplyConfiguration & \{ name: string; namespace: string \};/);
  // v1beta1 has its own schema (size is a string there); v1alpha1 is not served and not generated.
  assert.match(await readFile(join(generated, 'example.com/v1beta1/types.ts'), 'utf8'), /size\?: string;/);
});

test('a generated custom resource plugs into the clientset and the informer factory', async () => {
  const s = await startApiServer();
  const cs = newClientset(configFor(s));
  const abort = new AbortController();
  try {
    const crdDocs = (await readFile(join(fixtures, 'widgets.yaml'), 'utf8')).split(/^---$/m).map((d) => parse(d) as CustomResourceDefinition);
    for (const crd of crdDocs) await cs.apiextensionsV1().customResourceDefinitions().create(crd);
    await cs.coreV1().namespaces().create({ metadata: { name: 'ns' } });

    const widgets = cs.forCustomResource(widgetResource, 'ns');
    const applied = await widgets.apply(
      { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'ns' }, spec: { size: 3, ports: [{ name: 'http', port: 80 }] } },
      { fieldManager: 'test' },
    );
    assert.equal(applied.spec?.size, 3);
    const status = await widgets.applyStatus({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'ns' }, status: { size: 3 } }, { fieldManager: 'test' });
    assert.equal(status.status?.size, 3);
    const gadgets = cs.forCustomResource(gadgetResource);
    await gadgets.create({ apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g1' }, spec: { widgets: ['w1'] } });

    const factory = newSharedInformerFactory(cs, { namespace: 'ns' });
    const informer = factory.forCustomResource(widgetResource);
    informer.informer();
    factory.start({ signal: abort.signal });
    await factory.waitForCacheSync({ signal: abort.signal });
    const cached: Widget | undefined = informer.lister().namespace('ns').get('w1');
    assert.equal(cached?.spec?.size, 3);

    // Never called: tsc must reject every marked line.
    const _mistakes = (): void => {
      // @ts-expect-error size is an integer in the schema
      void widgets.apply({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'ns' }, spec: { size: 'three' } }, { fieldManager: 'x' });
      // @ts-expect-error a namespaced resource's apply configuration needs metadata.namespace
      void widgets.apply({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' } }, { fieldManager: 'x' });
      // @ts-expect-error color is an enum
      void widgets.apply({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'ns' }, spec: { color: 'purple' } }, { fieldManager: 'x' });
      // @ts-expect-error list-map items need their key
      void widgets.apply({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'ns' }, spec: { ports: [{ port: 80 }] } }, { fieldManager: 'x' });
    };
    void _mistakes;
  } finally {
    abort.abort();
    await cs.close();
    await s.stop();
  }
});

test('--from-cluster reads the served CRDs and emits the same types as the files', async () => {
  const s = await startApiServer();
  const cs = newClientset(configFor(s));
  try {
    const crdDocs = (await readFile(join(fixtures, 'widgets.yaml'), 'utf8')).split(/^---$/m).map((d) => parse(d) as CustomResourceDefinition);
    for (const crd of crdDocs) await cs.apiextensionsV1().customResourceDefinitions().create(crd);
    const fromCluster = await generateCrdTypeScript({ fromCluster: { config: configFor(s) }, outDir: generated, kubeloomSrc: 'src' });
    const fromFiles = await generateCrdTypeScript({ paths: [fixtures], outDir: generated, kubeloomSrc: 'src' });
    const body = (t: string): string => t.slice(t.indexOf('\n') + 1);
    assert.deepEqual(fromCluster.files.map((f) => [f.path, body(f.text)]), fromFiles.files.map((f) => [f.path, body(f.text)]));
    const only = await generateCrdTypeScript({ fromCluster: { config: configFor(s), names: ['gadgets.example.com'] }, outDir: generated });
    assert.match(only.files.find((f) => f.path === 'example.com/v1/index.ts')!.text, /from 'kubeloom\/kubernetes'/);
    assert.equal(only.files.some((f) => f.text.includes('Widget')), false);
  } finally {
    await cs.close();
    await s.stop();
  }
});

test('bad CRDs fail with the file and JSON path of the problem', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kubeloom-crd-'));
  try {
    const crd = (schema: unknown): string =>
      JSON.stringify({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'things.example.com' },
        spec: { group: 'example.com', scope: 'Namespaced', names: { kind: 'Thing', plural: 'things' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }] },
      });
    const cases: Array<[string, unknown, RegExp]> = [
      ['not-structural.json', { type: 'object', properties: { spec: { properties: { a: { type: 'string' } } } } }, /not-structural\.json: \$\.spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\.spec: type is missing/],
      ['ref.json', { type: 'object', properties: { spec: { $ref: '#/definitions/Spec' } } }, /ref\.json: \$\.spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\.spec\.\$ref: \$ref is not allowed/],
      ['format.json', { type: 'object', properties: { when: { type: 'string', format: 'timestamp' } } }, /format\.json: \$\.spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\.when\.format: unknown format "timestamp"/],
      ['no-schema.json', undefined, /no-schema\.json: \$\.spec\.versions\[0\]\.schema\.openAPIV3Schema: missing/],
    ];
    for (const [name, schema, message] of cases) {
      await writeFile(join(dir, name), crd(schema));
      await assert.rejects(generateCrdTypeScript({ paths: [join(dir, name)], outDir: dir }), (err: unknown) => err instanceof SchemaInputError && message.test(err.message), name);
    }
    // The command prints the same message and exits 1.
    const stderr: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => (stderr.push(chunk), true)) as typeof process.stderr.write;
    let code: number;
    try {
      code = await generateCommand.run(['crd', join(dir, 'ref.json'), '--out', join(dir, 'out')]);
    } finally {
      process.stderr.write = write;
    }
    assert.equal(code, 1);
    assert.match(stderr.join(''), /ref\.json: \$\.spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\.spec\.\$ref: \$ref is not allowed in a CRD schema/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
