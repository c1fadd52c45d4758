import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { startApiServer } from '../testing/index.ts';
import { loadKubeConfig, namespaceOf, restConfigFrom } from './index.ts';

for (const tls of [false, true]) {
  test(`the embedded API server's kubeconfig (${tls ? 'HTTPS' : 'HTTP'}) loads to a RestConfig pointing at it with its token`, async () => {
    const server = await startApiServer({ token: 'integration-token', tls });
    const dir = await mkdtemp(path.join(tmpdir(), 'kubeloom-it-'));
    try {
      const file = path.join(dir, 'kubeconfig');
      await server.writeKubeconfig(file);
      const config = await loadKubeConfig({ env: { KUBECONFIG: file }, homeDir: dir });
      const rest = await restConfigFrom(config);
      assert.equal(rest.host, server.url);
      assert.equal(rest.bearerToken, 'integration-token');
      assert.equal(namespaceOf(config), 'default');
      assert.equal(rest.tls?.caData, server.caCertPem);
      if (tls) {
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
      }
    } finally {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
}
