/**
 * Runs every program in examples/ as its own process, as a user would run it, against a fresh
 * embedded API server named by KUBECONFIG (HOME points to an empty directory, so no other
 * kubeconfig is picked up); `*.test.ts` examples run under `node --test`. Each must exit 0.
 * `kubeloom/...` imports resolve to src/ through the package's `kubeloom-source` export condition.
 */
import { describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startApiServer } from '../src/testing/index.ts';

const run = promisify(execFile);
const examples = path.join(import.meta.dirname, '..', 'examples');
// The top-level programs, and the tests of the example operators in their own folders (examples/cronjob/).
const files = [
  ...(await readdir(examples)).filter((f) => f.endsWith('.ts')),
  ...(await readdir(examples, { recursive: true })).filter((f) => f.includes(path.sep) && f.endsWith('.test.ts') && !f.startsWith(`generated${path.sep}`)),
].sort();

async function runExample(file: string): Promise<void> {
  const home = await mkdtemp(path.join(tmpdir(), 'kubeloom-example-'));
  const server = await startApiServer();
  try {
    const kubeconfig = path.join(home, 'kubeconfig');
    await server.writeKubeconfig(kubeconfig);
    const args = ['--conditions=kubeloom-source', ...(file.endsWith('.test.ts') ? ['--test'] : []), path.join(examples, file)];
    const env = { PATH: process.env['PATH'] ?? '', HOME: home, KUBECONFIG: kubeconfig };
    try {
      await run(process.execPath, args, { cwd: home, env, timeout: 120_000 });
    } catch (err) {
      const e = err as { code?: unknown; signal?: unknown; stdout?: string; stderr?: string };
      assert.fail(`examples/${file} failed (exit ${String(e.code)}, signal ${String(e.signal)}):\n${e.stdout ?? ''}${e.stderr ?? ''}`);
    }
  } finally {
    await server.stop();
    await rm(home, { recursive: true, force: true });
  }
}

test('there are examples to run', () => {
  assert.ok(files.length >= 10, files.join(', '));
});

// Mostly waiting on loopback I/O and client-side throttling: several at once.
describe('examples', { concurrency: 4 }, () => {
  for (const file of files) it(`examples/${file} runs to completion`, () => runExample(file));
});
