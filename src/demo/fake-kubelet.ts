/**
 * Stands in for the kubelet from the client side, for clusters that run none (a bare kube-apiserver used
 * for tests): every new pod is marked Running and Ready through the pods/status subresource, with the
 * status the embedded server's own kubelet stand-in writes (apiserver/controllers/fake-kubelet.ts).
 * Without it readyReplicas would stay 0. Against the embedded server, use its stand-ins instead
 * (`startApiServer({ controllers: { scheduler: true, kubelet: true } })`), as the demo does.
 */
import type { Pod } from '../api/core/v1.ts';
import { isNotFound } from '../apimachinery/errors.ts';
import { objectKey } from '../apimachinery/meta.ts';
import { PatchType, type PatchOptions, type PatchTypeValue } from '../apimachinery/options.ts';
import { isBeingDeleted } from '../controller/finalizers.ts';
import type { Clock } from '../util/clock/clock.ts';
import { RateLimitingQueue } from '../util/workqueue/rate-limiting-queue.ts';
import { runWorkers } from '../util/workqueue/run-workers.ts';
import { splitMetaNamespaceKey } from '../tools/cache/key-functions.ts';
import type { DemoInformer } from './informer.ts';
import { runningPodStatus } from '../apiserver/controllers/fake-kubelet.ts';

/** The pod status writes the fake kubelet makes. */
export interface PodStatusClient {
  patch(name: string, patchType: PatchTypeValue, patch: unknown, options?: PatchOptions & { subresource?: string }): Promise<Pod>;
}

function isReady(pod: Pod): boolean {
  return pod.status?.phase === 'Running' && (pod.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false);
}

/**
 * Runs the fake kubelet until `signal` aborts: a small controller of its own, keyed by pod.
 * Resolves once stopped. `marked()` counts the pods it has started.
 */
export class FakeKubelet {
  readonly #pods: DemoInformer<Pod>;
  readonly #client: (namespace: string) => PodStatusClient;
  readonly #queue: RateLimitingQueue<string>;
  readonly #clock: Clock;
  #marked = 0;

  constructor(pods: DemoInformer<Pod>, client: (namespace: string) => PodStatusClient, clock: Clock) {
    this.#pods = pods;
    this.#client = client;
    this.#clock = clock;
    this.#queue = new RateLimitingQueue<string>({ clock });
    const enqueue = (pod: Pod): void => {
      if (!isReady(pod) && !isBeingDeleted(pod)) this.#queue.add(objectKey(pod));
    };
    pods.addEventHandler({ onAdd: (p) => enqueue(p), onUpdate: (_o, p) => enqueue(p), onDelete: () => {} });
  }

  /** Pods marked Running/Ready so far. */
  marked(): number {
    return this.#marked;
  }

  run({ signal }: { signal: AbortSignal }): Promise<void> {
    return runWorkers(this.#queue, { concurrency: 4, signal, onError: () => {} }, async (key) => {
      const pod = this.#pods.getIndexer().getByKey(key);
      if (pod === undefined || isReady(pod) || isBeingDeleted(pod)) return;
      const { namespace, name } = splitMetaNamespaceKey(key);
      const now = new Date(this.#clock.now()).toISOString().replace(/\.\d+Z$/, 'Z');
      const running = runningPodStatus(pod, { hostIP: '127.0.0.1', podIP: '10.0.0.1', now });
      // A merge patch replaces the conditions: PodScheduled goes along, as no scheduler set it.
      const conditions = [...(running.conditions as object[]), { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now }];
      const status = { status: { ...running, conditions } };
      try {
        await this.#client(namespace).patch(name, PatchType.Merge, status, { subresource: 'status', signal });
        this.#marked++;
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    });
  }
}
