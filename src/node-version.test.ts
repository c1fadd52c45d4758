import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { checkNodeVersion, isSupportedNodeVersion, minimumNodeVersion, UnsupportedNodeVersionError } from './node-version.ts';

const run = promisify(execFile);
const root = path.join(import.meta.dirname, '..');

// Makes the child believe it runs on an older Node.js (process.versions.node is configurable).
const fakeNode20 = `--import=data:text/javascript,Object.defineProperty(process.versions,"node",{value:"20.20.2"})`;

test('the minimum Node.js version is package.json engines.node', async () => {
  const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string } };
  assert.equal(pkg.engines.node, `>=${minimumNodeVersion.join('.')}`);
});

test('isSupportedNodeVersion compares major, then minor, numerically', () => {
  const cases: Array<[string, boolean]> = [
    ['20.20.2', false],
    ['22.0.0', false],
    ['22.18.9', false],
    ['22.19.0', true],
    ['22.100.0', true],
    ['23.0.0', true],
    ['24.21.0', true],
    ['100.0.0', true],
    ['', false],
  ];
  for (const [version, supported] of cases) assert.equal(isSupportedNodeVersion(version), supported, version);
});

test('checkNodeVersion throws an UnsupportedNodeVersionError naming both versions', () => {
  assert.throws(
    () => checkNodeVersion('20.20.2'),
    (err: unknown) =>
      err instanceof UnsupportedNodeVersionError &&
      err.code === 'ERR_UNSUPPORTED_NODE_VERSION' &&
      err.version === '20.20.2' &&
      err.message.startsWith('kubeloom requires Node.js >= 22.19, but this is Node.js 20.20.2.'),
  );
  checkNodeVersion('22.19.0');
});

test('every export subpath fails with the version error on an old Node.js, before any dependency loads', async () => {
  const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { exports: Record<string, string | Record<string, string>> };
  // Wildcard subpaths (kubeloom/api/*, ...) are generated, type-only modules: nothing of theirs runs.
  const sources = Object.values(pkg.exports)
    .filter((target) => typeof target === 'object')
    .map((target) => target['kubeloom-source']!)
    .filter((source) => !source.includes('*'));
  assert.ok(sources.length >= 20);
  // One process imports every entry in turn and reports each failure's code.
  const script = `
    const codes = {};
    for (const source of ${JSON.stringify(sources)}) {
      try { await import(new URL(source, 'file://${root}/').href); codes[source] = 'loaded'; }
      catch (err) { codes[source] = err.code ?? String(err); }
    }
    process.stdout.write(JSON.stringify(codes));`;
  const { stdout } = await run(process.execPath, [fakeNode20, '--input-type=module', '-e', script], { cwd: root });
  const codes = JSON.parse(stdout) as Record<string, string>;
  for (const source of sources) assert.equal(codes[source], 'ERR_UNSUPPORTED_NODE_VERSION', source);
});

test('the CLI launcher prints the version error and exits 1 on an old Node.js', async () => {
  await assert.rejects(run(process.execPath, [fakeNode20, path.join(root, 'bin', 'kubeloom.js'), '--version']), (err: { code: number; stderr: string; stdout: string }) => {
    assert.equal(err.code, 1);
    assert.equal(err.stdout, '');
    assert.match(err.stderr, /^kubeloom requires Node\.js >= 22\.19, but this is Node\.js 20\.20\.2\./);
    assert.doesNotMatch(err.stderr, /\n\s+at /);
    return true;
  });
});
