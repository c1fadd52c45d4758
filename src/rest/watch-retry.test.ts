/**
 * rest/request.go Watch: a connection dropped before the answer is retried as for any GET, and once
 * the retries are used up the caller gets an empty watch (watch.NewEmptyWatch), not an error; a
 * failure that is not a dropped connection (refused) is still an error.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { FakeClock } from '../util/clock/clock.ts';
import { RestClient } from './client.ts';
import { NetworkError } from './errors.ts';
import { buildWatch } from './request.ts';

const loc = { group: '', version: 'v1', resource: 'pods' };

test('a watch whose connection keeps being dropped resolves empty once the retries are used up', async () => {
  let requests = 0;
  const server = http.createServer((req) => {
    requests++;
    req.socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const c = new RestClient({ host: url, qps: -1 }, { clock: new FakeClock(), maxRetries: 0 });
  try {
    const w = await c.watch(buildWatch(loc));
    const events: string[] = [];
    for await (const e of w) events.push(e.type);
    assert.deepEqual(events, []);
    w.stop();
    assert.equal(requests, 1);
  } finally {
    await c.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

test('a watch to a port nobody listens on still fails with NetworkError', async () => {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const c = new RestClient({ host: url, qps: -1 }, { clock: new FakeClock(), maxRetries: 0 });
  try {
    await assert.rejects(c.watch(buildWatch(loc)), NetworkError);
  } finally {
    await c.close();
  }
});
