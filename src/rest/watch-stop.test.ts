/**
 * WatchStream.stop() is safe at any time, in any state, any number of times: it never throws, never
 * leaves an 'error' event without a listener, ends a pending iteration, and releases the link to the
 * caller's signal.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { getEventListeners } from 'node:events';
import { gzipSync } from 'node:zlib';
import { FakeClock } from '../util/clock/clock.ts';
import { RestClient, type WatchStream } from './client.ts';
import { buildWatch } from './request.ts';

const added = (name: string): string => `${JSON.stringify({ type: 'ADDED', object: { apiVersion: 'v1', kind: 'Pod', metadata: { name } } })}\n`;

/** A server whose watch answers follow `script`; returns its URL and a closer. */
async function serve(script: (res: http.ServerResponse) => void): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((_req, res) => script(res));
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

const loc = { group: '', version: 'v1', resource: 'pods' };

/** Lets the socket deliver what the server wrote (the client reads in the background). */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

async function drain(w: WatchStream<unknown>): Promise<string[]> {
  const types: string[] = [];
  for await (const e of w) types.push(e.type);
  return types;
}

async function withClient(script: (res: http.ServerResponse) => void, body: (c: RestClient) => Promise<void>): Promise<void> {
  const s = await serve(script);
  const c = new RestClient({ host: s.url, qps: -1 }, { clock: new FakeClock() });
  try {
    await body(c);
  } finally {
    await c.close();
    await s.close();
  }
}

const openEnded = (res: http.ServerResponse): void => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write(added('a'));
};

test('stop() before iterating an open watch: iteration then ends at once and the signal link is released', async () => {
  await withClient(openEnded, async (c) => {
    const controller = new AbortController();
    const w = await c.watch(buildWatch(loc), { signal: controller.signal });
    w.stop();
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
    assert.deepEqual(await drain(w), []);
  });
});

test('stop() after the server ended the response, before iterating, does not crash the process', async () => {
  await withClient(
    (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(added('a'));
    },
    async (c) => {
      const w = await c.watch(buildWatch(loc));
      await settle();
      w.stop();
      await settle();
      assert.deepEqual(await drain(w), []);
    },
  );
});

test('stop() after a gzip-encoded response ended, before iterating, does not crash the process', async () => {
  await withClient(
    (res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(added('a')));
    },
    async (c) => {
      const w = await c.watch(buildWatch(loc));
      await settle();
      w.stop();
      await settle();
      assert.deepEqual(await drain(w), []);
    },
  );
});

test('stop() while a next() is pending ends that iteration cleanly', async () => {
  await withClient(openEnded, async (c) => {
    const w = await c.watch(buildWatch(loc));
    const it = w[Symbol.asyncIterator]();
    assert.equal((await it.next()).done, false);
    const pending = it.next();
    await settle();
    w.stop();
    assert.deepEqual(await pending, { done: true, value: undefined });
  });
});

test('stop() after iteration completed, after it failed, and twice is a no-op', async () => {
  await withClient(
    (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`${added('a')}{"type":"ADD`);
      setImmediate(() => res.socket?.destroy());
    },
    async (c) => {
      const failing = await c.watch(buildWatch(loc));
      await assert.rejects(drain(failing));
      failing.stop();
      failing.stop();
    },
  );
  await withClient(
    (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(added('a'));
    },
    async (c) => {
      const ended = await c.watch(buildWatch(loc));
      assert.deepEqual(await drain(ended), ['ADDED']);
      ended.stop();
      ended.stop();
    },
  );
});

test('concurrent stop() calls with a pending next() all return; the signal link is released', async () => {
  await withClient(openEnded, async (c) => {
    const controller = new AbortController();
    const w = await c.watch(buildWatch(loc), { signal: controller.signal });
    assert.equal(getEventListeners(controller.signal, 'abort').length, 1);
    const it = w[Symbol.asyncIterator]();
    const first = it.next();
    await Promise.all([Promise.resolve().then(() => w.stop()), Promise.resolve().then(() => w.stop())]);
    w.stop();
    const r = await first;
    // The event already received may be handed out; the one after it is the end.
    if (r.done !== true) assert.equal((await it.next()).done, true);
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
    controller.abort();
    w.stop();
  });
});

test('stop() after the caller aborted the watch is a no-op', async () => {
  await withClient(openEnded, async (c) => {
    const controller = new AbortController();
    const reason = new Error('done');
    const w = await c.watch(buildWatch(loc), { signal: controller.signal });
    controller.abort(reason);
    await settle();
    await assert.rejects(drain(w), (e) => e === reason);
    w.stop();
    w.stop();
    const later = await c.watch(buildWatch(loc), { signal: controller.signal }).catch((e: unknown) => e);
    assert.equal(later, reason);
  });
});
