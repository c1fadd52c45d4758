/**
 * `kubeloom demo --kubeconfig`: against an existing cluster (the test's backend: the embedded API
 * server or a real cluster) it installs the CRD if missing, runs the controller until interrupted,
 * and exits 0.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { Pod } from '../src/api/core/v1.ts';
import { isNotFound } from '../src/apimachinery/errors.ts';
import { RestClient } from '../src/rest/client.ts';
import { ResourceClient } from '../src/kubernetes/resource-client.ts';
import { newListWatchFromClient } from '../src/tools/cache/listwatch.ts';
import { untilWithSync } from '../src/tools/watch/index.ts';
import { podSetCrd, type PodSet } from '../src/demo/podset.ts';
import { e2eTest } from './support/backend.ts';

e2eTest('kubeloom demo --kubeconfig runs the controller against that cluster until SIGINT', async (env) => {
  const ns = env.namespace;
  const dir = await env.tmpDir();
  const rest = new RestClient(env.restConfig());
  env.defer(() => rest.close());
  const kubeconfig = await env.kubeconfig();
  // The CRD has a fixed name: on a shared cluster it may be there already (and then stays).
  const crdName = podSetCrd.metadata?.name ?? '';
  const installedBefore = await env.cs
    .apiextensionsV1()
    .customResourceDefinitions()
    .get(crdName)
    .then(
      () => true,
      (err: unknown) => (isNotFound(err) ? false : Promise.reject(err)),
    );

  const child = spawn(process.execPath, ['src/cli/main.ts', 'demo', '--kubeconfig', kubeconfig, '--namespace', ns], {
    env: { PATH: process.env['PATH'] ?? '', HOME: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  env.defer(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });

  // The CRD appears (installed by the demo), then a PodSet gets its pods.
  const podSets = new ResourceClient<PodSet>(rest, { group: 'demo.kubeloom.dev', version: 'v1alpha1', resource: 'podsets', kind: 'PodSet', namespaced: true, namespace: ns });
  const crds = new ResourceClient<{ metadata?: { name?: string } }>(rest, { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false });
  await untilWithSync(newListWatchFromClient(crds), (e) => e.type === 'ADDED' && e.object.metadata?.name === 'podsets.demo.kubeloom.dev', { timeoutMs: 20_000 });
  // The demo serves PodSets once its caches synced: on a real cluster the CRD may need a moment more.
  await env.ensureSharedCrd(podSetCrd);
  await podSets.create({
    apiVersion: 'demo.kubeloom.dev/v1alpha1',
    kind: 'PodSet',
    metadata: { name: 'web', namespace: ns },
    spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  });
  const pods = new ResourceClient<Pod>(rest, { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true, namespace: ns });
  const count = new Set<string>();
  await untilWithSync(
    newListWatchFromClient(pods),
    (e) => {
      if (e.type === 'DELETED') count.delete(e.object.metadata?.name ?? '');
      else count.add(e.object.metadata?.name ?? '');
      return count.size === 2;
    },
    { timeoutMs: 20_000 },
  );
  // No fake kubelet against a cluster: the pods stay Pending.
  assert.ok((await pods.list()).items.every((p) => p.status?.phase === 'Pending'));
  // Deleting the PodSet: its finalizer holds it until the controller deleted its pods.
  await podSets.delete('web');
  await untilWithSync(newListWatchFromClient(podSets), (e) => e.type === 'DELETED' && e.object.metadata?.name === 'web', {
    timeoutMs: 20_000,
    precondition: (store) => !store.has(`${ns}/web`),
  });
  assert.deepEqual((await pods.list()).items, []);

  child.kill('SIGINT');
  assert.equal(await exited, 0, `stderr:\n${stderr}`);
  // The cluster it writes to is printed before anything is written.
  const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  assert.match(stdout, new RegExp(`^kubeloom demo: PodSet controller against the cluster at ${escape(env.host)} \\(context [^,]+, from ${escape(kubeconfig)}\\)\n`));
  // On a shared cluster another test may install the CRD between the check above and the demo's.
  const crdLine = installedBefore ? 'present' : env.embedded !== undefined ? 'installed' : '(installed|present)';
  assert.match(
    stdout,
    new RegExp(
      `\n {2}writes there: CustomResourceDefinition podsets\\.demo\\.kubeloom\\.dev \\(if missing\\), pods and Events of PodSets in namespace ${ns}, Lease ${ns}/podset-controller\n {2}CRD podsets\\.demo\\.kubeloom\\.dev: ${crdLine}\n`,
    ),
  );
  assert.match(stdout, new RegExp(`leader election: Lease ${ns}/podset-controller`));
  assert.doesNotMatch(stdout, /no kubelet runs here/);
  assert.match(stdout, /stopped\n$/);
});
