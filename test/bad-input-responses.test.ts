/**
 * Bad input from the server: Status bodies that are not JSON, truncated or malformed lists, watch
 * lines that are not events, unknown event types and oversized objects. Each must surface as a typed
 * error (a KubeloomError with a stable code) or a documented recovery — never a crash, a hang or an
 * unhandled rejection (the suite runs with --unhandled-rejections=strict).
 * Malformed kubeconfigs are covered by src/clientcmd/bad-input.test.ts (property tests over random
 * documents and text).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { ConfigMap } from '../src/api/core/v1.ts';
import { KubeloomError, isInternalError, isNotFound, isForbidden, isRequestEntityTooLarge, isTooManyRequests, statusOf } from '../src/apimachinery/errors.ts';
import { newClientset } from '../src/kubernetes/index.ts';
import { NetworkError, ResponseDecodeError, WatchDecodeError } from '../src/rest/index.ts';
import { SharedIndexInformer, newListWatchFromClient } from '../src/tools/cache/index.ts';
import { startApiServer } from '../src/testing/index.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A scripted HTTP server on loopback; `handler` may be swapped between requests. */
async function scripted(handler: Handler): Promise<{ url: string; set: (h: Handler) => void; requests: string[]; close: () => Promise<void> }> {
  let current = handler;
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    current(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    set: (h) => (current = h),
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const send = (status: number, body: string, headers: Record<string, string> = {}): Handler => (_req, res) => {
  res.writeHead(status, headers);
  res.end(body);
};

async function errorOf(p: Promise<unknown>): Promise<KubeloomError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof KubeloomError, `a KubeloomError, got ${String(err)}`);
    assert.match(err.code, /^ERR_/);
    return err;
  }
  assert.fail('expected a rejection');
}

test('error responses whose body is not a Status become StatusErrors from the HTTP code, quoting the text', async () => {
  const cases: Array<[number, string, string, (e: unknown) => boolean, RegExp]> = [
    [500, '<html><body>upstream exploded</body></html>', 'text/html', isInternalError, /upstream exploded/],
    [404, 'page not found', 'text/plain', isNotFound, /^the server could not find the requested resource \(get configmaps x\)$/],
    [403, '', 'text/plain', isForbidden, /\(get configmaps x\)/],
    [500, '{"kind":"Status", truncated', 'application/json', isInternalError, /.+/],
    [429, '\u0000\u0001\u0002binary', 'application/octet-stream', isTooManyRequests, /.+/],
  ];
  const s = await scripted(send(200, ''));
  const cs = newClientset({ host: s.url, qps: -1 }, { maxRetries: 0 });
  try {
    for (const [code, body, type, predicate, message] of cases) {
      s.set(send(code, body, { 'content-type': type }));
      const err = await errorOf(cs.coreV1().configMaps('default').get('x'));
      assert.ok(predicate(err), `${code} ${JSON.stringify(body)} → ${err.message}`);
      assert.equal(statusOf(err)?.code, code);
      assert.match(err.message, message);
      // The text itself is kept as the UnexpectedServerResponse cause, as client-go keeps it.
      if (type.startsWith('text/')) assert.equal(statusOf(err)?.details?.causes?.[0]?.message, body.trim());
    }
  } finally {
    await cs.close();
    await s.close();
  }
});

