// `kubeloom cluster`: named persistent clusters in a temporary HOME / XDG_DATA_HOME / KUBECONFIG.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { loadKubeConfig, restConfigFrom } from '../src/clientcmd/index.ts';
import { newClientset } from '../src/kubernetes/clientset.ts';
import { runCli } from '../src/cli/commands.ts';
import type { Json } from './apiserver-helpers.ts';

test('kubeloom cluster create, list, stop, start, snapshot save/restore and delete keep data and the kubeconfig context', async () => {
  const home = await mkdtemp(join(tmpdir(), 'kubeloom-home-'));
  const saved = { HOME: process.env.HOME, XDG_DATA_HOME: process.env.XDG_DATA_HOME, KUBECONFIG: process.env.KUBECONFIG };
  process.env.HOME = home;
  process.env.XDG_DATA_HOME = join(home, 'data');
  const kubeconfig = join(home, 'kube', 'config');
  process.env.KUBECONFIG = kubeconfig;
  const out: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  const cli = async (...args: string[]): Promise<string> => {
    out.length = 0;
    process.stdout.write = ((chunk: string) => (out.push(String(chunk)), true)) as typeof process.stdout.write;
    try {
      assert.equal(await runCli(['cluster', ...args]), 0, `kubeloom cluster ${args.join(' ')}`);
    } finally {
      process.stdout.write = write;
    }
    return out.join('');
  };
  const clientset = async () => newClientset(await restConfigFrom(await loadKubeConfig({ path: kubeconfig, env: {} })));
  try {
    assert.match(await cli('create', 'dev'), /cluster dev created at https:\/\/127\.0\.0\.1:\d+; context kubeloom-dev/);
    const kc: Json = parseYaml(await readFile(kubeconfig, 'utf8'));
    assert.equal(kc['current-context'], 'kubeloom-dev');
    const url = kc.clusters.find((c: Json) => c.name === 'kubeloom-dev').cluster.server as string;
    assert.match(url, /^https:/);
    await (await clientset()).coreV1().configMaps('default').create({ metadata: { name: 'kept' }, data: { a: '1' } });
    assert.match(await cli('list'), /^dev\s+running\s+https:\/\/127\.0\.0\.1:\d+\n$/);

    assert.match(await cli('snapshot', 'save', 'before', '--name', 'dev'), /snapshot before of cluster dev saved/);
    await (await clientset()).coreV1().configMaps('default').delete('kept');

    assert.equal(await cli('stop', 'dev'), 'cluster dev stopped\n');
    assert.match(await cli('list'), /^dev\s+stopped\s/);
    // Restoring a stopped cluster's snapshot leaves it stopped; start brings it up on the same port.
    await cli('snapshot', 'restore', 'before', '--name', 'dev');
    assert.match(await cli('start', 'dev'), new RegExp(`cluster dev running at ${url.replace(/[.:/]/g, '\\$&')}`));
    // The serving certificate is kept (--cert-dir): the context's CA did not change across the restart.
    const ca = (k: Json): string => k.clusters.find((c: Json) => c.name === 'kubeloom-dev').cluster['certificate-authority-data'];
    assert.equal(ca(parseYaml(await readFile(kubeconfig, 'utf8'))), ca(kc));
    const cm = await (await clientset()).coreV1().configMaps('default').get('kept');
    assert.deepEqual(cm.data, { a: '1' });

    assert.equal(await cli('delete', 'dev'), 'cluster dev deleted\n');
    assert.equal(await cli('list'), 'no clusters\n');
    const after: Json = parseYaml(await readFile(kubeconfig, 'utf8'));
    assert.deepEqual([after.contexts, after['current-context']], [[], '']);
  } finally {
    // A failed run leaves no server behind.
    if (existsSync(join(home, 'data', 'kubeloom', 'clusters', 'dev'))) await runCli(['cluster', 'delete', 'dev']);
    Object.assign(process.env, saved);
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
    await rm(home, { recursive: true, force: true });
  }
});
