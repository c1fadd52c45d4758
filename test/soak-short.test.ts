/**
 * The soak in short mode, as a child process: a few seconds of events through informers, handlers
 * and a work queue with connection resets, then stop. It must report no active handle after stop and
 * the process must exit on its own (a leaked timer, listener or socket would keep it alive).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';

test('soak (short): events flow, nothing is left active after stop, and the process exits on its own', async () => {
  const child = spawn(process.execPath, ['--expose-gc', 'bench/soak.ts', '--seconds', '3', '--report-seconds', '1', '--objects', '200', '--informers', '2', '--json'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  // A bound on waiting, not a performance assertion: a process kept alive by a leak never exits.
  let killed = false;
  const deadline = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, 60_000);
  const [code] = (await new Promise((resolve) => child.once('exit', (...a) => resolve(a)))) as [number | null, string | null];
  clearTimeout(deadline);
  assert.equal(killed, false, `the soak process did not exit on its own:\n${out}\n${err}`);
  assert.equal(code, 0, err);
  const summary = JSON.parse(out.trim().split('\n').at(-1)!) as { events: number; writes: number; processed: number; samples: number; activeHandles: string[]; loadExitCode: number; connectionResets: number };
  assert.deepEqual(summary.activeHandles, [], 'no timer, socket or server left active after stop');
  assert.equal(summary.loadExitCode, 0);
  assert.ok(summary.writes > 0 && summary.events > summary.writes, `${summary.events} events from ${summary.writes} writes`);
  assert.ok(summary.processed > 0);
  assert.ok(summary.samples >= 3);
  assert.ok(summary.connectionResets > 0, 'watch resumption was exercised');
  assert.equal(err, '');
});
