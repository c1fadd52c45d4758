import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ManifestError } from './errors.ts';
import { loadProject } from './project.ts';

const src = (rel: string): string => pathToFileURL(path.join(import.meta.dirname, '..', rel)).href;

test('loadProject imports src/setup.ts, runs setup(mgr) on a manager never started, and reads crds, registrations, name and image', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'kubeloom-project-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: '@acme/gizmo-op', kubeloom: { image: 'registry.local/gizmo:1' } }));
  await mkdir(path.join(dir, 'src'));
  await writeFile(
    path.join(dir, 'src', 'setup.ts'),
    `import { defineCrd, s } from '${src('apiextensions/crd-builder.ts')}';
import { controllerManagedBy } from '${src('builder/builder.ts')}';
import { webhookManagedBy } from '${src('builder/webhook.ts')}';
import { kinds } from '${src('client/kinds.ts')}';
const gizmos = defineCrd({ group: 'acme.io', kind: 'Gizmo', plural: 'gizmos', scope: 'Namespaced', versions: [{ name: 'v1', schema: s.object({ spec: s.object({}) }) }] });
export const crds = [gizmos];
export async function setup(mgr) {
  await Promise.resolve();
  controllerManagedBy(mgr).for(gizmos.resource('v1')).owns(kinds.coreV1.configMaps).complete(() => undefined);
  webhookManagedBy(mgr).for(gizmos.resource('v1')).withValidator({}).complete();
}
`,
  );
  const input = await loadProject(dir);
  assert.equal(input.projectName, 'gizmo-op');
  assert.equal(input.image, 'registry.local/gizmo:1');
  assert.deepEqual(input.crds.map((c) => c.metadata?.name), ['gizmos.acme.io']);
  assert.deepEqual(input.controllers.map((c) => [c.name, c.for?.resource, c.owns.map((k) => k.resource)]), [['gizmo', 'gizmos', ['configmaps']]]);
  assert.deepEqual(input.webhooks.map((w) => w.validatePath), ['/validate-acme-io-v1-gizmo']);
  assert.equal((await loadProject(dir, { image: 'other:2' })).image, 'other:2');

  // Another folder: a module once imported stays cached under its URL.
  const bare = path.join(dir, 'bare');
  await mkdir(path.join(bare, 'src'), { recursive: true });
  await writeFile(path.join(bare, 'package.json'), JSON.stringify({ name: 'bare' }));
  await writeFile(path.join(bare, 'src', 'setup.ts'), 'export const crds = [];\n');
  await assert.rejects(loadProject(bare), (err: unknown) => err instanceof ManifestError && /exports no setup\(mgr\) function/.test(err.message));
  await assert.rejects(loadProject(path.join(dir, 'missing')), /cannot read .*package\.json/);
});
