/**
 * Scenario: REST GETs of one Pod, sequentially and 64 at a time, for kubeloom and client-node, with a
 * counting TCP proxy in front of the server (bench/rest.ts's helpers). Each client makes one warm-up
 * call first, so both have loaded their code and resolved their configuration. Two interleaved
 * rounds per client; the faster counts.
 */
import { clientNodeSubject, countingProxy, kubeloomSubject, run } from '../rest.ts';
import { scenario } from '../lib/child.ts';
import { startSpan } from '../lib/measure.ts';
import type { RestInput, RestRow } from '../lib/types.ts';

/** Rounds per client and concurrency, interleaved (A B A B); the fastest (wall) counts. */
const rounds = 2;

scenario<RestInput, RestRow[]>(async (input) => {
  const rows: RestRow[] = [];
  const target = new URL(input.url);
  for (const concurrency of [1, 64]) {
    // The server process also holds the other scenarios' data, so its GC pauses land on whichever
    // client runs at that moment: interleaved rounds give both clients the same chances.
    const best = new Map<string, RestRow>();
    for (let round = 0; round < rounds; round++) {
      for (const make of [kubeloomSubject, clientNodeSubject]) {
        const proxy = await countingProxy(target);
        const subject = make({ url: input.url, kubeconfig: input.kubeconfig, caCertPem: undefined }, `http://127.0.0.1:${proxy.port}`);
        await subject.get(input.pod);
        proxy.reset();
        const end = startSpan();
        await run(input.total, concurrency, () => subject.get(input.pod));
        const s = end();
        const row: RestRow = { client: subject.name, concurrency, requests: input.total, ms: s.ms, cpuMs: s.cpuMs, connections: proxy.connections() };
        const prev = best.get(subject.name);
        if (prev === undefined || row.ms < prev.ms) best.set(subject.name, row);
        await subject.close();
        await proxy.close();
      }
    }
    rows.push(...best.values());
  }
  return rows;
});
