/**
 * A simulated controller (controller-runtime pkg/internal/controller/controller.go over client-go's
 * workqueue, util/workqueue/queue.go): a deduplicating queue of keys (a key is never processed by two
 * workers at once; one added while it is processed is queued again once it is done), up to
 * `maxConcurrentReconciles` workers, `requeueAfterMs` through the virtual clock, and errors retried with
 * the per-item exponential backoff of client-go's default controller rate limiter (5 ms doubling up to
 * 1000 s; its overall 10 qps bucket is left out). Which worker picks which key next is a scheduled step, so
 * the seed interleaves reconciles with watch deliveries and responses.
 */
import type { KubeObject } from '../apimachinery/object.ts';
import type { Timer } from '../util/clock/clock.ts';
import { isTerminalError, requestFromKey, type ReconcileContext, type ReconcileFunc, type Reconciler, type Request } from '../reconcile/reconcile.ts';
import { noopLogger } from '../tools/events/logger.ts';
import type { EventRecorder } from '../tools/events/interfaces.ts';
import type { SimClient } from './client.ts';
import { keyOf, type SimKind } from './cluster.ts';
import type { SimEnv } from './env.ts';

/** What a simulated controller reconciles and watches (the builder's `for`, `owns`, `watches`). */
export interface SimControllerSpec {
  /** Unique name within its process. */
  name: string;
  /** The reconciled kind (builder `For`): its own events enqueue its key. */
  for: SimKind;
  /** Owned kinds (builder `Owns`): events enqueue the controller owner of the `for` kind. */
  owns?: SimKind[];
  /** Other watches (builder `Watches` with a map function). */
  watches?: {
    /** The watched kind. */
    kind: SimKind;
    /** The requests an event on an object of that kind enqueues. */
    map: (obj: KubeObject) => Request[];
  }[];
  /** The reconciler, as given to the builder. */
  reconcile: ReconcileFunc<SimClient> | Reconciler<SimClient>;
  /** Workers (controller.Options.MaxConcurrentReconciles). Default 1. */
  maxConcurrentReconciles?: number;
}

// client-go workqueue.DefaultTypedItemBasedRateLimiter: 5 ms base delay, 1000 s cap.
const baseDelayMs = 5;
const maxDelayMs = 1000_000;

const noopRecorder: EventRecorder = { eventf: () => undefined };

/** One controller of one process incarnation. */
export class SimController {
  readonly spec: SimControllerSpec;
  readonly #env: SimEnv;
  readonly #process: string;
  readonly #client: SimClient;
  // Invariant (client-go queue.go): a key is in #queue only if it is in #dirty and not in #processing.
  readonly #queue: string[] = [];
  readonly #dirty = new Set<string>();
  readonly #processing = new Set<string>();
  readonly #causes = new Map<string, string>();
  readonly #failures = new Map<string, number>();
  readonly #timers = new Set<Timer>();
  #dispatchPosted = 0;
  #started = false;
  #stopped = false;
  #abort = new AbortController();

  constructor(env: SimEnv, process: string, spec: SimControllerSpec, client: SimClient) {
    this.#env = env;
    this.#process = process;
    this.spec = spec;
    this.#client = client;
  }

  /** The controller's kinds: `for`, then owned, then watched. */
  kinds(): SimKind[] {
    return [this.spec.for, ...(this.spec.owns ?? []), ...(this.spec.watches ?? []).map((w) => w.kind)];
  }

  /** Maps an event of `kind` to keys and enqueues them (the builder's event handlers). */
  handle(kind: SimKind, obj: KubeObject, old: KubeObject | undefined, cause: string): void {
    const forKind = this.spec.for;
    if (kind === forKind) this.add(keyOf(forKind, obj.metadata?.namespace, obj.metadata?.name ?? ''), cause);
    if (this.spec.owns?.includes(kind) === true) {
      // handler.EnqueueRequestForOwner(OnlyControllerOwner): old and new owners both.
      for (const o of [old, obj]) {
        const ref = o?.metadata?.ownerReferences?.find((r) => r.controller === true);
        if (ref !== undefined && ref.kind === forKind.kind) this.add(keyOf(forKind, o?.metadata?.namespace, ref.name), cause);
      }
    }
    for (const w of this.spec.watches ?? []) {
      if (w.kind !== kind) continue;
      // The object is the informer's cache entry, shared with every reader: a map function that writes into
      // it makes the cache disagree with the server (client-go's cache mutation detector looks for this).
      const before = JSON.stringify(obj);
      const requests = w.map(obj);
      if (JSON.stringify(obj) !== before) {
        this.#env.fail('cachedObjectMutated', `${this.#process}/${this.spec.name}: the map function of its ${kind.resource} watch changed the cached object ${keyOf(kind, obj.metadata?.namespace, obj.metadata?.name ?? '')}; informer caches are shared: copy an object before changing it`);
      }
      for (const r of requests) this.add(keyOf(forKind, r.namespace, r.name), cause);
    }
  }

