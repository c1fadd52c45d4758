import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../src/util/clock/index.ts';
import { startApiServer, type ApiServer, type ApiServerOptions } from '../src/testing/index.ts';
import { call, create, configMap, watch, pod } from './apiserver-helpers.ts';

async function withServer(fn: (s: ApiServer) => Promise<void>, options: ApiServerOptions = {}): Promise<void> {
  const s = await startApiServer(options);
  try {
    await fn(s);
  } finally {
    await s.stop();
  }
}

const cms = '/api/v1/namespaces/default/configmaps';

test('failNext fails the next N matching requests with a proper Status; 429 carries Retry-After', async () => {
  await withServer(async (s) => {
    s.faults.failNext({ verb: 'list', resource: 'configmaps', count: 2, status: 429, retryAfterSeconds: 3 });
    // Other verbs and resources are unaffected.
    assert.equal((await call(s, 'GET', '/api/v1/namespaces/default/pods')).status, 200);
    assert.equal((await call(s, 'POST', cms, { body: configMap('a') })).status, 201);
    for (let i = 0; i < 2; i++) {
      const r = await call(s, 'GET', cms);
      assert.equal(r.status, 429);
      assert.equal(r.headers.get('retry-after'), '3');
      assert.equal(r.body.kind, 'Status');
      assert.equal(r.body.reason, 'TooManyRequests');
      assert.equal(r.body.details.retryAfterSeconds, 3);
    }
    assert.equal((await call(s, 'GET', cms)).status, 200);
  });
});

test('failNext maps status codes to kube-apiserver reasons', async () => {
  await withServer(async (s) => {
    const cases: Array<[number, string]> = [
      [500, 'InternalError'],
      [503, 'ServiceUnavailable'],
      [504, 'Timeout'],
      [429, 'TooManyRequests'],
    ];
    for (const [status, reason] of cases) {
      s.faults.failNext({ status, message: `boom ${status}` });
      const r = await call(s, 'GET', cms);
      assert.deepEqual([r.status, r.body.reason, r.body.message, r.body.code], [status, reason, `boom ${status}`, status]);
    }
    assert.equal((await call(s, 'GET', cms)).status, 200);
  });
});

test('failNext on watch fails the watch request itself', async () => {
  await withServer(async (s) => {
    s.faults.failNext({ verb: 'watch', status: 500 });
    assert.equal((await call(s, 'GET', `${cms}?watch=true`)).status, 500);
    assert.equal((await call(s, 'GET', cms)).status, 200);
  });
});

test('reset clears pending rules', async () => {
  await withServer(async (s) => {
    s.faults.failNext({ status: 503, count: 5 });
    s.faults.reset();
    assert.equal((await call(s, 'GET', cms)).status, 200);
  });
});

test('delay holds matching requests for the given time on the server clock', async () => {
  const clock = new FakeClock();
  await withServer(
    async (s) => {
      s.faults.delay({ ms: 10_000, verb: 'get', resource: 'namespaces' });
      let done = false;
      const pending = call(s, 'GET', '/api/v1/namespaces/default').then((r) => {
        done = true;
        return r;
      });
      await clock.waitForWaiters(1);
      // Other requests pass meanwhile.
      assert.equal((await call(s, 'GET', cms)).status, 200);
      assert.equal(done, false);
      await clock.step(10_000);
      assert.equal((await pending).status, 200);
      assert.equal(clock.hasWaiters(), false);
    },
    { clock },
  );
});

test('closeWatches ends open watches of a resource cleanly, others stay open', async () => {
  await withServer(async (s) => {
    const a = await watch(s, `${cms}?watch=true&resourceVersion=${s.revision()}`);
    const p = await watch(s, `/api/v1/namespaces/default/pods?watch=true&resourceVersion=${s.revision()}`);
    await create(s, cms, configMap('x'));
    assert.equal((await a.next()).type, 'ADDED');
    s.faults.closeWatches('configmaps');
    assert.deepEqual(await a.rest(), { lines: [], error: undefined });
    await create(s, '/api/v1/namespaces/default/pods', pod('still-watched'));
    assert.equal((await p.next()).object.metadata.name, 'still-watched');
    s.faults.closeWatches();
    assert.deepEqual(await p.rest(), { lines: [], error: undefined });
  });
});

test('cutNextWatchEvent sends half an event, then destroys the connection', async () => {
  await withServer(async (s) => {
    const w = await watch(s, `${cms}?watch=true&resourceVersion=${s.revision()}`);
    s.faults.cutNextWatchEvent('configmaps');
    await create(s, cms, configMap('torn'));
    const { lines, error } = await w.rest();
    assert.ok(error !== undefined, 'the stream fails');
    assert.equal(lines.length, 1);
    assert.throws(() => JSON.parse(lines[0]!));
    assert.ok(lines[0]!.startsWith('{"type":"ADDED"'));
    // Only one event is cut: a new watch works.
    const w2 = await watch(s, `${cms}?watch=true&resourceVersion=${s.revision()}`);
    await create(s, cms, configMap('whole'));
    assert.equal((await w2.next()).object.metadata.name, 'whole');
    await w2.close();
  });
});

test('malformedNextWatchLine writes a non-JSON line into open watches, or the next one opened', async () => {
  await withServer(async (s) => {
    // With no watch open, the next watch gets it first.
    s.faults.malformedNextWatchLine('configmaps');
    const w = await watch(s, `${cms}?watch=true&resourceVersion=${s.revision()}`);
    const first = await w.nextLine();
    assert.throws(() => JSON.parse(first!));
    // With a watch open, it gets one at once; the stream goes on afterwards.
    s.faults.malformedNextWatchLine();
    const second = await w.nextLine();
    assert.throws(() => JSON.parse(second!));
    await create(s, cms, configMap('after'));
    assert.equal((await w.next()).object.metadata.name, 'after');
    await w.close();
  });
});

test('compact makes older watches 410 Expired', async () => {
  await withServer(async (s) => {
    const old = s.revision();
    await create(s, cms, configMap('a'));
    await create(s, cms, configMap('b'));
    s.faults.compact(old + 1);
    const w = await watch(s, `${cms}?watch=true&resourceVersion=${old}`);
    assert.equal((await w.next()).object.code, 410);
    const ok = await watch(s, `${cms}?watch=true&resourceVersion=${old + 1}`);
    assert.equal((await ok.next()).object.metadata.name, 'b');
    await ok.close();
  });
});

test('restart drops connections and listens again on the same port with the same data', async () => {
  await withServer(async (s) => {
    const url = s.url;
    await create(s, cms, configMap('survivor'));
    const w = await watch(s, `${cms}?watch=true&resourceVersion=${s.revision()}`);
    await s.faults.restart();
    const { error } = await w.rest();
    assert.ok(error !== undefined, 'the open watch is cut');
    assert.equal(s.url, url);
    assert.equal((await call(s, 'GET', `${cms}/survivor`)).status, 200);
  });
});
