/**
 * The `kubeloom` CLI, run as a user runs it: a failure is one clear line on stderr and a non-zero
 * exit (never a stack trace), and every `--help` prints to stdout and exits 0.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';

const main = join(import.meta.dirname, '..', 'src', 'cli', 'main.ts');

async function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [main, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

test('kubeloom apiserver on a busy port: one line naming the address, exit 1, no stack trace', async () => {
  const busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  const { port } = busy.address() as { port: number };
  try {
    const { code, stdout, stderr } = await runCli(['apiserver', '--port', String(port)]);
    assert.equal(code, 1);
    assert.equal(stdout, '');
    assert.equal(stderr, `kubeloom apiserver: address 127.0.0.1:${port} is already in use; pick another --port, or --port 0 for any free one\n`);
  } finally {
    await new Promise<void>((resolve) => busy.close(() => resolve()));
  }
});

test('kubeloom generate --help (and help generate) print the usage on stdout and exit 0', async () => {
  for (const args of [['generate', '--help'], ['generate', '-h'], ['help', 'generate'], ['generate', 'crd', '--help']]) {
    const { code, stdout, stderr } = await runCli(args);
    assert.equal(code, 0, args.join(' '));
    assert.equal(stderr, '', args.join(' '));
    assert.match(stdout, /^usage: kubeloom generate crd /, args.join(' '));
    // The usage names what is generated for the clientset and the informers.
    assert.match(stdout, /widgetResource/);
  }
});

test('kubeloom generate without a generator or without --out says what is missing, exit 2', async () => {
  const none = await runCli(['generate']);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /^kubeloom generate: what to generate is missing; only "crd" exists\n/);
  const noOut = await runCli(['generate', 'crd', 'widgets.yaml']);
  assert.equal(noOut.code, 2);
  assert.match(noOut.stderr, /^kubeloom generate crd: --out DIR is required\n/);
});
