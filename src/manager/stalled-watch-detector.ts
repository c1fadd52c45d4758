/**
 * The stalled-watch detector (kubeloom; neither client-go nor controller-runtime has one: a watch that
 * stays open but delivers nothing, behind a proxy or load balancer that stopped forwarding, leaves an
 * informer silently stale until its watch times out, and client-go relies on TCP keepalives there).
 *
 * Every informer of the manager's cache is checked periodically. A healthy server ends each watch at its
 * timeout and sends bookmarks meanwhile (kube-apiserver: about once a minute, and just before the
 * timeout), so an informer that saw no event, no bookmark, no watch ended by the server and no completed
 * list for longer than its watch's timeout plus a margin is stalled: the detector counts it in
 * `kubeloom_informer_stalled_watches_total{resource}`, logs it, and (unless told not to) makes the
 * informer relist at once, which also replaces what the stall may have hidden.
 *
 * The reflector has its own guard (its idle timeout resumes a silent watch from the last resourceVersion,
 * at the watch's timeout + 30 s, the watch continuing a watch-list included); the detector acts
 * first, reports the stall and relists rather than trusting a resume.
 */
import type { InformerCache } from '../cache/cache.ts';
import type { Logger } from '../tools/events/logger.ts';
import type { Clock } from '../util/clock/clock.ts';
import { asPromRegistry, promClient } from '../util/prometheus/prom-client.ts';
import type { PrometheusRegistry } from '../util/prometheus/registry.ts';
import { defaultMinWatchTimeoutMs } from '../tools/cache/reflector.ts';
import type { Runnable } from './runnable.ts';
import { RunnableGroup } from './runnable.ts';

/** Options of the stalled-watch detector (the Manager's `stalledWatchDetection`). */
export interface StalledWatchOptions {
  /**
   * Added to the watch timeout before a silent informer counts as stalled. Default 15,000 ms: with the
   * default check interval the detector sees a stall before the reflector's own idle guard (timeout +
   * 30 s) resumes the watch, so a stall is reported and relisted rather than silently resumed.
   */
  marginMs?: number;
  /** How often informers are checked. Default 5,000 ms. */
  checkIntervalMs?: number;
  /** Relist a stalled informer. Default true; false only reports (metric and log). */
  relist?: boolean;
}

/** One stall the detector saw. */
export interface StalledWatch {
  /** The informer's resource, as `/debug/controllers` names it. */
  readonly resource: string;
  /** Its namespace ('' = all). */
  readonly namespace: string;
  /** How long it had been silent when seen (ms). */
  readonly silentMs: number;
  /** When it was seen (the manager's clock). */
  readonly time: number;
}

// The margin over the watch timeout and the check period: together below the reflector's idle grace
// (defaultWatchIdleGraceMs, 30 s), so the detector acts first. Not upstream constants.
const defaultMarginMs = 15_000;
const defaultCheckIntervalMs = 5_000;

/** The detector: a runnable of the manager checking every informer of `cache` on `clock`. */
export class StalledWatchDetector implements Runnable {
  /** Runs beside the caches, on every replica. */
  readonly runnableGroup = RunnableGroup.Others;
  readonly #cache: InformerCache;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #marginMs: number;
  readonly #intervalMs: number;
  readonly #relist: boolean;
  readonly #count: ((resource: string) => void) | undefined;
  readonly #stalls: StalledWatch[] = [];
  // An informer is reported once per stall: again only after it made progress.
  readonly #reported = new Map<object, number | undefined>();

  constructor(cache: InformerCache, options: StalledWatchOptions & { clock: Clock; logger: Logger; registry?: PrometheusRegistry | undefined }) {
    this.#cache = cache;
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#marginMs = options.marginMs ?? defaultMarginMs;
    this.#intervalMs = options.checkIntervalMs ?? defaultCheckIntervalMs;
    this.#relist = options.relist ?? true;
    if (options.registry !== undefined) {
      const registry = options.registry;
      const { Counter } = promClient();
      const name = 'kubeloom_informer_stalled_watches_total';
      const c = (registry.getSingleMetric(name) as InstanceType<typeof Counter> | undefined) ?? new Counter({ name, help: 'Watches that delivered no event and no bookmark for longer than their timeout plus a margin, per resource.', labelNames: ['resource'], registers: [asPromRegistry(registry)] });
      this.#count = (resource) => c.inc({ resource });
    }
  }

  /** Not leader-only: every replica's informers can stall. */
  needLeaderElection(): boolean {
    return false;
  }

  /** The stalls seen so far, oldest first (at most 100). */
  stalls(): readonly StalledWatch[] {
    return this.#stalls;
  }

  /** Checks every informer once; returns the stalls found now. */
  check(): StalledWatch[] {
    const now = this.#clock.now();
    const found: StalledWatch[] = [];
    for (const { description, namespace, informer } of this.#cache.informerEntries()) {
      const stats = informer.reflectorStats();
      if (stats === undefined || stats.lastProgressTime === undefined) continue;
      // Between watches (a relist, a backoff) there is no timeout to go by: the longest one a reflector asks for.
      const timeoutMs = stats.watchTimeoutMs > 0 ? stats.watchTimeoutMs : 2 * defaultMinWatchTimeoutMs;
      const silentMs = now - stats.lastProgressTime;
      if (silentMs <= timeoutMs + this.#marginMs) continue;
      if (this.#reported.get(informer) === stats.lastProgressTime) continue;
      this.#reported.set(informer, stats.lastProgressTime);
      const stall: StalledWatch = { resource: description, namespace, silentMs, time: now };
      found.push(stall);
      this.#stalls.push(stall);
      if (this.#stalls.length > 100) this.#stalls.shift();
      this.#count?.(description);
      this.#logger.error('Watch stalled: no event and no bookmark for longer than the watch timeout', {
        resource: description,
        namespace,
        silentSeconds: silentMs / 1000,
        watchTimeoutSeconds: timeoutMs / 1000,
        relist: this.#relist,
      });
      if (this.#relist) informer.relist();
    }
    return found;
  }

  async start(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    const ticker = this.#clock.newTicker(this.#intervalMs, () => this.check());
    try {
      await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
    } finally {
      ticker.stop();
    }
  }
}
