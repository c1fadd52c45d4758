/**
 * Soak: streams events through SharedIndexInformers with handlers feeding a rate-limited work queue
 * and workers, against the embedded API server, and reports memory as it goes. Memory must be flat
 * after warm-up: the report ends with the slope of the heap (after a full GC) over time and per
 * million events.
 *
 * The load runs in a child process (this script with --role load): the embedded API server plus
 * writers updating a pool of configmaps as fast as it can. This process holds only what is measured:
 * --informers informers (default 4, as a controller manager watching one collection several times)
 * reading through a chaos proxy, their handlers, one work queue and its workers. Events are the
 * notifications delivered to the handlers.
 *
 *   npm run soak -- --minutes 10              (the npm script runs: node --expose-gc bench/soak.ts)
 *   ./node_modules/.bin/node --expose-gc bench/soak.ts --events 1000000
 *   ./node_modules/.bin/node --expose-gc bench/soak.ts --seconds 3 --report-seconds 1   (short mode)
 *
 * Options: --minutes N | --seconds N (duration), --events N (stop after N events, whichever comes
 * first), --report-seconds N (sampling period, default 60, or 1 in short mode), --objects N (pool of
 * configmaps rewritten, default 1000), --writers N (concurrent writers, default 16), --informers N
 * (default 4), --json (one JSON summary line at the end).
 *
 * Every sampling period the proxy resets every connection, so watch resumption runs all along.
 * After stopping, the script lists the handles still active in the process (there must be none but
 * stdio) and then simply returns: the process must exit on its own — test/soak-short.test.ts checks it.
 */
import { parseArgs } from 'node:util';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { ConfigMap } from '../src/api/core/v1.ts';
import { startApiServer, startChaosProxy } from '../src/testing/index.ts';
import { newClientset } from '../src/kubernetes/index.ts';
import { SharedIndexInformer, newListWatchFromClient } from '../src/tools/cache/index.ts';
import { RateLimitingQueue, runWorkers } from '../src/util/workqueue/index.ts';

/** One memory sample. */
interface Sample {
  seconds: number;
  events: number;
  rssMB: number;
  heapMB: number;
  /** Memory of Buffers and other objects outside the V8 heap. */
  externalMB: number;
}

/** Least-squares slope of y over x. */
function slope(points: Array<[number, number]>): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

const { values } = parseArgs({
  options: {
    role: { type: 'string', default: 'soak' },
    minutes: { type: 'string' },
    seconds: { type: 'string' },
    events: { type: 'string' },
    'report-seconds': { type: 'string' },
    objects: { type: 'string', default: '1000' },
    writers: { type: 'string', default: '16' },
    informers: { type: 'string', default: '4' },
    json: { type: 'boolean', default: false },
  },
});
const objects = Number(values.objects);
const writers = Number(values.writers);

/** The load generator (child process): the embedded server and writers, until stdin closes. */
async function load(): Promise<void> {
  const server = await startApiServer({ watchHistorySize: 10_000, bookmarkIntervalMs: 5_000 });
  const cs = newClientset({ host: server.url, qps: -1 });
  const cms = cs.coreV1().configMaps('default');
  for (let i = 0; i < objects; i++) await cms.create({ metadata: { name: `soak-${i}` }, data: { v: '0' } });
  let writing = true;
  let writes = 0;
  process.stdin.on('end', () => (writing = false));
  process.stdin.resume();
  console.log(`READY ${server.url}`);
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      for (let i = w; writing; i += writers) {
        try {
          await cms.update({ metadata: { name: `soak-${i % objects}` }, data: { v: String(writes) } });
          writes++;
        } catch {
          // Updates of existing objects do not fail; nothing to do while stopping.
        }
      }
    }),
  );
  process.stdin.pause();
  await cs.close();
  await server.stop();
  console.log(`WRITES ${writes}`);
}

