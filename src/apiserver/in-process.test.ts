import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { test } from 'node:test';
import { FakeClock } from '../util/clock/clock.ts';
import { Faults } from './faults.ts';
import { ApiHandler } from './handler.ts';
import { serveInProcess, type InProcessRequest } from './in-process.ts';
import { ResourceRegistry } from './resources.ts';
import { Storage } from './storage.ts';

function handler(clock: FakeClock): ApiHandler {
  const noop = (): number => 0;
  const faults = new Faults({ closeWatches: () => undefined, stallWatches: noop, injectMalformedLine: noop, compact: () => undefined, restart: () => Promise.resolve() });
  return new ApiHandler(new ResourceRegistry(), new Storage(100), faults, { token: undefined, bookmarkIntervalMs: 1000, defaultWatchTimeoutSeconds: 60, maxRequestBodyBytes: 1024, clock });
}

/** Serves a request and collects what the sink got, as lines `start <status>`, `data <text>`, `end`. */
function collect(h: ApiHandler, request: InProcessRequest): { parts: string[]; abort: () => void } {
  const parts: string[] = [];
  const exchange = serveInProcess(h, request, {
    start: (status, headers) => parts.push(`start ${status} ${String(headers['content-type'])}`),
    data: (chunk) => parts.push(`data ${chunk.toString('utf8')}`),
    end: () => parts.push('end'),
  });
  return { parts, abort: () => exchange.abort() };
}

async function settled(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => queueMicrotask(resolve));
}

test('serveInProcess answers a create with the handler\'s 201, and a body over the limit with 413', async () => {
  const h = handler(new FakeClock());
  const created = collect(h, { method: 'POST', path: '/api/v1/namespaces', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'team-a' } }) });
  await settled();
  assert.equal(created.parts[0], 'start 201 application/json');
  assert.match(created.parts[1] ?? '', /"name":"team-a".*"phase":"Active"/);
  assert.equal(created.parts.at(-1), 'end');
  const big = collect(h, { method: 'POST', path: '/api/v1/namespaces', headers: { 'content-type': 'application/json' }, body: Buffer.alloc(2048, 32) });
  await settled();
  assert.match(big.parts[0] ?? '', /^start 413 /);
});

test('a watch served in-process sends its events and bookmarks as the clock moves, ends at timeoutSeconds, and stops when the client aborts', async () => {
  const clock = new FakeClock();
  const h = handler(clock);
  const w = collect(h, { method: 'GET', path: '/api/v1/namespaces?watch=true&allowWatchBookmarks=true&timeoutSeconds=3' });
  await settled();
  assert.deepEqual(w.parts, ['start 200 application/json']);
  collect(h, { method: 'POST', path: '/api/v1/namespaces', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'team-b' } }) });
  await settled();
  assert.match(w.parts[1] ?? '', /^data \{"type":"ADDED","object":\{.*"name":"team-b"/);
  await clock.step(1000);
  await settled();
  assert.match(w.parts.at(-1) ?? '', /^data \{"type":"BOOKMARK"/);
  await clock.step(2000);
  await settled();
  assert.equal(w.parts.at(-1), 'end');
  const aborted = collect(h, { method: 'GET', path: '/api/v1/namespaces?watch=true' });
  await settled();
  assert.equal(h.stallWatches(), 1);
  aborted.abort();
  assert.equal(h.stallWatches(), 0);
});
