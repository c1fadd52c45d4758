import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { startApiServer } from '../testing/index.ts';
import { loadKubeConfig, namespaceOf, parseKubeConfig, restConfigFrom } from './index.ts';

// A server started with a token serves TLS by default, so that its kubeconfig's token is used: clientcmd
// applies a kubeconfig's credentials only to https servers (client_config.go ClientConfig).
test("the embedded API server's kubeconfig (a token implies HTTPS) loads to a RestConfig pointing at it with its token and CA", async () => {
  const server = await startApiServer({ token: 'integration-token' });
  const dir = await mkdtemp(path.join(tmpdir(), 'kubeloom-it-'));
  try {
    const file = path.join(dir, 'kubeconfig');
    await server.writeKubeconfig(file);
    const config = await loadKubeConfig({ env: { KUBECONFIG: file }, homeDir: dir });
    const rest = await restConfigFrom(config);
    assert.match(server.url, /^https:/);
    assert.equal(rest.host, server.url);
    assert.equal(rest.bearerToken, 'integration-token');
    assert.equal(namespaceOf(config), 'default');
    assert.equal(rest.tls?.caData, server.caCertPem);
    // The CA from the kubeconfig verifies the server's certificate.
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${rest.host}/version`, { ca: rest.tls?.caData, headers: { authorization: `Bearer ${rest.bearerToken}` } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(status, 200);
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

test("an HTTP embedded server's kubeconfig with a token (tls: false) gives a RestConfig without it, as kubectl", async () => {
  const server = await startApiServer({ token: 'integration-token', tls: false });
  try {
    const rest = await restConfigFrom(parseKubeConfig(server.kubeconfig));
    assert.match(server.url, /^http:/);
    assert.equal(rest.host, server.url);
    assert.equal(rest.bearerToken, undefined);
    assert.equal(rest.tls, undefined);
  } finally {
    await server.stop();
  }
});
