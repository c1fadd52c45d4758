/**
 * Scenario: REST GETs of one Pod, sequentially and 64 at a time, for kubeloom and client-node, with a
 * counting TCP proxy in front of the server (bench/rest.ts's helpers). Each client makes one warm-up
 * call first, so both have loaded their code and resolved their configuration.
 */
import { clientNodeSubject, countingProxy, kubeloomSubject, run } from '../rest.ts';
import { scenario } from '../lib/child.ts';
import { startSpan } from '../lib/measure.ts';
import type { RestInput, RestRow } from '../lib/types.ts';

scenario<RestInput, RestRow[]>(async (input) => {
  const rows: RestRow[] = [];
  const target = new URL(input.url);
  for (const concurrency of [1, 64]) {
    for (const make of [kubeloomSubject, clientNodeSubject]) {
      const proxy = await countingProxy(target);
      const subject = make({ url: input.url, kubeconfig: input.kubeconfig, caCertPem: undefined }, `http://127.0.0.1:${proxy.port}`);
      await subject.get(input.pod);
      proxy.reset();
      const end = startSpan();
      await run(input.total, concurrency, () => subject.get(input.pod));
      const s = end();
      rows.push({ client: subject.name, concurrency, requests: input.total, ms: s.ms, cpuMs: s.cpuMs, connections: proxy.connections() });
      await subject.close();
      await proxy.close();
    }
  }
  return rows;
});
