/**
 * The TTL-after-finished controller (kubernetes/pkg/controller/ttlafterfinished/ttlafterfinished_controller.go):
 * a finished Job (Complete or Failed) with spec.ttlSecondsAfterFinished is deleted — in the foreground,
 * so its pods go first — once that many seconds passed since it finished (the condition's
 * lastTransitionTime). Before deleting it re-reads the Job live, as upstream does, so a TTL changed
 * meanwhile is honoured, and deletes with the uid as precondition.
 */
import type { Job } from '../../api/batch/v1.ts';
import { isNotFound } from '../../apimachinery/errors.ts';
import { objectKey } from '../../apimachinery/meta.ts';
import type { Controller } from '../../controller/controller.ts';
import { splitMetaNamespaceKey } from '../../tools/cache/key-functions.ts';
import type { Lister } from '../../tools/cache/lister.ts';
import type { Clock } from '../../util/clock/clock.ts';
import { newSyncController, type ControllerContext } from '../controller-context.ts';
import { timeMs } from '../controller-utils.ts';

/** When the Job finished, if it did (the Complete or Failed condition's transition time). */
function finishTime(job: Job): number | undefined {
  const c = job.status?.conditions?.find((x) => (x.type === 'Complete' || x.type === 'Failed') && x.status === 'True');
  if (c === undefined) return undefined;
  const t = timeMs(c.lastTransitionTime);
  return Number.isNaN(t) ? undefined : t;
}

/** Milliseconds until the Job expires (<= 0: expired); undefined when it has no TTL or has not finished. */
export function timeLeft(job: Job, nowMs: number): number | undefined {
  const ttl = job.spec?.ttlSecondsAfterFinished;
  if (ttl === undefined || ttl === null || job.metadata?.deletionTimestamp !== undefined) return undefined;
  const finished = finishTime(job);
  if (finished === undefined) return undefined;
  return finished + ttl * 1000 - nowMs;
}

/** The TTL-after-finished controller; see the file comment. */
export class TtlAfterFinishedController {
  /** The queue and its workers. */
  readonly controller: Controller;
  readonly #ctx: ControllerContext;
  readonly #clock: Clock;
  readonly #jobLister: Lister<Job>;

  constructor(ctx: ControllerContext, options: { workers?: number } = {}) {
    this.#ctx = ctx;
    this.#clock = ctx.clock;
    const jobs = ctx.informerFactory.batchV1().jobs();
    this.#jobLister = jobs.lister();
    this.controller = newSyncController(ctx, {
      name: 'ttl-after-finished',
      informers: [jobs.informer()],
      // kube-controller-manager's --concurrent-ttl-after-finished-syncs default.
      workers: options.workers ?? 5,
      reconcile: (key) => this.processJob(key),
    });
    const enqueue = (job: Job): void => {
      if (job.metadata?.deletionTimestamp === undefined && timeLeft(job, this.#clock.now()) !== undefined) this.controller.add(objectKey(job));
    };
    jobs.informer().addEventHandler({ onAdd: enqueue, onUpdate: (_old, job) => enqueue(job), onDelete: () => undefined });
  }

  /** Runs the workers until `signal` aborts (after the caches synced). */
  run(options: { signal: AbortSignal }): Promise<void> {
    return this.controller.run(options);
  }

  /** Deletes the Job `key` if it expired, else looks again when it will (processJob). */
  async processJob(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    let cached: Job;
    try {
      cached = this.#jobLister.namespace(namespace).get(name);
    } catch {
      return;
    }
    const left = timeLeft(cached, this.#clock.now());
    if (left === undefined) return;
    if (left > 0) {
      this.controller.addAfter(key, left);
      return;
    }
    const client = this.#ctx.client.batchV1().jobs(namespace);
    let fresh: Job;
    try {
      fresh = await client.get(name);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    const freshLeft = timeLeft(fresh, this.#clock.now());
    if (freshLeft === undefined) return;
    if (freshLeft > 0) {
      this.controller.addAfter(key, freshLeft);
      return;
    }
    try {
      await client.delete(name, { propagationPolicy: 'Foreground', preconditions: { uid: fresh.metadata?.uid ?? '' } });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}