async function soak(): Promise<void> {
  // --events alone runs until that many events; otherwise the duration defaults to one minute.
  const durationS = values.seconds !== undefined ? Number(values.seconds) : values.minutes !== undefined ? Number(values.minutes) * 60 : values.events !== undefined ? Infinity : 60;
  const maxEvents = values.events !== undefined ? Number(values.events) : Infinity;
  const reportS = Number(values['report-seconds'] ?? (durationS < 60 ? '1' : '60'));
  const informerCount = Number(values.informers);
  const gc = (globalThis as { gc?: () => void }).gc;

  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--role', 'load', '--objects', String(objects), '--writers', String(writers)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const childLines: string[] = [];
  const ready = new Promise<string>((resolve, reject) => {
    lines.on('line', (l) => {
      childLines.push(l);
      if (l.startsWith('READY ')) resolve(l.slice(6));
    });
    child.once('exit', (code) => reject(new Error(`load process exited (${code ?? 'signal'}) before it was ready`)));
  });
  const childExit = once(child, 'exit');
  const url = await ready;
  const proxy = await startChaosProxy({ targetPort: Number(new URL(url).port) });
  const client = newClientset({ host: `http://${proxy.address}`, qps: -1 });

  const stop = new AbortController();
  const queue = new RateLimitingQueue<string>();
  let events = 0;
  let processed = 0;
  const keyOf = (c: ConfigMap): string => `${c.metadata?.namespace ?? ''}/${c.metadata?.name ?? ''}`;
  const informers = Array.from({ length: informerCount }, () => {
    const informer = new SharedIndexInformer<ConfigMap>(newListWatchFromClient(client.coreV1().configMaps('default')), { objectDescription: 'configmaps' });
    informer.setWatchErrorHandler(() => {});
    informer.addEventHandler({
      onAdd: (c) => {
        events++;
        queue.add(keyOf(c));
      },
      onUpdate: (_old, c) => {
        events++;
        queue.add(keyOf(c));
      },
      onDelete: () => {
        events++;
      },
    });
    return informer;
  });
  const informing = informers.map((i) => i.run({ signal: stop.signal }));
  const working = runWorkers(queue, { concurrency: 4, signal: stop.signal }, (key) => {
    // A controller's usual first step: read the object from a cache.
    if (informers[0]!.getStore().getByKey(key) !== undefined) processed++;
    queue.forget(key);
  });
  while (!informers.every((i) => i.hasSynced())) await new Promise((r) => setTimeout(r, 10));

  const sample = (start: number): Sample => {
    gc?.();
    const m = process.memoryUsage();
    return { seconds: (performance.now() - start) / 1000, events, rssMB: m.rss / 2 ** 20, heapMB: m.heapUsed / 2 ** 20, externalMB: m.external / 2 ** 20 };
  };
  const fmt = (s: Sample): string =>
    `${s.seconds.toFixed(0).padStart(6)} s  events ${String(s.events).padStart(10)}  rss ${s.rssMB.toFixed(1).padStart(7)} MB  heap ${s.heapMB.toFixed(1).padStart(7)} MB  external ${s.externalMB.toFixed(1).padStart(6)} MB`;
  const start = performance.now();
  const samples: Sample[] = [sample(start)];
  console.log(
    `soak: ${informerCount} informers over ${objects} objects, ${writers} writers, ${[Number.isFinite(durationS) ? `${durationS} s` : '', Number.isFinite(maxEvents) ? `${maxEvents} events` : ''].filter(Boolean).join(' or ')}, a sample every ${reportS} s${gc === undefined ? ' (run with --expose-gc for exact heap figures)' : ''}`,
  );
  console.log(fmt(samples[0]!));
  let nextReport = start + reportS * 1000;
  let resets = 0;
  while ((performance.now() - start) / 1000 < durationS && events < maxEvents) {
    await new Promise((r) => setTimeout(r, 50));
    if (performance.now() >= nextReport) {
      nextReport += reportS * 1000;
      const s = sample(start);
      samples.push(s);
      console.log(fmt(s));
      resets += proxy.resetAll();
    }
  }
  samples.push(sample(start));

  child.stdin.end();
  stop.abort();
  await Promise.all(informing);
  await working;
  await client.close();
  await proxy.stop();
  const [code] = (await childExit) as [number | null];
  lines.close();
  // Sockets and servers finish closing on the next turns of the event loop.
  await new Promise((r) => setTimeout(r, 50));

  // Warm-up: the first third of the run (at least the first sample) is left out of the slopes; the heap
  // settles only after a few major collections have sized the old generation.
  const warm = samples.slice(Math.max(1, Math.floor(samples.length / 3)));
  const last = samples[samples.length - 1]!;
  const summary = {
    seconds: Number(last.seconds.toFixed(1)),
    events,
    writes: Number(childLines.find((l) => l.startsWith('WRITES '))?.slice(7) ?? NaN),
    processed,
    connectionResets: resets,
    eventsPerSecond: Math.round(events / last.seconds),
    samples: samples.length,
    heapMB: Number(last.heapMB.toFixed(1)),
    rssMB: Number(last.rssMB.toFixed(1)),
    heapSlopeMBPerMin: Number(slope(warm.map((s) => [s.seconds / 60, s.heapMB])).toFixed(3)),
    rssSlopeMBPerMin: Number(slope(warm.map((s) => [s.seconds / 60, s.rssMB])).toFixed(3)),
    externalSlopeMBPerMin: Number(slope(warm.map((s) => [s.seconds / 60, s.externalMB])).toFixed(3)),
    heapSlopeMBPerMillionEvents: Number(slope(warm.map((s) => [s.events / 1e6, s.heapMB])).toFixed(3)),
    loadExitCode: code,
    // Handles other than stdio still open after stop: each one is a leak that would keep the process alive.
    activeHandles: process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap' && r !== 'PipeWrap'),
  };
  console.log(
    `stopped: ${events} events (${summary.eventsPerSecond}/s) from ${summary.writes} writes, ${processed} work items, ${resets} connection resets; heap ${summary.heapMB} MB, slope after warm-up ${summary.heapSlopeMBPerMin} MB/min = ${summary.heapSlopeMBPerMillionEvents} MB per million events; external slope ${summary.externalSlopeMBPerMin} MB/min; rss slope ${summary.rssSlopeMBPerMin} MB/min; active handles: ${summary.activeHandles.length === 0 ? 'none' : summary.activeHandles.join(', ')}`,
  );
  if (values.json) console.log(JSON.stringify(summary));
}

if (values.role === 'load') await load();
else await soak();
