/**
 * kube-controller-manager's namespace controller (pkg/controller/namespace/namespace_controller.go),
 * running inside the server: every namespace that gets a deletionTimestamp is queued — after the grace
 * period upstream waits for other API servers to notice — and handed to the
 * {@link NamespacedResourcesDeleter}. While content remains it looks again after half the deleter's
 * estimate plus a second; other failures are retried with the controller's backoff (5 ms doubling to
 * 60 s, and at most 10 per second overall).
 */
import type { Clock } from '../../../util/clock/clock.ts';
import { BucketRateLimiter } from '../../../util/workqueue/bucket-rate-limiter.ts';
import { ItemExponentialFailureRateLimiter } from '../../../util/workqueue/item-exponential-failure-rate-limiter.ts';
import { MaxOfRateLimiter } from '../../../util/workqueue/max-of-rate-limiter.ts';
import { metaOf } from '../../object-meta.ts';
import { namespaceStore } from '../../registry/core/namespace.ts';
import type { ServerController } from '../controller.ts';
import type { LoopbackClient } from '../loopback-client.ts';
import { QueueWorker } from '../queue-worker.ts';
import { NamespacedResourcesDeleter, ResourcesRemainingError } from './namespaced-resources-deleter.ts';

/** namespaceDeletionGracePeriod: upstream waits 5 s before acting on a namespace event. */
export const defaultNamespaceDeletionGracePeriodMs = 5_000;

/** Options of {@link NamespaceController}. */
export interface NamespaceControllerOptions {
  client: LoopbackClient;
  clock: Clock;
  /** Delay between a namespace event and acting on it (default {@link defaultNamespaceDeletionGracePeriodMs}). */
  deletionGracePeriodMs?: number;
  /** Receives deletion failures (they are retried with backoff). */
  onError: (error: unknown) => void;
}

/** The namespace controller; see the file comment. */
export class NamespaceController implements ServerController {
  readonly #client: LoopbackClient;
  readonly #worker: QueueWorker<string>;
  readonly #graceMs: number;
  #unsubscribe: (() => void) | undefined;

  constructor(options: NamespaceControllerOptions) {
    this.#client = options.client;
    this.#graceMs = options.deletionGracePeriodMs ?? defaultNamespaceDeletionGracePeriodMs;
    const deleter = new NamespacedResourcesDeleter(options.client, options.clock);
    // nsControllerRateLimiter: exponential 5 ms → 60 s per namespace, and a 10 qps / 100 burst bucket.
    const rateLimiter = new MaxOfRateLimiter<string>(new ItemExponentialFailureRateLimiter<string>(5, 60_000), new BucketRateLimiter<string>(10, 100, { clock: options.clock }));
    this.#worker = new QueueWorker<string>({
      clock: options.clock,
      rateLimiter,
      onError: (err) => options.onError(err),
      trace: { controller: 'namespace' },
      process: (name) => {
        try {
          deleter.delete(name);
        } catch (err) {
          if (!(err instanceof ResourcesRemainingError)) throw err;
          this.#worker.queue.addAfter(name, (Math.trunc(err.estimateSeconds / 2) + 1) * 1000);
        }
      },
    });
  }

  start(): void {
    const storage = this.#client.scope.storage;
    this.#unsubscribe = storage.subscribe(namespaceStore, (c) => {
      if (c.type !== 'DELETED') this.#enqueue(c.object.obj);
    });
    for (const s of storage.listAt(namespaceStore, storage.revision)) this.#enqueue(s.obj);
    this.#worker.start();
  }

  #enqueue(ns: Record<string, unknown>): void {
    const meta = metaOf(ns);
    if (meta.deletionTimestamp === undefined) return;
    this.#worker.queue.addAfter(String(meta.name), this.#graceMs);
  }

  async stop(): Promise<void> {
    this.#unsubscribe?.();
    await this.#worker.stop();
  }

  idle(): boolean {
    return this.#worker.idle();
  }
}
