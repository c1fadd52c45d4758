/**
 * gentype's typed List sends `timeoutSeconds` also as the request timeout (`Timeout(timeout)`, so the
 * `timeout` query parameter too); the dynamic client's List does not (dynamic/simple.go).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { newClientset } from './clientset.ts';
import { DynamicClient } from '../dynamic/dynamic-client.ts';

test('typed List passes timeoutSeconds as its request timeout; dynamic List does not', async () => {
  const urls: string[] = [];
  const server = http.createServer((req, res) => {
    urls.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const host = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const cs = newClientset({ host, qps: -1 });
  const dyn = new DynamicClient({ host, qps: -1 });
  try {
    await cs.coreV1().pods('default').list({ timeoutSeconds: 30 });
    await cs.coreV1().pods('default').list({ timeoutSeconds: 30, timeoutMs: 5000 });
    await cs.coreV1().pods('default').list();
    await dyn.resource({ group: '', version: 'v1', resource: 'pods' }).namespace('default').list({ timeoutSeconds: 30 });
    assert.deepEqual(urls, [
      '/api/v1/namespaces/default/pods?timeout=30s&timeoutSeconds=30',
      '/api/v1/namespaces/default/pods?timeout=5s&timeoutSeconds=30',
      '/api/v1/namespaces/default/pods',
      '/api/v1/namespaces/default/pods?timeoutSeconds=30',
    ]);
  } finally {
    await Promise.all([cs.close(), dyn.rest.close()]);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
