/**
 * The embedded server's HTTP connection handling, as kube-apiserver's http.Server
 * (k8s.io/apiserver pkg/server/secure_serving.go).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { startApiServer } from './server.ts';

test('an idle keep-alive connection is kept 90 s as kube-apiserver keeps it, not Node’s 5 s (Go clients reuse it for POSTs)', async () => {
  const server = await startApiServer();
  const agent = new Agent({ keepAlive: true });
  try {
    const headers = await new Promise<Record<string, unknown>>((resolve, reject) => {
      const req = request(`${server.url}/api/v1/namespaces/default`, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.headers));
      });
      req.on('error', reject);
      req.end();
    });
    // Node announces its idle timeout on every keep-alive answer.
    assert.equal(headers['keep-alive'], 'timeout=90');
  } finally {
    agent.destroy();
    await server.stop();
  }
});
