import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { constants, createGzip } from 'node:zlib';
import { FakeClock } from '../util/clock/clock.ts';
import { StatusError, isInternalError } from '../apimachinery/errors.ts';
import { RestClient } from './client.ts';
import { NetworkError, RequestTimeoutError, ResponseDecodeError } from './errors.ts';
import { buildList } from './request.ts';

interface Item {
  metadata: { name: string };
}

async function serve(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<{ url: string; closed: Promise<void>; close(): Promise<void> }> {
  let socketClosed!: () => void;
  const closed = new Promise<void>((r) => (socketClosed = r));
  const server = http.createServer(handler);
  server.on('connection', (socket) => socket.on('close', () => socketClosed()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    closed,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const clientFor = (url: string, clock = new FakeClock()): RestClient => new RestClient({ host: url, qps: -1 }, { clock, warningHandler: { handleWarning: () => undefined } });
const listReq = buildList({ group: '', version: 'v1', namespace: 'ns', resource: 'pods' });
const item = (name: string): string => JSON.stringify({ metadata: { name } });
const names = (batches: Item[][]): string[][] => batches.map((b) => b.map((i) => i.metadata.name));

test('RestClient.list hands over the items of each chunk while the rest of the body is still to come', async () => {
  let firstBatch!: () => void;
  const seen = new Promise<void>((r) => (firstBatch = r));
  const s = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[${item('a')},${item('b')},`);
    // The end of the body is only written once the client has handed over a and b.
    void seen.then(() => res.end(`${item('c')}]}\n`));
  });
  const c = clientFor(s.url);
  try {
    const batches: Item[][] = [];
    const envelope = await c.list<Item>(listReq, (items, members) => {
      batches.push(items);
      assert.equal(members.kind, 'PodList');
      firstBatch();
    });
    assert.deepEqual(names(batches), [['a', 'b'], ['c']]);
    assert.deepEqual(envelope, { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '9' } });
  } finally {
    await c.close();
    await s.close();
  }
});

test('a gzip-encoded list is decoded as its compressed chunks arrive', async () => {
  let firstBatch!: () => void;
  const seen = new Promise<void>((r) => (firstBatch = r));
  const s = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    const gzip = createGzip();
    gzip.pipe(res);
    gzip.write(`{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[${item('a')},`);
    gzip.flush(constants.Z_SYNC_FLUSH);
    void seen.then(() => gzip.end(`${item('b')}]}`));
  });
  const c = clientFor(s.url);
  try {
    const batches: Item[][] = [];
    await c.list<Item>(listReq, (items) => {
      batches.push(items);
      firstBatch();
    });
    assert.deepEqual(names(batches), [['a'], ['b']]);
  } finally {
    await c.close();
    await s.close();
  }
});

test('reading pauses while onItems settles; an onItems failure abandons the request, surfaces unchanged and closes the connection', async () => {
  const s = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(`{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[${item('a')},`);
    // Never ends: only the client can finish this exchange.
  });
  const c = clientFor(s.url);
  try {
    const failure = new Error('handler failed');
    let calls = 0;
    await assert.rejects(
      c.list<Item>(listReq, async () => {
        calls++;
        await new Promise((r) => setImmediate(r));
        throw failure;
      }),
      (err) => err === failure,
    );
    assert.equal(calls, 1);
    await s.closed;
  } finally {
    await c.close();
    await s.close();
  }
});

test('a list cut by the connection is a NetworkError; a malformed one a ResponseDecodeError naming the request', async () => {
  const s = await serve((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.url!.includes('cut')) {
      res.write(`{"kind":"PodList","items":[${item('a')},{"meta`);
      setImmediate(() => res.destroy());
    } else res.end(`{"kind":"PodList","items":[${item('a')} ${item('b')}]}`);
  });
  const c = clientFor(s.url);
  try {
    const got: Item[] = [];
    await assert.rejects(
      c.list<Item>(buildList({ group: '', version: 'v1', namespace: 'cut', resource: 'pods' }), (items) => void got.push(...items)),
      (err) => err instanceof NetworkError,
    );
    // Item a was handed over: its separator had arrived.
    assert.deepEqual(got.map((i) => i.metadata.name), ['a']);
    await assert.rejects(c.list<Item>(listReq, () => undefined), (err) => {
      assert.ok(err instanceof ResponseDecodeError);
      assert.match(err.message, /^GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/namespaces\/ns\/pods: expected ',' or '\]' after item 1/);
      return true;
    });
  } finally {
    await c.close();
    await s.close();
  }
});

test('an error Status in a 200 list body is raised as its StatusError', async () => {
  const s = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'storage is unavailable', reason: 'InternalError', code: 500 }));
  });
  const c = clientFor(s.url);
  try {
    await assert.rejects(c.list(listReq, () => undefined), (err) => err instanceof StatusError && isInternalError(err) && err.message === 'storage is unavailable');
  } finally {
    await c.close();
    await s.close();
  }
});

test('the request timeout covers reading the list body', async () => {
  const clock = new FakeClock();
  const s = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(`{"kind":"PodList","items":[${item('a')},`);
  });
  const c = clientFor(s.url, clock);
  try {
    const items: Item[] = [];
    const listing = c.list<Item>(
      listReq,
      (batch) => {
        items.push(...batch);
        void clock.step(5000);
      },
      { timeoutMs: 5000 },
    );
    await assert.rejects(listing, (err) => err instanceof RequestTimeoutError);
    assert.deepEqual(items.map((i) => i.metadata.name), ['a']);
  } finally {
    await c.close();
    await s.close();
  }
});

test('disableCompression: no gzip is asked for, and the plain list decodes the same', async () => {
  const encodings: Array<string | undefined> = [];
  const s = await serve((req, res) => {
    encodings.push(req.headers['accept-encoding']);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(`{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[${item('a')}]}`);
  });
  const plain = new RestClient({ host: s.url, qps: -1, disableCompression: true }, { warningHandler: { handleWarning: () => undefined } });
  const gzip = clientFor(s.url);
  try {
    for (const c of [plain, gzip]) {
      const got: Item[] = [];
      await c.list<Item>(listReq, (items) => void got.push(...items));
      assert.deepEqual(got.map((i) => i.metadata.name), ['a']);
    }
    assert.deepEqual(encodings, [undefined, 'gzip']);
  } finally {
    await plain.close();
    await gzip.close();
    await s.close();
  }
});
