/**
 * kubectl against the embedded server's controllers (embedded only: kube-apiserver alone has none): a pod
 * waited for until Ready on the scheduler and kubelet stand-ins, a foreground cascade, a namespace
 * deletion kubectl waits for.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer } from '../src/testing/index.ts';
import { call, type Json } from './apiserver-helpers.ts';
import { findKubectl } from './support/kubectl.ts';

const run = promisify(execFile);

const kubectl = await findKubectl();

test('kubectl with the controllers: run and wait for Ready, delete --cascade=foreground, delete namespace', async (t) => {
  if (kubectl === undefined) return t.skip('kubectl not installed: set KUBECTL or install kubectl');
  // A server of its own: the stand-ins on, and no grace period before namespace cleanup (kubectl waits for it).
  const own = await startApiServer({ controllers: { scheduler: true, kubelet: true, namespaceDeletionGracePeriodMs: 0 } });
  const ownDir = await mkdtemp(join(tmpdir(), 'kubeloom-kubectl-'));
  try {
    await own.writeKubeconfig(join(ownDir, 'kubeconfig'));
    const kc = (...args: string[]): Promise<{ stdout: string }> => run(kubectl, [...args, '--cache-dir', join(ownDir, 'cache')], { env: { ...process.env, KUBECONFIG: join(ownDir, 'kubeconfig'), HOME: ownDir }, timeout: 60_000 });
    await kc('run', 'web', '--image=nginx:1.27');
    await kc('wait', '--for=condition=Ready', 'pod/web', '--timeout=30s');
    assert.match((await kc('get', 'pod', 'web', '-o', 'wide', '--no-headers')).stdout, /^web\s+1\/1\s+Running\s+0\s+\S+\s+10\.244\.0\.2\s+kubeloom-node\s/);
    const owner = JSON.parse((await kc('create', 'configmap', 'owner', '-o', 'json')).stdout) as Json;
    const dependent = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dependent', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid, blockOwnerDeletion: true }] } };
    const file = join(ownDir, 'dependent.json');
    await writeFile(file, JSON.stringify(dependent));
    await kc('create', '-f', file);
    // Foreground: kubectl waits until the owner is gone, which is after its dependent.
    assert.match((await kc('delete', 'configmap', 'owner', '--cascade=foreground')).stdout, /configmap "owner" deleted/);
    assert.equal((await call(own, 'GET', '/api/v1/namespaces/default/configmaps/dependent')).status, 404);
    await kc('create', 'namespace', 'scratch');
    await kc('-n', 'scratch', 'create', 'configmap', 'c');
    assert.match((await kc('delete', 'namespace', 'scratch')).stdout, /namespace "scratch" deleted/);
    assert.equal((await call(own, 'GET', '/api/v1/namespaces/scratch')).status, 404);
  } finally {
    await own.stop();
    await rm(ownDir, { recursive: true, force: true });
  }
});
