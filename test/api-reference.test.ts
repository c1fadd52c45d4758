/**
 * The API reference (`npm run docs`, TypeDoc) covers every export subpath, and every exported symbol
 * and member has TSDoc: `npm run docs:check` validates without writing and fails on any warning
 * (undocumented symbol, unresolvable {@link}, public type that is not exported).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const root = path.join(import.meta.dirname, '..');

test('the API reference builds from the TSDoc with no undocumented public symbol and no broken link', async () => {
  const typedoc = path.join(root, 'node_modules', 'typedoc', 'bin', 'typedoc');
  const run = promisify(execFile)(process.execPath, [typedoc, '--emit', 'none', '--treatValidationWarningsAsErrors'], { cwd: root, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
  const { stdout, stderr } = await run.catch((err: { stdout: string; stderr: string }) => {
    assert.fail(`typedoc reported problems:\n${err.stdout}${err.stderr}`);
  });
  assert.doesNotMatch(stdout + stderr, /\[warning\]|\[error\]/);
});
