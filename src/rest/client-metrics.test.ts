import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { FakeClock } from '../util/clock/clock.ts';
import { RestClient, type RateLimiterObservation, type RequestObservation } from './client.ts';
import { buildCreate, buildGet } from './request.ts';

async function serve(handler: http.RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => handler(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const loc = (name: string) => ({ group: '', version: 'v1', namespace: 'ns', resource: 'configmaps', name });
const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' } };
const quiet = { handleWarning: () => undefined };

test('RestClient reports request and response sizes as client-go does: body bytes (0 without one), Content-Length unless chunked or compressed', async (t) => {
  const payload = JSON.stringify(cm);
  const s = await serve((req, res) => {
    if (req.url!.endsWith('/plain')) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) });
      res.end(payload);
    } else if (req.url!.endsWith('/gzip')) {
      const z = gzipSync(payload);
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(z.length) });
      res.end(z);
    } else if (req.url!.endsWith('/chunked')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(payload.slice(0, 5));
      res.end(payload.slice(5));
    } else {
      res.writeHead(201, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) });
      res.end(payload);
    }
  });
  t.after(() => s.close());
  const c = new RestClient({ host: s.url, qps: -1 }, { warningHandler: quiet });
  t.after(() => c.close());
  const seen: RequestObservation[] = [];
  c.observeRequests((o) => seen.push(o));
  await c.json(buildGet(loc('plain')));
  await c.json(buildGet(loc('gzip')));
  await c.json(buildGet(loc('chunked')));
  const create = buildCreate({ group: '', version: 'v1', namespace: 'ns', resource: 'configmaps' }, cm);
  await c.json(create);
  assert.deepEqual(
    seen.map((o) => [o.method, o.code, o.requestBytes, o.responseBytes]),
    [
      ['GET', '200', 0, Buffer.byteLength(payload)],
      ['GET', '200', 0, undefined],
      ['GET', '200', 0, undefined],
      ['POST', '201', Buffer.byteLength(create.body as string), Buffer.byteLength(payload)],
    ],
  );
  assert.equal(seen[0]!.host, new URL(s.url).host);
});

test('RestClient reports each wait for its rate limiter with the verb and host; a client without a limiter reports none', async (t) => {
  const s = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(cm));
  });
  t.after(() => s.close());
  const clock = new FakeClock();
  // 1 QPS, burst 1: the first request takes the token, the second waits a second for the next.
  const c = new RestClient({ host: s.url, qps: 1, burst: 1 }, { clock, warningHandler: quiet });
  t.after(() => c.close());
  const waits: RateLimiterObservation[] = [];
  c.observeRateLimiter((o) => waits.push(o));
  await c.json(buildGet(loc('a')));
  const second = c.json(buildGet(loc('b')));
  while (clock.nextTimerIn() === undefined) await new Promise((r) => setImmediate(r));
  await clock.step(1000);
  await second;
  assert.deepEqual(
    waits.map((w) => [w.verb, w.host, w.seconds]),
    [
      ['GET', new URL(s.url).host, 0],
      ['GET', new URL(s.url).host, 1],
    ],
  );
  const unlimited = new RestClient({ host: s.url, qps: -1 }, { warningHandler: quiet });
  t.after(() => unlimited.close());
  const none: RateLimiterObservation[] = [];
  unlimited.observeRateLimiter((o) => none.push(o));
  await unlimited.json(buildGet(loc('a')));
  assert.deepEqual(none, []);
});

test('a client derived with withConfig reports to the observers of the client it came from, added before or after, not the other way round', async (t) => {
  const s = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(cm));
  });
  t.after(() => s.close());
  const parent = new RestClient({ host: s.url, qps: -1 }, { warningHandler: quiet });
  t.after(() => parent.close());
  const log: string[] = [];
  parent.observeRequests((o) => log.push(`parent ${o.method}`));
  const child = parent.withConfig({ qps: 100, burst: 10, userAgent: 'derived' });
  const grandchild = child.withConfig({ userAgent: 'derived-again' });
  parent.observeRateLimiter((o) => log.push(`parent limiter ${o.verb}`));
  child.observeRequests((o) => log.push(`child ${o.method}`));
  await grandchild.json(buildGet(loc('a')));
  await child.json(buildGet(loc('a')));
  await parent.json(buildGet(loc('a')));
  assert.deepEqual(log, ['parent limiter GET', 'parent GET', 'child GET', 'parent limiter GET', 'parent GET', 'child GET', 'parent GET']);
});
