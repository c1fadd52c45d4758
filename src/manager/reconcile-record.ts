/**
 * The recent reconciles of a controller, for `/debug/controllers` and the dashboard's timeline
 * (kubeloom; controller-runtime keeps only counters). A fixed-size ring: the newest
 * {@link defaultReconcileHistory} reconciles, each with its request, times, result and causes.
 */
import type { ReconcileCause } from '../reconcile/causes.ts';

/** How many reconciles a controller remembers. */
export const defaultReconcileHistory = 500;

/** One finished reconcile. */
export interface ReconcileRecord {
  /** A number unique within the process, in start order. */
  readonly id: number;
  /** The controller. */
  readonly controller: string;
  /** The request's key (`namespace/name`). */
  readonly key: string;
  /** Start, the controller's clock (ms since the epoch with the real clock). */
  readonly start: number;
  /** Duration in ms. */
  readonly durationMs: number;
  /** success, requeue_after or error (controller_runtime_reconcile_total's labels). */
  readonly result: 'success' | 'requeue_after' | 'error';
  /** The error's message, for errors. */
  readonly error?: string;
  /** Why it ran. */
  readonly causes: readonly ReconcileCause[];
  /** The trace id of its span, when tracing was on. */
  readonly traceId?: string;
}

/** A ring of the newest reconciles. */
export class ReconcileHistory {
  readonly #size: number;
  readonly #ring: ReconcileRecord[] = [];
  #next = 0;

  constructor(size = defaultReconcileHistory) {
    this.#size = size;
  }

  /** Adds a record, dropping the oldest past the size. */
  push(r: ReconcileRecord): void {
    if (this.#ring.length < this.#size) this.#ring.push(r);
    else this.#ring[this.#next] = r;
    this.#next = (this.#next + 1) % this.#size;
  }

  /** The records, oldest first, optionally only those with `id` greater than `afterId`. */
  list(afterId = -1): ReconcileRecord[] {
    const ordered = this.#ring.length < this.#size ? [...this.#ring] : [...this.#ring.slice(this.#next), ...this.#ring.slice(0, this.#next)];
    return afterId < 0 ? ordered : ordered.filter((r) => r.id > afterId);
  }
}
