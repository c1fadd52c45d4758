/**
 * `kubeloom demo --kubeconfig`: against an existing cluster (here the embedded API server, started
 * by the test) it installs the CRD if missing, runs the controller until interrupted, and exits 0.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Pod } from '../src/api/core/v1.ts';
import { RestClient } from '../src/rest/client.ts';
import { ResourceClient } from '../src/kubernetes/resource-client.ts';
import { startApiServer } from '../src/testing/index.ts';
import { newListWatchFromClient } from '../src/tools/cache/listwatch.ts';
import { untilWithSync } from '../src/tools/watch/index.ts';
import type { PodSet } from '../src/demo/podset.ts';

test('kubeloom demo --kubeconfig runs the controller against that cluster until SIGINT', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'kubeloom-demo-kc-'));
  const server = await startApiServer();
  const rest = new RestClient({ host: server.url, qps: -1 });
  t.after(async () => {
    await rest.close();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });
  const kubeconfig = path.join(dir, 'config');
  await server.writeKubeconfig(kubeconfig);

  const child = spawn(process.execPath, ['src/cli/main.ts', 'demo', '--kubeconfig', kubeconfig, '--namespace', 'default'], {
    env: { PATH: process.env['PATH'] ?? '', HOME: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  t.after(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });

  // The CRD appears (installed by the demo), then a PodSet gets its pods.
  const podSets = new ResourceClient<PodSet>(rest, { group: 'demo.kubeloom.dev', version: 'v1alpha1', resource: 'podsets', kind: 'PodSet', namespaced: true, namespace: 'default' });
  const crds = new ResourceClient<{ metadata?: { name?: string } }>(rest, { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false });
  await untilWithSync(newListWatchFromClient(crds), (e) => e.type === 'ADDED' && e.object.metadata?.name === 'podsets.demo.kubeloom.dev', { timeoutMs: 20_000 });
  await podSets.create({
    metadata: { name: 'web', namespace: 'default' },
    spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  });
  const pods = new ResourceClient<Pod>(rest, { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true, namespace: 'default' });
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
  // No fake kubelet against a real cluster: the pods stay Pending.
  assert.ok((await pods.list()).items.every((p) => p.status?.phase === 'Pending'));

  child.kill('SIGINT');
  assert.equal(await exited, 0, `stderr:\n${stderr}`);
  // The cluster it writes to is printed before anything is written.
  const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  assert.match(stdout, new RegExp(`^kubeloom demo: PodSet controller against the cluster at ${escape(server.url)} \\(context [^,]+, from ${escape(kubeconfig)}\\)\n`));
  assert.match(
    stdout,
    /\n {2}writes there: CustomResourceDefinition podsets\.demo\.kubeloom\.dev \(if missing\), pods and Events of PodSets in namespace default, Lease default\/podset-controller\n {2}CRD podsets\.demo\.kubeloom\.dev: installed\n/,
  );
  assert.match(stdout, /leader election: Lease default\/podset-controller/);
  assert.doesNotMatch(stdout, /no kubelet runs here/);
  assert.match(stdout, /stopped\n$/);
});
