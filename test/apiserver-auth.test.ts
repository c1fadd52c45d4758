import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { startApiServer } from '../src/testing/index.ts';
import { call, type Json } from './apiserver-helpers.ts';

test('with a token every path requires it: 401 Status otherwise', async () => {
  const s = await startApiServer({ token: 's3cret', tls: false });
  try {
    for (const path of ['/version', '/api', '/apis', '/api/v1/namespaces', '/nothing']) {
      for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: 's3cret' }] as Record<string, string>[]) {
        const r = await call(s, 'GET', path, { headers });
        assert.equal(r.status, 401, `${path} ${JSON.stringify(headers)}`);
        assert.deepEqual([r.body.kind, r.body.reason, r.body.code], ['Status', 'Unauthorized', 401]);
      }
    }
    const ok = await call(s, 'GET', '/api/v1/namespaces', { headers: { authorization: 'Bearer s3cret' } });
    assert.equal(ok.status, 200);
    const kubeconfig: Json = parseYaml(s.kubeconfig);
    assert.deepEqual(kubeconfig.users, [{ name: 'kubeloom', user: { token: 's3cret' } }]);
  } finally {
    await s.stop();
  }
});

test('the kubeconfig names cluster, user and context kubeloom; writeKubeconfig writes it with mode 0600', async () => {
  const s = await startApiServer();
  const dir = await mkdtemp(join(tmpdir(), 'kubeloom-kc-'));
  try {
    const kc: Json = parseYaml(s.kubeconfig);
    assert.equal(kc['current-context'], 'kubeloom');
    assert.deepEqual(kc.clusters, [{ name: 'kubeloom', cluster: { server: s.url } }]);
    assert.deepEqual(kc.contexts[0], { name: 'kubeloom', context: { cluster: 'kubeloom', user: 'kubeloom', namespace: 'default' } });
    assert.match(s.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const path = join(dir, 'config');
    await s.writeKubeconfig(path);
    assert.equal(await readFile(path, 'utf8'), s.kubeconfig);
    assert.equal((await stat(path)).mode & 0o777, 0o600);
  } finally {
    await s.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

test('TLS: a self-signed certificate for 127.0.0.1 whose CA is in the kubeconfig', async () => {
  const s = await startApiServer({ tls: true });
  try {
    assert.match(s.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(s.caCertPem?.startsWith('-----BEGIN CERTIFICATE-----'));
    const kc: Json = parseYaml(s.kubeconfig);
    const ca = Buffer.from(kc.clusters[0].cluster['certificate-authority-data'], 'base64').toString();
    assert.equal(ca, s.caCertPem);
    const body = await new Promise<string>((resolve, reject) => {
      const req = request(`${s.url}/api/v1/namespaces/default`, { ca }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(JSON.parse(body).metadata.name, 'default');
    // Without the CA the certificate is not trusted.
    await assert.rejects(
      new Promise((resolve, reject) => {
        const req = request(`${s.url}/version`, {}, resolve);
        req.on('error', reject);
        req.end();
      }),
      /self-signed|self signed|unable to verify/,
    );
  } finally {
    await s.stop();
  }
});

test('stop closes open watches and the listener', async () => {
  const s = await startApiServer();
  const res = await fetch(`${s.url}/api/v1/namespaces?watch=true`);
  const reader = res.body!.getReader();
  await reader.read();
  await s.stop();
  // The watch ends (by error: the connection is destroyed) instead of hanging.
  let outcome = 'data';
  while (outcome === 'data') outcome = await reader.read().then((r) => (r.done ? 'ended' : 'data'), () => 'destroyed');
  assert.equal(outcome, 'destroyed');
  await assert.rejects(fetch(`${s.url}/version`));
});