test('a 2xx response that is not JSON, empty, or a list cut short is a typed error', async () => {
  const s = await scripted(send(200, ''));
  const cs = newClientset({ host: s.url, qps: -1 }, { maxRetries: 0 });
  const cms = cs.coreV1().configMaps('default');
  try {
    s.set(send(200, 'not json at all', { 'content-type': 'application/json' }));
    assert.ok((await errorOf(cms.get('x'))) instanceof ResponseDecodeError);
    s.set(send(200, ''));
    assert.ok((await errorOf(cms.get('x'))) instanceof ResponseDecodeError);
    // A complete response whose JSON stops in the middle of the items.
    s.set(send(200, '{"kind":"ConfigMapList","metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"a"}},{"meta', { 'content-type': 'application/json' }));
    assert.ok((await errorOf(cms.list())) instanceof ResponseDecodeError);
    // The connection drops before the announced length arrived.
    s.set((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"kind":"ConfigMapList","items":[');
      setTimeout(() => res.destroy(), 10);
    });
    assert.ok((await errorOf(cms.list())) instanceof NetworkError);
  } finally {
    await cs.close();
    await s.close();
  }
});

test('a LIST whose items is not an array is a decode error, not an empty list', async () => {
  // An empty list would make an informer delete everything it caches; client-go fails to decode it.
  const s = await scripted(send(200, '{"kind":"ConfigMapList","metadata":{"resourceVersion":"5"},"items":"oops"}', { 'content-type': 'application/json' }));
  const cs = newClientset({ host: s.url, qps: -1 }, { maxRetries: 0 });
  try {
    const err = await errorOf(cs.coreV1().configMaps('default').list());
    assert.ok(err instanceof ResponseDecodeError, err.message);
  } finally {
    await cs.close();
    await s.close();
  }
});

const added = (name: string, rv: number): string => `${JSON.stringify({ type: 'ADDED', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name, namespace: 'default', resourceVersion: String(rv) } } })}\n`;

test('watch lines that are not events raise a WatchDecodeError after the events before them', async () => {
  const bad: Array<[string, RegExp]> = [
    ['{"type":"MODIFIED","object":{this is not json\n', /malformed watch event/],
    ['{"type":"RESIZED","object":{"metadata":{"name":"x"}}}\n', /unknown type "RESIZED"/],
    ['{"type":"ADDED","object":null}\n', /carries no object/],
    ['[1,2,3]\n', /unknown type|not an event/],
    ['"just a string"\n', /not an event object/],
    ['\u00ff\u00fe garbage\n', /malformed/],
  ];
  const s = await scripted(send(200, ''));
  const cs = newClientset({ host: s.url, qps: -1 });
  try {
    for (const [line, message] of bad) {
      s.set((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(added('a', 1));
        res.write(line);
        res.write(added('b', 2));
      });
      const names: string[] = [];
      const w = await cs.coreV1().configMaps('default').watch({ resourceVersion: '0' });
      const err = await errorOf(
        (async () => {
          for await (const e of w) names.push((e.object as ConfigMap).metadata?.name ?? '');
        })(),
      );
      assert.ok(err instanceof WatchDecodeError, err.message);
      assert.match(err.message, message);
      assert.deepEqual(names, ['a'], 'events before the bad line are delivered; nothing after it is guessed');
    }
  } finally {
    await cs.close();
    await s.close();
  }
});

test('an informer meeting a malformed watch line resumes from the last good resourceVersion', async () => {
  const s = await scripted(send(200, ''));
  let watches = 0;
  s.set((req, res) => {
    const url = new URL(req.url ?? '', 'http://x');
    res.writeHead(200, { 'content-type': 'application/json' });
    if (url.searchParams.get('watch') !== 'true') {
      res.end(JSON.stringify({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '10' }, items: [{ metadata: { name: 'a', namespace: 'default', resourceVersion: '10' } }] }));
      return;
    }
    watches++;
    if (watches === 1) {
      res.write(added('b', 11));
      res.end('{"type":"ADDED","object":{broken\n');
    } else {
      res.write(added('c', 12));
    }
  });
  const cs = newClientset({ host: s.url, qps: -1 });
  const informer = new SharedIndexInformer<ConfigMap>(newListWatchFromClient(cs.coreV1().configMaps('default')), {
    reflector: { useWatchList: false, backoffManager: { nextDelay: () => 10 } },
  });
  const errors: unknown[] = [];
  informer.setWatchErrorHandler((_r, e) => void errors.push(e));
  const stop = new AbortController();
  const running = informer.run({ signal: stop.signal });
  try {
    const deadline = performance.now() + 10_000;
    while (informer.getStore().listKeys().length < 3 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(informer.getStore().listKeys().sort(), ['default/a', 'default/b', 'default/c']);
    const watchUrls = s.requests.filter((r) => r.includes('watch=true'));
    assert.match(watchUrls[1] ?? '', /resourceVersion=11\b/, 'the second watch resumes after the last event decoded');
    assert.equal(s.requests.filter((r) => !r.includes('watch=true')).length, 1, 'no relist');
  } finally {
    stop.abort();
    await running;
    await cs.close();
    await s.close();
  }
});

test('oversized objects: the embedded server refuses bodies over 3 MiB with 413; large objects within the limit round-trip', async () => {
  const server = await startApiServer();
  const cs = newClientset({ host: server.url, qps: -1 });
  try {
    const big = 'x'.repeat(3 * 1024 * 1024 + 1);
    const err = await errorOf(cs.coreV1().configMaps('default').create({ metadata: { name: 'huge' }, data: { big } }));
    assert.ok(isRequestEntityTooLarge(err), err.message);
    const ok = 'y'.repeat(2 * 1024 * 1024);
    await cs.coreV1().configMaps('default').create({ metadata: { name: 'large' }, data: { ok } });
    const w = await cs.coreV1().configMaps('default').watch({ resourceVersion: '0' });
    for await (const e of w) {
      assert.equal((e.object as ConfigMap).data?.['ok']?.length, ok.length);
      break;
    }
  } finally {
    await cs.close();
    await server.stop();
  }
});
