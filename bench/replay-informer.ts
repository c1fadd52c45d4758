/**
 * One run of bench/replay-sync.ts: `node --expose-gc replay-informer.ts ROOT URL protobuf|json ITEMS`
 * starts a Pod informer (sources under ROOT, full objects, frozen, as by default) against the replay
 * server at URL and prints one JSON line once it is synced with every add delivered: the sync's wall
 * time, its CPU time (process.cpuUsage: every thread of the process) and the peak RSS.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [root, url, encoding, itemsText] = process.argv.slice(2);
if (root === undefined || url === undefined || itemsText === undefined) throw new Error('usage: replay-informer.ts ROOT URL protobuf|json ITEMS');
const items = Number(itemsText);
const load = (file: string): Promise<Record<string, unknown>> => import(pathToFileURL(path.join(root, 'src', file)).href) as Promise<Record<string, unknown>>;
const cache = (await load('tools/cache/index.ts')) as typeof import('../src/tools/cache/index.ts');
const kubernetes = (await load('kubernetes/index.ts')) as typeof import('../src/kubernetes/index.ts');
const rest = (await load('rest/index.ts')) as typeof import('../src/rest/index.ts');

const config = {
  host: url,
  qps: -1,
  ...(encoding === 'protobuf' ? { acceptContentTypes: rest.ProtobufAcceptContentTypes } : {}),
  // REPLAY_GZIP=0: the body is asked for uncompressed (disableCompression).
  ...(process.env['REPLAY_GZIP'] === '0' ? { disableCompression: true } : {}),
};
const informer = new cache.SharedIndexInformer(cache.newListWatchFromClient(kubernetes.newClientset(config).coreV1().pods('replay')));
let adds = 0;
let allAdds!: () => void;
const done = new Promise<void>((r) => (allAdds = r));
informer.addEventHandler({ onAdd: () => void (++adds === items && allAdds()) });
globalThis.gc?.();
const t0 = performance.now();
const cpu0 = process.cpuUsage();
void informer.run({ signal: new AbortController().signal });
await done;
while (!informer.hasSynced()) await new Promise<void>((r) => setImmediate(r));
const cpu = process.cpuUsage(cpu0);
const ms = performance.now() - t0;
console.log(JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000, peakRss: process.resourceUsage().maxRSS * 1024 }));
process.exit(0);
