import assert from 'node:assert/strict';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse } from 'yaml';
import { loadKubeConfigFile, parseKubeConfig, serializeKubeConfig, writeKubeConfig } from './index.ts';

const KEY = '-----BEGIN EC PRIVATE KEY-----\nc2VjcmV0\n-----END EC PRIVATE KEY-----\n';
const source = `apiVersion: v1
kind: Config
current-context: ctx
preferences: {colors: true}
clusters:
- name: c
  cluster:
    server: https://h:6443
    certificate-authority-data: ${Buffer.from('-----BEGIN CERTIFICATE-----\nQ0E=\n-----END CERTIFICATE-----\n').toString('base64')}
    extensions:
    - name: client.authentication.k8s.io/exec
      extension: {audience: x}
users:
- name: u
  user:
    token: the-token
    client-key-data: ${Buffer.from(KEY).toString('base64')}
    exec:
      command: /bin/plugin
      args: [--flag]
      env: [{name: A, value: b}]
      apiVersion: client.authentication.k8s.io/v1
      interactiveMode: Never
contexts:
- name: ctx
  context: {cluster: c, user: u, namespace: ns}
`;

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'kubeloom-write-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const mode = async (p: string): Promise<number> => (await stat(p)).mode & 0o777;

describe('writeKubeConfig', () => {
  test('writes YAML with mode 0600 that loads back to the same config, secrets included', async () => {
    const config = parseKubeConfig(source, { file: '/src/config' });
    const file = path.join(dir, 'new/dir/config');
    await writeKubeConfig(file, config);
    assert.equal(await mode(file), 0o600);
    const back = await loadKubeConfigFile(file);
    assert.equal(back.authInfos['u']!.token, 'the-token');
    assert.equal(back.authInfos['u']!.clientKeyData, KEY);
    assert.deepEqual(back.authInfos['u']!.exec, config.authInfos['u']!.exec);
    assert.deepEqual(back.clusters['c']!.extensions, { 'client.authentication.k8s.io/exec': { audience: 'x' } });
    assert.equal(back.currentContext, 'ctx');
    assert.equal(back.preferences.colors, true);
    // The on-disk shape is clientcmd/api/v1; origins are not written.
    const yaml = parse(await readFile(file, 'utf8'));
    assert.equal(yaml.users[0].user['client-key-data'], Buffer.from(KEY).toString('base64'));
    assert.equal(yaml.contexts[0].context.user, 'u');
    assert.doesNotMatch(await readFile(file, 'utf8'), /locationOfOrigin|REDACTED/);
  });

  test('an existing world-readable file is restricted to 0600 and fully replaced', async () => {
    const file = path.join(dir, 'existing');
    await writeFile(file, 'x'.repeat(10_000));
    await chmod(file, 0o644);
    await writeKubeConfig(file, parseKubeConfig(source));
    assert.equal(await mode(file), 0o600);
    assert.equal(await readFile(file, 'utf8'), serializeKubeConfig(parseKubeConfig(source)));
  });

  test('serialisation is stable: entries sorted by name', () => {
    const a = parseKubeConfig('clusters:\n- name: b\n  cluster: {server: x}\n- name: a\n  cluster: {server: y}\n');
    const yaml = parse(serializeKubeConfig(a));
    assert.deepEqual(yaml.clusters.map((c: { name: string }) => c.name), ['a', 'b']);
  });
});
