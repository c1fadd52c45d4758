import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { promClient } from './prom-client.ts';

test('prom-client is a regular dependency, so metrics work with what `npm install kubeloom` brings', async () => {
  const pkg = JSON.parse(await readFile(new URL('../../../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string>; peerDependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  assert.equal(pkg.dependencies['prom-client'], '^15.1.3');
  assert.equal(pkg.peerDependencies?.['prom-client'], undefined);
  assert.equal(pkg.devDependencies?.['prom-client'], undefined);
  assert.equal(typeof promClient().Registry, 'function');
});
