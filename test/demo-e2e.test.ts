/**
 * `kubeloom demo` end to end, as `npm start` runs it: a child process given no --kubeconfig (only a
 * KUBECONFIG in its environment, naming the backend's server, which it must ignore) starts the
 * embedded API server, runs the PodSet controller through the workload and exits 0 with its summary.
 * That server is the demo's own, so on the real-cluster backend the test is skipped
 * (test/demo-kubeconfig.test.ts runs the demo against the cluster).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Capability, e2eTest } from './support/backend.ts';

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['src/cli/main.ts', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

e2eTest('kubeloom demo converges every step against the embedded API server and exits 0 with its summary, leaving the KUBECONFIG cluster alone', { needs: [Capability.OwnServer] }, async (backend, t) => {
  const home = await mkdtemp(path.join(tmpdir(), 'kubeloom-demo-'));
  t.after(() => rm(home, { recursive: true, force: true }));
  // The backend's server, named by KUBECONFIG only: the demo must not write to it.
  const kubeconfig = await backend.kubeconfig();
  const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'] ?? '', HOME: home, KUBECONFIG: kubeconfig };
  const { code, stdout, stderr } = await run(['demo', '--podsets', '2', '--replicas', '2'], env);
  assert.equal(code, 0, `exit code 0 expected; stderr:\n${stderr}\nstdout:\n${stdout}`);
  const escaped = kubeconfig.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  assert.match(
    stdout,
    new RegExp(`^kubeloom demo: PodSet controller against the embedded API server at http://127\\.0\\.0\\.1:\\d+ \\(KUBECONFIG \\(${escaped}\\) is not used: pass --kubeconfig or --context to run against a cluster\\)\n`),
  );
  const { cs } = backend;
  assert.deepEqual((await cs.apiextensionsV1().customResourceDefinitions().list()).items, []);
  assert.deepEqual((await cs.coordinationV1().leases('').list()).items, []);
  assert.deepEqual((await cs.coreV1().pods('').list()).items, []);
  assert.match(stdout, /CRD podsets\.demo\.kubeloom\.dev: installed/);
  assert.match(stdout, /endpoints: http:\/\/127\.0\.0\.1:\d+\/metrics/);
  assert.match(stdout, /no kubelet runs here: the scheduler and kubelet stand-ins of the embedded server bind new pods to a node and mark them Running\/Ready through pods\/status/);
  assert.match(stdout, /summary: converged \(6\/6 steps\)/);
  for (const step of [
    'create 2 PodSets × 2 replicas',
    'scale every PodSet up to 4',
    "delete one pod of every PodSet behind the controller's back",
    'adopt an orphan pod and release a relabelled one (web-1)',
    'scale every PodSet down to 1',
    'delete every PodSet (the finalizer deletes their pods first)',
  ]) {
    assert.ok(stdout.includes(`step `) && stdout.includes(step), `step "${step}" reported`);
  }
  // Every pod the controller created or adopted was deleted by it, released, or deleted behind its back (one per PodSet).
  const objects = /objects: {4}pods created (\d+), deleted (\d+), adopted (\d+), released (\d+);/.exec(stdout);
  assert.ok(objects, 'objects line');
  const [created, deleted, adopted, released] = objects.slice(1).map(Number) as [number, number, number, number];
  assert.equal(adopted, 1);
  assert.equal(released, 1);
  assert.ok(created >= 10, `at least 2×2 + 2×2 + 2 pods created, got ${created}`);
  assert.equal(created + adopted, deleted + released + 2);
  // One event per create, delete and release, all written to the server.
  const total = created + deleted + released;
  assert.match(stdout, new RegExp(`events: {5}${total} recorded \\(SuccessfulCreate ${created}, SuccessfulDelete ${deleted}, SuccessfulRelease 1\\), ${total} Event objects on the server`));
  assert.match(stdout, /reconciles: \d+ \(\d+ done, \d+ requeued, \d+ retried after an error\)/);
  assert.match(stdout, /time: {7}workload [\d.]+ m?s, total [\d.]+ m?s/);
  assert.doesNotMatch(stdout, /NOT converged/);
});

test('kubeloom demo rejects bad flags with exit code 2', async () => {
  const { code, stderr } = await run(['demo', '--replicas', 'many'], { PATH: process.env['PATH'] ?? '' });
  assert.equal(code, 2);
  assert.match(stderr, /invalid --replicas "many"/);
});
