/**
 * Embedded API server benchmark: stores 100,000 objects, lists them, and streams 200,000 watch events
 * to one HTTP consumer running in a worker thread (so the consumer does not share the server's event loop).
 *
 * Run: ./node_modules/.bin/node bench/apiserver.ts [objects]
 */
import { Worker } from 'node:worker_threads';
import { Pool } from 'undici';
import { startApiServer } from '../src/testing/index.ts';

const objects = Number(process.argv[2] ?? 100_000);
const concurrency = 64;

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

// The consumer: one watch request; counts complete lines and JSON-parses each, as a real client would.
const consumerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { url, expected, parse } = workerData;
const started = performance.now();
let firstByte = 0;
let count = 0;
let bytes = 0;
let rest = '';
http.get(url, (res) => {
  res.setEncoding('utf8');
  res.on('data', (chunk) => {
    if (firstByte === 0) firstByte = performance.now();
    bytes += chunk.length;
    let start = 0;
    let nl;
    const text = rest + chunk;
    while ((nl = text.indexOf('\\n', start)) >= 0) {
      if (parse) JSON.parse(text.slice(start, nl));
      count++;
      start = nl + 1;
    }
    rest = text.slice(start);
    if (count >= expected) {
      const end = performance.now();
      parentPort.postMessage({ count, bytes, ms: end - firstByte, totalMs: end - started });
      res.destroy();
    }
  });
});
parentPort.postMessage('ready');
`;

function consume(url: string, expected: number, parse: boolean): { ready: Promise<void>; done: Promise<{ count: number; bytes: number; ms: number; totalMs: number }> } {
  const worker = new Worker(consumerSource, { eval: true, workerData: { url, expected, parse } });
  let resolveReady!: () => void;
  const ready = new Promise<void>((r) => (resolveReady = r));
  const done = new Promise<{ count: number; bytes: number; ms: number; totalMs: number }>((resolve, reject) => {
    worker.on('message', (m: unknown) => {
      if (m === 'ready') resolveReady();
      else {
        resolve(m as { count: number; bytes: number; ms: number; totalMs: number });
        void worker.terminate();
      }
    });
    worker.on('error', reject);
  });
  return { ready, done };
}

const server = await startApiServer({ watchHistorySize: objects * 2 + 10 });
const cms = `${server.url}/api/v1/namespaces/default/configmaps`;
const cmsPath = '/api/v1/namespaces/default/configmaps';
const pool = new Pool(server.url, { connections: 16, pipelining: 4 });
const startRevision = server.revision();

/** Creates `objects` ConfigMaps over HTTP, `concurrency` requests in flight. */
async function createAll(labels: boolean): Promise<number> {
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const i = next++;
        if (i >= objects) return;
        const body = JSON.stringify({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `cm-${String(i).padStart(6, '0')}`, ...(labels ? { labels: { shard: String(i % 16) } } : {}) },
          data: { index: String(i), payload: 'x'.repeat(64) },
        });
        const res = await pool.request({ path: cmsPath, method: 'POST', headers: { 'content-type': 'application/json' }, body });
        const text = await res.body.text();
        if (res.statusCode !== 201) throw new Error(`create failed: ${res.statusCode} ${text}`);
      }
    }),
  );
  return performance.now() - t0;
}

// 1. Store the objects over HTTP.
{
  const ms = await createAll(true);
  globalThis.gc?.();
  const mem = process.memoryUsage();
  console.log(`create: ${objects} objects over HTTP (${concurrency} concurrent) in ${(ms / 1000).toFixed(2)} s = ${Math.round(objects / (ms / 1000))} creates/s; heap ${mb(mem.heapUsed)}, rss ${mb(mem.rss)}`);
}

// 2. LIST them all, then page through them.
{
  for (let round = 0; round < 3; round++) {
    const t0 = performance.now();
    const res = await fetch(cms);
    const text = await res.text();
    const ms = performance.now() - t0;
    const t1 = performance.now();
    const list = JSON.parse(text) as { items: unknown[] };
    const parseMs = performance.now() - t1;
    console.log(`list: ${list.items.length} items, ${mb(text.length)} in ${ms.toFixed(0)} ms (client JSON.parse ${parseMs.toFixed(0)} ms)`);
  }
  const t0 = performance.now();
  let cont = '';
  let items = 0;
  let pages = 0;
  do {
    const res = await fetch(`${cms}?limit=500${cont === '' ? '' : `&continue=${encodeURIComponent(cont)}`}`);
    const page = (await res.json()) as { items: unknown[]; metadata: { continue?: string } };
    items += page.items.length;
    pages++;
    cont = page.metadata.continue ?? '';
  } while (cont !== '');
  console.log(`list: paginated ${items} items in ${pages} pages of 500 in ${(performance.now() - t0).toFixed(0)} ms`);
  const t2 = performance.now();
  const sel = (await (await fetch(`${cms}?labelSelector=shard%3D3`)).json()) as { items: unknown[] };
  console.log(`list: labelSelector matched ${sel.items.length} in ${(performance.now() - t2).toFixed(0)} ms`);
}

// 3. Watch: one consumer replays every create from history, then receives a DELETED per object live.
for (const parse of [false, true]) {
  const expected = objects * 2;
  const before = server.revision();
  const from = parse ? before : startRevision;
  // The second round replays the first round's deletes plus re-creates, so re-create first.
  if (parse) await createAll(false);
  const c = consume(`${cms}?watch=true&resourceVersion=${from}`, expected, parse);
  await c.ready;
  const del = await fetch(cms, { method: 'DELETE' });
  await del.arrayBuffer();
  const r = await c.done;
  console.log(
    `watch${parse ? ' (consumer JSON.parse each event)' : ''}: ${r.count} events (${objects} replayed + ${objects} live DELETED), ${mb(r.bytes)} in ${(r.ms / 1000).toFixed(2)} s = ${Math.round(r.count / (r.ms / 1000))} events/s`,
  );
}

// 4. Initial events: a watch from "0" over the stored objects (what an informer's first watch-list does).
{
  await createAll(false);
  const c = consume(`${cms}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`, objects + 1, false);
  const r = await c.done;
  console.log(`watch-list: ${r.count - 1} initial ADDED + bookmark in ${(r.totalMs / 1000).toFixed(2)} s = ${Math.round(r.count / (r.totalMs / 1000))} events/s`);
}

const mem = process.memoryUsage();
console.log(`memory at end: heap ${mb(mem.heapUsed)}, rss ${mb(mem.rss)}`);
await pool.close();
await server.stop();
