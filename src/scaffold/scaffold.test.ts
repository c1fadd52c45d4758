import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { insertAtAnchor } from './anchors.ts';
import { createApi } from './create-api.ts';
import { ScaffoldError } from './errors.ts';
import { initProject } from './init.ts';
import { kindNames } from './names.ts';

test('kind names: full group, plural, lower and camel case; bad names refused', () => {
  assert.deepEqual(kindNames({ group: 'batch', version: 'v1', kind: 'CronJob', domain: 'example.com', namespaced: true }), { group: 'batch.example.com', version: 'v1', kind: 'CronJob', plural: 'cronjobs', lower: 'cronjob', camel: 'cronJob', namespaced: true });
  assert.equal(kindNames({ group: 'x', version: 'v1', kind: 'Policy', domain: 'e.io', namespaced: false }).plural, 'policies');
  assert.equal(kindNames({ group: 'x', version: 'v1', kind: 'Box', domain: 'e.io', namespaced: false }).plural, 'boxes');
  assert.equal(kindNames({ group: '', version: 'v2beta1', kind: 'Gateway', domain: 'e.io', namespaced: false }).group, 'e.io');
  for (const bad of [{ group: 'Batch' }, { version: '1' }, { kind: 'cronJob' }, { group: '', domain: '' }]) {
    assert.throws(() => kindNames({ group: 'batch', version: 'v1', kind: 'CronJob', domain: 'example.com', namespaced: true, ...bad }), ScaffoldError);
  }
});

test('insertAtAnchor adds lines above the anchor with its indentation, once', () => {
  const text = 'a\n  // kubeloom:scaffold:x\nb';
  const once = insertAtAnchor(text, 'x', ['one();'], 'f.ts');
  assert.equal(once, 'a\n  one();\n  // kubeloom:scaffold:x\nb');
  assert.equal(insertAtAnchor(once, 'x', ['one();'], 'f.ts'), once);
  assert.throws(() => insertAtAnchor(text, 'y', ['two();'], 'f.ts'), /f\.ts has no "\/\/ kubeloom:scaffold:y" line/);
});

test('init writes secure metrics by default (main.ts serves HTTPS with TokenReview/SubjectAccessReview, package.json tells manifests) and a type-aware lint', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'kubeloom-scaffold-unit-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const project = path.join(dir, 'my-op');
  await initProject(project);
  const pkg = JSON.parse(await readFile(path.join(project, 'package.json'), 'utf8')) as { scripts: Record<string, string>; devDependencies: Record<string, string>; kubeloom: Record<string, unknown> };
  assert.equal(pkg.kubeloom['secureMetrics'], true);
  assert.equal(pkg.scripts['lint'], 'eslint .');
  assert.deepEqual(Object.keys(pkg.devDependencies).filter((d) => /eslint/.test(d)), ['@eslint/js', 'eslint', 'typescript-eslint']);
  const main = await readFile(path.join(project, 'src', 'main.ts'), 'utf8');
  assert.match(main, /'metrics-bind-address': \{ type: 'string', default: ':8443' \}/);
  assert.match(main, /'metrics-secure': \{ type: 'boolean', default: true \}/);
  assert.match(main, /metricsServer: \{ secureServing: true, filterProvider: withAuthenticationAndAuthorization \}/);
  assert.match(await readFile(path.join(project, 'eslint.config.js'), 'utf8'), /tseslint\.configs\.recommendedTypeChecked/);
});

test('init refuses a non-empty folder; create api wires the kind into setup.ts and refuses it twice', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'kubeloom-scaffold-unit-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const project = path.join(dir, 'my-op');
  await initProject(project, { domain: 'example.org', kubeloomSpec: '^9.9.9' });
  assert.equal((JSON.parse(await readFile(path.join(project, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies['kubeloom'], '^9.9.9');
  await assert.rejects(initProject(project), /is not empty/);
  await createApi(project, { group: 'ops', version: 'v1', kind: 'Gadget', namespaced: false });
  const setup = await readFile(path.join(project, 'src', 'setup.ts'), 'utf8');
  assert.match(setup, /import \{ gadgets \} from '\.\/api\/gadget\/index\.ts';\n/);
  assert.match(setup, / {2}gadgets,\n {2}\/\/ kubeloom:scaffold:crds/);
  assert.match(setup, / {2}setupGadgetController\(mgr\);\n/);
  assert.match(await readFile(path.join(project, 'src', 'api', 'gadget', 'index.ts'), 'utf8'), /scope: 'Cluster'/);
  await createApi(project, { group: 'ops', version: 'v1alpha1', kind: 'Box' });
  assert.equal(await readFile(path.join(project, 'config', 'samples', 'kustomization.yaml'), 'utf8'), '# The samples of every kind (written once by kubeloom create api; yours to edit).\napiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- ops.example.org_v1_gadget.yaml\n- ops.example.org_v1alpha1_box.yaml\n# kubeloom:scaffold:samples\n');
  assert.match(await readFile(path.join(project, 'config', 'samples', 'ops.example.org_v1alpha1_box.yaml'), 'utf8'), /^apiVersion: ops\.example\.org\/v1alpha1\nkind: Box\nmetadata:\n {2}name: box-sample\n/m);
  await assert.rejects(createApi(project, { group: 'ops', version: 'v1', kind: 'Gadget' }), /Gadget v1 already exists/);
  // kubebuilder's create webhook on a kind that exists: once, on the hub version.
  assert.deepEqual(await createApi(project, { group: 'ops', version: 'v1', kind: 'Gadget', webhook: true }), ['src/webhook/gadget-webhook.ts', 'src/webhook/gadget-webhook.test.ts', 'src/setup.ts']);
  assert.match(await readFile(path.join(project, 'src', 'setup.ts'), 'utf8'), / {4}setupGadgetWebhook\(mgr\);\n {4}\/\/ kubeloom:scaffold:webhooks/);
  await assert.rejects(createApi(project, { group: 'ops', version: 'v1', kind: 'Gadget', webhook: true }), /adds webhooks to the hub version v1 once/);
  await assert.rejects(createApi(project, { group: 'ops', version: 'v2', kind: 'Gadget', webhook: true }), /serve its hub version v1/);
  await assert.rejects(createApi(project, { group: 'ops', version: 'v2', kind: 'Other', conversion: true }), /Other does not yet/);
  await writeFile(path.join(project, 'src', 'api', 'gadget', 'v1.ts'), 'hand-written\n');
  await assert.rejects(createApi(project, { group: 'ops', version: 'v2', kind: 'Gadget' }), /does not have the shape create api wrote/);
});
