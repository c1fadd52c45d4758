/**
 * `kubeloom controller-manager --kubeconfig K`: kubeloom's controllers as a process of their own against a
 * server (here an embedded one with only the stand-ins, as a cluster without kube-controller-manager).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startCluster, waitForObject } from './support.ts';

const main = join(import.meta.dirname, '..', '..', 'src', 'cli', 'main.ts');

test('kubeloom controller-manager runs the selected controllers against the kubeconfig\'s cluster until SIGTERM', async (t) => {
  const { server, client } = await startCluster(t, { workloads: false });
  const dir = await mkdtemp(join(tmpdir(), 'kubeloom-kcm-cli-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await server.writeKubeconfig(join(dir, 'kubeconfig'));
  const child = spawn(process.execPath, [main, 'controller-manager', '--kubeconfig', join(dir, 'kubeconfig'), '--controllers', 'replicaset'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (c: string) => (out += c));
  try {
    await client.appsV1().replicaSets('default').create({ metadata: { name: 'web' }, spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } });
    await waitForObject(client.appsV1().replicaSets('default'), 'web', (rs) => rs?.status?.availableReplicas === 2);
    assert.match(out, /^kubeloom controller-manager running replicaset against http:\/\/127\.0\.0\.1:\d+\n/);
  } finally {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    assert.equal((await exited)[0], 0);
  }
  const bad = spawn(process.execPath, [main, 'controller-manager', '--controllers', 'nope'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  bad.stderr.setEncoding('utf8');
  bad.stderr.on('data', (c: string) => (err += c));
  assert.equal((await once(bad, 'exit'))[0], 2);
  assert.match(err, /"nope" is not in the list of known controllers/);
  const gate = spawn(process.execPath, [main, 'controller-manager', '--feature-gates', 'Nope=true'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let gateErr = '';
  gate.stderr.setEncoding('utf8');
  gate.stderr.on('data', (c: string) => (gateErr += c));
  assert.equal((await once(gate, 'exit'))[0], 2);
  assert.match(gateErr, /--feature-gates: unrecognized feature gate: Nope/);
});
