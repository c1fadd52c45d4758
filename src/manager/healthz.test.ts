import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveChecks, type Checker } from './healthz.ts';

async function serve(t: import('node:test').TestContext, prefix: string, checks: Map<string, Checker>): Promise<(path: string) => Promise<[number, string]>> {
  const server = createServer((req, res) => {
    void serveChecks(prefix, checks, req, res).then((handled) => {
      if (!handled) res.end('unhandled');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => server.close(() => r())));
  const { port } = server.address() as AddressInfo;
  return async (path) => {
    const r = await fetch(`http://127.0.0.1:${port}${path}`);
    return [r.status, await r.text()];
  };
}

test("health endpoints answer with controller-runtime's words on /readyz too, warn about unknown excludes, and default to ping", async (t) => {
  let ready = true;
  const get = await serve(t, '/readyz', new Map<string, Checker>([['informers', () => (ready ? undefined : new Error('not synced'))], ['webhook', () => undefined]]));
  assert.deepEqual(await get('/readyz'), [200, 'ok']);
  assert.deepEqual(await get('/readyz?verbose'), [200, '[+]informers ok\n[+]webhook ok\nhealthz check passed\n']);
  assert.deepEqual(await get('/readyz?verbose&exclude=webhook&exclude=nope'), [200, '[+]informers ok\n[+]webhook excluded: ok\nwarn: some health checks cannot be excluded: no matches for "nope"\nhealthz check passed\n']);
  ready = false;
  assert.deepEqual(await get('/readyz'), [500, '[-]informers failed: reason withheld\n[+]webhook ok\nhealthz check failed\n']);
  assert.deepEqual(await get('/readyz/informers'), [500, 'internal server error: not synced\n']);
  const empty = await serve(t, '/healthz', new Map());
  assert.deepEqual(await empty('/healthz?verbose'), [200, '[+]ping ok\nhealthz check passed\n']);
  assert.deepEqual(await empty('/healthz/ping'), [200, 'ok']);
});
