/**
 * Scenario: one informer in its own process. Initial sync of `pods` Pods (time to synced with every
 * add delivered to the handler, CPU time, peak RSS, heap after GC), then optionally `watchEvents`
 * MODIFIED events that the runner writes once told "synced": events/s through informer → indexer →
 * one handler, from the first update the handler sees to the last.
 *
 * Variants: kubeloom (full objects, frozen), kubeloom-strip (stripManagedFields transform),
 * kubeloom-metadata (metadata-only informer), kubeloom-nofreeze (full objects, freezeObjects: false),
 * kubeloom-nogzip (full objects, disableCompression), kubeloom-protobuf (full objects, Kubernetes
 * protobuf on the wire: acceptContentTypes), kubeloom-protobuf-nogzip (protobuf with
 * disableCompression), client-node (@kubernetes/client-node's makeInformer).
 * Only the library under test is loaded (dynamic imports), so its process carries no other code.
 */
import type { Pod } from '../../src/api/core/v1.ts';
import type { RestConfig } from '../../src/rest/config.ts';
import { heapAfterGc, peakRss, startSpan, type Span } from '../lib/measure.ts';
import type { InformerInput, InformerResult } from '../lib/types.ts';
import { scenario, sendMessage } from '../lib/child.ts';

interface Counters {
  adds: number;
  updates: number;
  firstUpdate: (() => Span) | undefined;
  onAllAdds: () => void;
  onAllUpdates: () => void;
}

/** Starts the informer under test; resolves once it is synced. */
/** Loads the library under test; the returned function starts the informer and resolves once its start call returns. */
async function load(input: InformerInput, c: Counters): Promise<() => Promise<() => boolean>> {
  const onAdd = (): void => {
    if (++c.adds === input.pods) c.onAllAdds();
  };
  const onUpdate = (): void => {
    if (c.updates++ === 0) c.firstUpdate = startSpan();
    if (c.updates === input.watchEvents) c.onAllUpdates();
  };
  if (input.variant === 'client-node') {
    const { KubeConfig, CoreV1Api, makeInformer } = await import('@kubernetes/client-node');
    return async () => {
      const kc = new KubeConfig();
      kc.loadFromString(input.kubeconfig);
      const api = kc.makeApiClient(CoreV1Api);
      const informer = makeInformer(kc, `/api/v1/namespaces/${input.namespace}/pods`, () => api.listNamespacedPod({ namespace: input.namespace }));
      informer.on('add', onAdd);
      informer.on('update', onUpdate);
      informer.on('error', (err) => console.error('client-node informer error', err));
      // start() resolves once the LIST is applied and the watch is open.
      await informer.start();
      return () => true;
    };
  }
  const { SharedIndexInformer, newListWatchFromClient, stripManagedFields } = await import('../../src/tools/cache/index.ts');
  const { MetadataClient } = await import('../../src/metadata/index.ts');
  const { newClientset } = await import('../../src/kubernetes/index.ts');
  // The embedded server is measured without client-side rate limiting; a real cluster as configured
  // (clientcmd is only loaded then, so the embedded figures carry no extra modules).
  let config: RestConfig = { host: input.url, qps: -1 };
  if (input.real === true) {
    const { parseKubeConfig, restConfigFrom } = await import('../../src/clientcmd/index.ts');
    config = await restConfigFrom(parseKubeConfig(input.kubeconfig));
  }
  if (input.variant.endsWith('-nogzip')) config = { ...config, disableCompression: true };
  if (input.variant.startsWith('kubeloom-protobuf')) {
    const { ProtobufAcceptContentTypes } = await import('../../src/rest/index.ts');
    config = { ...config, acceptContentTypes: ProtobufAcceptContentTypes };
  }
  const signal = new AbortController().signal;
  return async () => {
    if (input.variant === 'kubeloom-metadata') {
      const client = new MetadataClient(config).resource({ group: '', version: 'v1', resource: 'pods' }).namespace(input.namespace);
      const informer = new SharedIndexInformer(newListWatchFromClient(client));
      informer.addEventHandler({ onAdd, onUpdate });
      void informer.run({ signal });
      return () => informer.hasSynced();
    }
    const informer = new SharedIndexInformer<Pod>(newListWatchFromClient(newClientset(config).coreV1().pods(input.namespace)), {
      freezeObjects: input.variant !== 'kubeloom-nofreeze',
    });
    if (input.variant === 'kubeloom-strip') informer.setTransform(stripManagedFields);
    informer.addEventHandler({ onAdd, onUpdate });
    void informer.run({ signal });
    return () => informer.hasSynced();
  };
}

scenario<InformerInput, InformerResult>(async (input) => {
  let allAdds!: () => void;
  const addsDone = new Promise<void>((r) => (allAdds = r));
  let allUpdates!: () => void;
  const updatesDone = new Promise<void>((r) => (allUpdates = r));
  const c: Counters = { adds: 0, updates: 0, firstUpdate: undefined, onAllAdds: () => allAdds(), onAllUpdates: () => allUpdates() };
  const start = await load(input, c);
  const baseHeap = await heapAfterGc();
  const end = startSpan();
  const synced = await start();
  await addsDone;
  while (!synced()) await new Promise<void>((r) => setImmediate(r));
  const sync = end();
  const rss = peakRss();
  const heapBytes = (await heapAfterGc()) - baseHeap;
  const used = process.cpuUsage();
  const result: InformerResult = { variant: input.variant, pods: input.pods, sync, peakRss: rss, heapBytes, baseHeap, syncedAtMs: performance.now(), processCpuMs: (used.user + used.system) / 1000 };
  if (input.watchEvents > 0) {
    await sendMessage({ type: 'synced' });
    await updatesDone;
    const watch = c.firstUpdate!();
    // The first update started the clock: it is not part of the measured interval.
    result.watch = { ...watch, events: input.watchEvents - 1 };
  }
  return result;
});
