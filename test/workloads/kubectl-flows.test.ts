/**
 * The kubectl flows a developer's cluster must support, with the real kubectl against the embedded server
 * running the stand-ins and kube-controller-manager's controllers (what `kubeloom apiserver` runs by
 * default): create deployment → rollout status, scale, set image → rollout undo, wait for Available,
 * expose → endpoints, create job → wait for Complete, delete --cascade=foreground, drain.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { findKubectl } from '../support/kubectl.ts';
import { startCluster, waitForObject } from './support.ts';

const run = promisify(execFile);
const kubectl = await findKubectl();

test('kubectl flows on a developer cluster: deployments roll out, scale, update and undo; services get endpoints; jobs complete; cascades and drains', async (t) => {
  if (kubectl === undefined) return t.skip('kubectl not installed: set KUBECTL or install kubectl');
  const { server, client } = await startCluster(t, { namespaceDeletionGracePeriodMs: 0 });
  const dir = await mkdtemp(join(tmpdir(), 'kubeloom-flows-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await server.writeKubeconfig(join(dir, 'kubeconfig'));
  const kc = async (...args: string[]): Promise<string> => (await run(kubectl, [...args, '--cache-dir', join(dir, 'cache')], { env: { ...process.env, KUBECONFIG: join(dir, 'kubeconfig'), HOME: dir }, timeout: 60_000 })).stdout;

  await kc('create', 'deployment', 'web', '--image=nginx:1.26', '--replicas=2', '--port=8080');
  assert.match(await kc('rollout', 'status', 'deployment/web', '--timeout=30s'), /deployment "web" successfully rolled out/);
  await kc('scale', 'deployment/web', '--replicas=3');
  await kc('rollout', 'status', 'deployment/web', '--timeout=30s');
  assert.match(await kc('get', 'deployment', 'web', '--no-headers'), /^web\s+3\/3\s+3\s+3\s/);

  await kc('set', 'image', 'deployment/web', 'nginx=nginx:1.27');
  assert.match(await kc('rollout', 'status', 'deployment/web', '--timeout=30s'), /successfully rolled out/);
  assert.equal(await kc('get', 'deployment', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].image}'), 'nginx:1.27');
  assert.match(await kc('rollout', 'undo', 'deployment/web'), /deployment.apps\/web rolled back/);
  await kc('rollout', 'status', 'deployment/web', '--timeout=30s');
  assert.equal(await kc('get', 'deployment', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].image}'), 'nginx:1.26');
  assert.match(await kc('rollout', 'history', 'deployment/web'), /\n2\s+<none>\n3\s+<none>\n/);
  assert.match(await kc('wait', '--for=condition=Available', 'deployment/web', '--timeout=30s'), /condition met/);
  const pods = (await kc('get', 'pods', '-l', 'app=web', '--no-headers')).trim().split('\n');
  assert.equal(pods.length, 3);
  assert.ok(pods.every((line) => /\s1\/1\s+Running\s/.test(line)), pods.join('\n'));

  await kc('expose', 'deployment', 'web', '--port=80', '--target-port=8080');
  await waitForObject(client.coreV1().endpoints('default'), 'web', (ep) => (ep?.subsets?.[0]?.addresses?.length ?? 0) === 3);
  assert.match(await kc('get', 'endpoints', 'web', '--no-headers'), /^web\s+10\.244\.0\.\d+:8080,10\.244\.0\.\d+:8080,10\.244\.0\.\d+:8080\s/);

  await kc('create', 'job', 'pi', '--image=busybox', '--', 'echo', 'done');
  assert.match(await kc('wait', '--for=condition=Complete', 'job/pi', '--timeout=30s'), /condition met/);
  assert.match(await kc('get', 'job', 'pi', '--no-headers'), /^pi\s+Complete\s+1\/1\s/);

  assert.match(await kc('delete', 'deployment', 'web', '--cascade=foreground'), /deployment.apps "web" deleted/);
  // Foreground: the Deployment went after its ReplicaSets, which went after their pods.
  assert.equal((await kc('get', 'replicasets', '--no-headers', '--ignore-not-found')).trim(), '');
  assert.equal((await kc('get', 'pods', '-l', 'app=web', '--no-headers', '--ignore-not-found')).trim(), '');

  await kc('create', 'deployment', 'api', '--image=nginx', '--replicas=2');
  await kc('rollout', 'status', 'deployment/api', '--timeout=30s');
  const drained = await kc('drain', 'kubeloom-node', '--ignore-daemonsets', '--delete-emptydir-data', '--force', '--timeout=30s');
  assert.match(drained, /node\/kubeloom-node drained/);
  assert.match(await kc('get', 'node', 'kubeloom-node', '--no-headers'), /SchedulingDisabled/);
  // The replacements wait for a schedulable node.
  assert.match(await kc('get', 'pods', '-l', 'app=api', '--no-headers'), /Pending/);
  await kc('uncordon', 'kubeloom-node');
  await kc('rollout', 'status', 'deployment/api', '--timeout=30s');
});
