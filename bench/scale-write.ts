/**
 * The registry's per-pod write cost at kwok scale, without HTTP, the controllers or the clock: per batch,
 * `batch` creates of a ReplicaSet's pod (LoopbackClient.create, as the server's own creates: managedFields,
 * admission, validation, the stored form, the write) and then, for each, the kubelet stand-in's Running
 * and Ready status write (LoopbackClient.modify with `runningPodStatus`, as FakeKubelet writes it). CPU µs
 * per pod (`process.cpuUsage`), medians over the rounds.
 *
 * Given several source trees (e.g. `git archive <commit> | tar -x -C /tmp/old`, with node_modules linked),
 * it loads each one's modules side by side in this process and alternates their batches, so that a loaded
 * machine slows them alike: an A/B of the write path that holds on a shared machine.
 *
 * Run: node bench/scale-write.ts [treeDir…] (default: this tree) [--batch 300] [--rounds 9]
 */
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Pod } from '../src/api/core/v1.ts';

type Obj = Record<string, unknown>;

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const i = args.indexOf(name);
  return i < 0 ? fallback : Number(args.splice(i, 2)[1]);
};
const batch = option('--batch', 300);
const rounds = option('--rounds', 9);
const trees = args.length > 0 ? args : [path.resolve(import.meta.dirname, '..')];

interface Tree {
  readonly dir: string;
  create(i: number): void;
  status(i: number): void;
}

async function load(dir: string): Promise<Tree> {
  const at = (file: string): string => pathToFileURL(path.join(path.resolve(dir), 'src', file)).href;
  const { Storage } = (await import(at('apiserver/storage.ts'))) as typeof import('../src/apiserver/storage.ts');
  const { ApiHandler } = (await import(at('apiserver/handler.ts'))) as typeof import('../src/apiserver/handler.ts');
  const { ResourceRegistry } = (await import(at('apiserver/resources.ts'))) as typeof import('../src/apiserver/resources.ts');
  const { Faults } = (await import(at('apiserver/faults.ts'))) as typeof import('../src/apiserver/faults.ts');
  const { LoopbackClient } = (await import(at('apiserver/controllers/loopback-client.ts'))) as typeof import('../src/apiserver/controllers/loopback-client.ts');
  const { runningPodStatus } = (await import(at('apiserver/controllers/fake-kubelet.ts'))) as typeof import('../src/apiserver/controllers/fake-kubelet.ts');
  const { FakeClock } = (await import(at('util/clock/index.ts'))) as typeof import('../src/util/clock/index.ts');
  const clock = new FakeClock(Date.parse('2024-06-01T00:00:00Z'));
  const storage = new Storage(1_000_000);
  const faults = new Faults({ closeWatches: () => 0, stallWatches: () => 0, injectMalformedLine: () => 0, compact: () => undefined, restart: async () => undefined });
  const handler = new ApiHandler(new ResourceRegistry(), storage, faults, { token: undefined, bookmarkIntervalMs: 60_000, defaultWatchTimeoutSeconds: 1800, maxRequestBodyBytes: 3 << 20, clock });
  const scope = handler.internalScope();
  const controller = new LoopbackClient(scope, 'kube-controller-manager');
  const kubelet = new LoopbackClient(scope, 'kubelet');
  controller.create(controller.resourceFor('v1', 'Namespace'), '', { metadata: { name: 'default' } });
  const pods = controller.resourceFor('v1', 'Pod');
  const ownerReferences = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d4b9c', uid: '1b4e28ba-2fa1-11d2-883f-0016d3cca427', controller: true, blockOwnerDeletion: true }];
  return {
    dir,
    create: (i) => {
      controller.create(pods, 'default', {
        metadata: { name: `web-7d4b9c-${i}`, labels: { app: 'web', 'pod-template-hash': '7d4b9c' }, ownerReferences },
        spec: { nodeName: `kwok-node-${i % 1000}`, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '1m', memory: '1Mi' } } }] },
      });
    },
    status: (i) => {
      kubelet.modify(
        pods,
        'default',
        `web-7d4b9c-${i}`,
        (o) => {
          const started = runningPodStatus(o as Pod, { hostIP: `172.18.${(i % 1000) >> 8}.${i & 255}`, podIP: `10.${244 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`, now: '2024-06-01T00:00:01Z' });
          const current = (o.status ?? {}) as Obj;
          const replaced = new Set((started.conditions as Obj[]).map((c) => c.type));
          const kept = ((current.conditions ?? []) as Obj[]).filter((c) => !replaced.has(c.type));
          return { ...o, status: { ...current, ...started, conditions: [...(started.conditions as Obj[]), ...kept] } };
        },
        'status',
      );
    },
  };
}

const loaded: Tree[] = [];
for (const dir of trees) loaded.push(await load(dir));
const cpu = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const results = new Map(loaded.map((t) => [t, { create: [] as number[], status: [] as number[] }]));
console.log(`load before: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; ${rounds} rounds of ${batch} pods per tree`);
for (let r = 0; r < rounds; r++) {
  for (const t of loaded) {
    const first = r * batch;
    const c0 = cpu();
    for (let i = 0; i < batch; i++) t.create(first + i);
    const c1 = cpu();
    for (let i = 0; i < batch; i++) t.status(first + i);
    const c2 = cpu();
    results.get(t)!.create.push((c1 - c0) / batch);
    results.get(t)!.status.push((c2 - c1) / batch);
  }
}
const median = (a: readonly number[]): number => [...a].sort((x, y) => x - y)[a.length >> 1]!;
const list = (a: readonly number[]): string => a.map((x) => x.toFixed(0)).join(' ');
for (const [t, v] of results) {
  console.log(`${t.dir}: create ${median(v.create).toFixed(0)} µs CPU per pod (${list(v.create)}); kubelet status write ${median(v.status).toFixed(0)} µs (${list(v.status)})`);
}
console.log(`load after: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