  /** Starts the workers (after the caches synced). */
  start(): void {
    this.#started = true;
    this.#pump();
  }

  /** Stops everything (a crash): queued keys, timers and in-flight reconciles are lost. */
  stop(): void {
    this.#stopped = true;
    this.#abort.abort(new Error('process crashed'));
    for (const t of this.#timers) t.stop();
    this.#timers.clear();
  }

  /** Queue.Add. */
  add(key: string, cause: string): void {
    if (this.#stopped || this.#dirty.has(key)) return;
    this.#dirty.add(key);
    this.#causes.set(key, cause);
    if (this.#processing.has(key)) return;
    this.#queue.push(key);
    this.#pump();
  }

  #addAfter(key: string, ms: number, cause: string): void {
    const t = this.#env.sched.clock.afterFunc(ms, () => {
      this.#timers.delete(t);
      this.add(key, cause);
    });
    this.#timers.add(t);
  }

  #pump(): void {
    if (!this.#started || this.#stopped) return;
    const workers = this.spec.maxConcurrentReconciles ?? 1;
    while (this.#dispatchPosted < this.#queue.length && this.#processing.size + this.#dispatchPosted < workers) {
      this.#dispatchPosted++;
      this.#env.sched.post(`${this.#process}/${this.spec.name}/dispatch/${this.#env.calls++}`, `dispatch ${this.#process}/${this.spec.name}`, () => this.#dispatch());
    }
  }

  #dispatch(): void {
    this.#dispatchPosted--;
    if (this.#stopped) return;
    const key = this.#queue.shift();
    if (key === undefined) return;
    if (this.#processing.has(key)) this.#env.fail('noConcurrentReconcileOfKey', `${this.spec.name} started ${key} while another worker reconciles it`);
    this.#dirty.delete(key);
    this.#processing.add(key);
    void this.#reconcile(key);
  }

  async #reconcile(key: string): Promise<void> {
    const { sched } = this.#env;
    const name = `${this.#process}/${this.spec.name}`;
    this.#env.reconciles++;
    this.#env.activity();
    const countKey = `${name} ${key}`;
    this.#env.reconcileCounts.set(countKey, (this.#env.reconcileCounts.get(countKey) ?? 0) + 1);
    sched.log(`RECONCILE ${name} ${key} start (cause: ${this.#causes.get(key) ?? '?'})`);
    const ctx: ReconcileContext<SimClient> = { signal: this.#abort.signal, logger: noopLogger, client: this.#client, recorder: noopRecorder, controllerName: this.spec.name };
    const req = requestFromKey(key);
    const r = this.spec.reconcile;
    try {
      const result = await (typeof r === 'function' ? r(req, ctx) : r.reconcile(req, ctx));
      if (this.#stopped) return;
      this.#failures.delete(key);
      const after = result === undefined ? undefined : result.requeueAfterMs;
      sched.log(`RECONCILE ${name} ${key} done${after === undefined ? '' : ` (requeue after ${after}ms)`}`);
      if (after !== undefined) this.#addAfter(key, after, 'requeueAfter');
    } catch (err) {
      if (this.#stopped) return;
      const msg = err instanceof Error ? err.message : String(err);
      if (isTerminalError(err)) {
        sched.log(`RECONCILE ${name} ${key} terminal error: ${msg}`);
      } else {
        const n = this.#failures.get(key) ?? 0;
        this.#failures.set(key, n + 1);
        const delay = Math.min(maxDelayMs, baseDelayMs * 2 ** n);
        sched.log(`RECONCILE ${name} ${key} error: ${msg} (retry in ${delay}ms)`);
        this.#addAfter(key, delay, `retry after error`);
      }
    } finally {
      if (!this.#stopped) {
        this.#processing.delete(key);
        if (this.#dirty.has(key)) this.#queue.push(key);
        this.#pump();
      }
    }
  }
}
