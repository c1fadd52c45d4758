/**
 * Which timeout each client tells the server, after client-go: a typed List, Watch and
 * DeleteCollection call `Timeout(timeout)` with their `timeoutSeconds`, 0 when unset
 * (gentype/type.go), which replaces the config's timeout in the `timeout` query parameter
 * (rest/request.go: NewRequest starts r.timeout at c.Client.Timeout, URL() sends it when != 0); a
 * Get carries the config's timeout; the dynamic client never calls Timeout (dynamic/simple.go); the
 * metadata client only for Watch (metadata/metadata.go).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { newClientset } from './clientset.ts';
import { DynamicClient } from '../dynamic/dynamic-client.ts';
import { MetadataClient } from '../metadata/metadata-client.ts';
import { RequestTimeoutError } from '../rest/errors.ts';
import { FakeClock } from '../util/clock/clock.ts';

async function serve(handler: http.RequestListener): Promise<{ host: string; urls: string[]; close: () => Promise<void> }> {
  const urls: string[] = [];
  const server = http.createServer((req, res) => {
    urls.push(`${req.method} ${req.url ?? ''}`);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    host: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    urls,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function answer(req: http.IncomingMessage, res: http.ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  if (req.url!.includes('watch=true')) return void res.end();
  if (req.method === 'DELETE') return void res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Success' }));
  if (req.url!.includes('/pods/')) return void res.end(JSON.stringify({ kind: 'Pod', apiVersion: 'v1', metadata: { name: 'a', namespace: 'default' } }));
  res.end(JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] }));
}

test('typed List passes timeoutSeconds as its request timeout; dynamic List does not', async () => {
  const s = await serve(answer);
  const cs = newClientset({ host: s.host, qps: -1 });
  const dyn = new DynamicClient({ host: s.host, qps: -1 });
  try {
    await cs.coreV1().pods('default').list({ timeoutSeconds: 30 });
    await cs.coreV1().pods('default').list({ timeoutSeconds: 30, timeoutMs: 5000 });
    await cs.coreV1().pods('default').list();
    await dyn.resource({ group: '', version: 'v1', resource: 'pods' }).namespace('default').list({ timeoutSeconds: 30 });
    assert.deepEqual(s.urls, [
      'GET /api/v1/namespaces/default/pods?timeout=30s&timeoutSeconds=30',
      'GET /api/v1/namespaces/default/pods?timeout=5s&timeoutSeconds=30',
      'GET /api/v1/namespaces/default/pods',
      'GET /api/v1/namespaces/default/pods?timeoutSeconds=30',
    ]);
  } finally {
    await Promise.all([cs.close(), dyn.rest.close()]);
    await s.close();
  }
});

test("with a config timeout, a typed List, Watch and DeleteCollection without timeoutSeconds send no timeout (Timeout(0)); Get and the dynamic and metadata Lists send the config's", async () => {
  const s = await serve(answer);
  const config = { host: s.host, qps: -1, timeoutMs: 10_000 };
  const cs = newClientset(config);
  const dyn = new DynamicClient(config);
  const meta = new MetadataClient(config);
  const pods = { group: '', version: 'v1', resource: 'pods' };
  try {
    const typed = cs.coreV1().pods('default');
    await typed.list();
    await typed.list({ timeoutSeconds: 30 });
    await typed.get('a');
    for await (const _ of await typed.watch({ resourceVersion: '1' })) break;
    for await (const _ of await typed.watch({ resourceVersion: '1', timeoutSeconds: 456 })) break;
    await typed.deleteCollection();
    await typed.deleteCollection({}, { timeoutSeconds: 20 });
    await dyn.resource(pods).namespace('default').list();
    await dyn.resource(pods).namespace('default').deleteCollection();
    for await (const _ of await dyn.resource(pods).namespace('default').watch({ timeoutSeconds: 456 })) break;
    await meta.resource(pods).namespace('default').list({ timeoutSeconds: 30 });
    for await (const _ of await meta.resource(pods).namespace('default').watch({ timeoutSeconds: 456 })) break;
    assert.deepEqual(s.urls, [
      'GET /api/v1/namespaces/default/pods',
      'GET /api/v1/namespaces/default/pods?timeout=30s&timeoutSeconds=30',
      'GET /api/v1/namespaces/default/pods/a?timeout=10s',
      'GET /api/v1/namespaces/default/pods?resourceVersion=1&watch=true',
      'GET /api/v1/namespaces/default/pods?resourceVersion=1&timeout=7m36s&timeoutSeconds=456&watch=true',
      'DELETE /api/v1/namespaces/default/pods',
      'DELETE /api/v1/namespaces/default/pods?timeout=20s&timeoutSeconds=20',
      'GET /api/v1/namespaces/default/pods?timeout=10s',
      'DELETE /api/v1/namespaces/default/pods?timeout=10s',
      // kubeloom never applies nor sends the config's timeout on a watch (upstream: timeout=10s, and
      // the http.Client's Timeout ends the watch after 10 s).
      'GET /api/v1/namespaces/default/pods?timeoutSeconds=456&watch=true',
      'GET /api/v1/namespaces/default/pods?timeout=10s&timeoutSeconds=30',
      'GET /api/v1/namespaces/default/pods?timeout=7m36s&timeoutSeconds=456&watch=true',
    ]);
  } finally {
    await Promise.all([cs.close(), dyn.rest.close(), meta.rest.close()]);
    await s.close();
  }
});

test("the config's timeout still bounds a typed List client-side, also when its own timeoutSeconds is longer (the http.Client's Timeout)", async () => {
  const s = await serve(() => undefined);
  const clock = new FakeClock(0);
  const cs = newClientset({ host: s.host, qps: -1, timeoutMs: 10_000 }, { clock });
  try {
    for (const options of [{}, { timeoutSeconds: 60 }]) {
      const pending = cs.coreV1().pods('default').list(options).catch((e: unknown) => e);
      await clock.waitForWaiters(1);
      await clock.step(10_000);
      // Past any later deadline too, so a wrong one fails the assertion below instead of hanging.
      await clock.step(50_000);
      const err = await pending;
      assert.ok(err instanceof RequestTimeoutError, String(err));
      assert.equal(err.timeoutMs, 10_000);
    }
    // A timeoutSeconds shorter than the config's timeout ends the List first (context.WithTimeout).
    const pending = cs.coreV1().pods('default').list({ timeoutSeconds: 3 }).catch((e: unknown) => e);
    await clock.waitForWaiters(1);
    await clock.step(3_000);
    const err = await pending;
    assert.ok(err instanceof RequestTimeoutError);
    assert.equal(err.timeoutMs, 3_000);
  } finally {
    await cs.close();
    await s.close();
  }
});
