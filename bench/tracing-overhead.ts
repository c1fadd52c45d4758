/**
 * What tracing costs a Manager: N ConfigMaps on the embedded API server, one builder controller
 * reconciling each once (no-op reconcile, or with `write` one PATCH per reconcile, so client and server
 * spans are made too), with no tracer provider registered (`off`) or with the SDK's BasicTracerProvider
 * and a span processor that drops every span (`on`: spans are made and ended, not exported, which
 * isolates kubeloom's own cost from an exporter's).
 *
 * Reports, per round, the process CPU time (user + system, process.cpuUsage) and the wall time from the
 * manager's start until every object was reconciled; the embedded server runs in the same process, so
 * its server spans are counted too. The first round warms up and is not in the median.
 *
 * Run each mode in its own process: node bench/tracing-overhead.ts off|on [objects=10000] [rounds=4] [write]
 */
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, NoopSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { PatchType } from '../src/apimachinery/options.ts';
import { startApiServer } from '../src/apiserver/index.ts';
import { controllerManagedBy } from '../src/builder/index.ts';
import { kinds } from '../src/client/index.ts';
import { newManager } from '../src/manager/index.ts';
import { RestClient } from '../src/rest/client.ts';

const mode = process.argv[2] ?? 'off';
const n = Number(process.argv[3] ?? 10_000);
const rounds = Number(process.argv[4] ?? 4);
const write = process.argv[5] === 'write';
const cms = kinds.coreV1.configMaps;
const quiet = { debug() {}, info() {}, error() {} };
if (mode === 'on') trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new NoopSpanProcessor()] }));

const server = await startApiServer();
const rest = new RestClient({ host: server.url, qps: -1 });
{
  const writer = newManager(rest, { logger: quiet, stalledWatchDetection: false }).getClient();
  for (let i = 0; i < n; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, n - i) }, (_, j) => writer.create(cms, { metadata: { namespace: 'default', name: `cm-${i + j}` }, data: { v: 'x'.repeat(100) } })));
  }
}

async function round(r: number): Promise<{ cpuMs: number; wallMs: number }> {
  const mgr = newManager(rest, { logger: quiet, ...(process.env['NODETECT'] === '1' ? { stalledWatchDetection: false as const } : {}) });
  const client = mgr.getClient();
  const seen = new Set<string>();
  let finish!: () => void;
  const done = new Promise<void>((res) => (finish = res));
  controllerManagedBy(mgr)
    .for(cms)
    .named(`bench-${r}`)
    .complete(async (req) => {
      if (!req.name.startsWith('cm-') || seen.has(req.name)) return;
      if (write) await client.patch(cms, req, PatchType.Merge, { metadata: { annotations: { round: String(r) } } });
      seen.add(req.name);
      if (seen.size === n) finish();
    });
  const stop = new AbortController();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const running = mgr.start(stop.signal);
  await done;
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  stop.abort();
  await running;
  return { cpuMs: (cpu.user + cpu.system) / 1000, wallMs };
}

const results: Array<{ cpuMs: number; wallMs: number }> = [];
for (let r = 0; r < rounds; r++) {
  const x = await round(r);
  console.log(`round ${r}: cpu ${x.cpuMs.toFixed(0)} ms, wall ${x.wallMs.toFixed(0)} ms${r === 0 ? ' (warm-up)' : ''}`);
  if (r > 0) results.push(x);
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`tracing ${mode}${write ? ', one PATCH per reconcile' : ''}, ${n} ConfigMaps: median cpu ${median(results.map((x) => x.cpuMs)).toFixed(0)} ms, median wall ${median(results.map((x) => x.wallMs)).toFixed(0)} ms (${process.version})`);
await rest.close();
await server.stop();
