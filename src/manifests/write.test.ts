import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generatedHeader } from './config.ts';
import { writeConfig } from './write.ts';

test('writeConfig writes changed files, leaves equal ones, removes stale generated files and never touches the user’s', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'kubeloom-write-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const a = `${generatedHeader}\na: 1\n`;
  const b = `${generatedHeader}\nb: 1\n`;
  assert.deepEqual(await writeConfig(dir, new Map([['crd/a.yaml', a], ['crd/b.yaml', b]])), { written: ['crd/a.yaml', 'crd/b.yaml'], unchanged: [], removed: [] });
  await mkdir(path.join(dir, 'overlays'));
  await writeFile(path.join(dir, 'overlays', 'mine.yaml'), 'kind: Kustomization\n');
  const before = (await stat(path.join(dir, 'crd', 'a.yaml'))).mtimeMs;
  const b2 = `${generatedHeader}\nb: 2\n`;
  assert.deepEqual(await writeConfig(dir, new Map([['crd/a.yaml', a], ['crd/c.yaml', b2]])), { written: ['crd/c.yaml'], unchanged: ['crd/a.yaml'], removed: ['crd/b.yaml'] });
  assert.equal((await stat(path.join(dir, 'crd', 'a.yaml'))).mtimeMs, before);
  assert.equal(await readFile(path.join(dir, 'overlays', 'mine.yaml'), 'utf8'), 'kind: Kustomization\n');
  await assert.rejects(readFile(path.join(dir, 'crd', 'b.yaml')), { code: 'ENOENT' });
});
