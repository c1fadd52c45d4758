/**
 * The pod garbage collector (kubernetes/pkg/controller/podgc/gc_controller.go, v1.24). Every
 * {@link gcCheckPeriodMs} (sliding, as wait.UntilWithContext) one pass over the informers' pods and nodes:
 *
 * - **terminated pods** beyond `terminatedPodThreshold` (`--terminated-pod-gc-threshold`, default 12500;
 *   0 or less disables it) are deleted, oldest first (creationTimestamp, then name). "Terminated" is
 *   upstream's isPodTerminated: any phase other than Pending, Running or Unknown — an empty phase included;
 * - **orphaned pods**, bound to a node that is neither in the node cache nor, after a quarantine of
 *   {@link quarantineTimeMs}, found by a live GET (the node names wait in a delaying queue, as upstream's
 *   `orphaned_pods_nodes`), are deleted;
 * - **unscheduled terminating pods** (deletionTimestamp set, no nodeName) are deleted.
 *
 * Every deletion is a force delete (gracePeriodSeconds 0, metav1.NewDeleteOptions(0)); a pass's deletions
 * run concurrently, as upstream's goroutines. Not kept: gcTerminating (pods terminating on a not-ready node
 * tainted node.kubernetes.io/out-of-service), behind the NodeOutOfServiceVolumeDetach gate that is alpha
 * and off in v1.24.
 */
import type { Node, Pod } from '../../api/core/v1.ts';
import { isNotFound } from '../../apimachinery/errors.ts';
import type { Controller } from '../../controller/controller.ts';
import type { Lister } from '../../tools/cache/lister.ts';
import { newSyncController, type ControllerContext } from '../controller-context.ts';
import { timeMs } from '../controller-utils.ts';

/** gcCheckPeriod (gc_controller.go): the pause between two passes. */
export const gcCheckPeriodMs = 20_000;
/** quarantineTime (gc_controller.go): how long a missing node waits before the live check. */
export const quarantineTimeMs = 40_000;
/** --terminated-pod-gc-threshold default (kube-controller-manager PodGCControllerConfiguration). */
export const defaultTerminatedPodThreshold = 12_500;

// The single key of the periodic pass.
const passKey = 'podgc';

/** Options of {@link PodGCController}. */
export interface PodGCOptions {
  /** Terminated pods kept before the oldest are deleted; <= 0 disables (default 12500). */
  terminatedPodThreshold?: number;
}

/** Upstream's isPodTerminated: any phase but Pending, Running and Unknown (an empty one included). */
export function isPodTerminated(pod: Pod): boolean {
  const phase = pod.status?.phase ?? '';
  return phase !== 'Pending' && phase !== 'Running' && phase !== 'Unknown';
}

/** byCreationTimestamp: oldest first (no timestamp: Go's zero time, the oldest), then by name. */
function byCreationTimestamp(a: Pod, b: Pod): number {
  const time = (p: Pod): number => {
    const t = timeMs(p.metadata?.creationTimestamp);
    return Number.isNaN(t) ? -Infinity : t;
  };
  const ta = time(a);
  const tb = time(b);
  if (ta !== tb) return ta < tb ? -1 : 1;
  const na = a.metadata?.name ?? '';
  const nb = b.metadata?.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/** The pod garbage collector; see the file comment. */
export class PodGCController {
  /** The queue of the periodic pass (one key) and its worker. */
  readonly controller: Controller;
  readonly #ctx: ControllerContext;
  readonly #podLister: Lister<Pod>;
  readonly #nodeLister: Lister<Node>;
  readonly #threshold: number;
  // orphaned_pods_nodes: node name → when it is due for the live check (the delaying queue keeps the
  // earliest time of repeated AddAfter calls).
  readonly #nodeQueue = new Map<string, number>();

  constructor(ctx: ControllerContext, options: PodGCOptions = {}) {
    this.#ctx = ctx;
    this.#threshold = options.terminatedPodThreshold ?? defaultTerminatedPodThreshold;
    const pods = ctx.informerFactory.coreV1().pods();
    const nodes = ctx.informerFactory.coreV1().nodes();
    this.#podLister = pods.lister();
    this.#nodeLister = nodes.lister();
    this.controller = newSyncController(ctx, {
      name: 'podgc',
      informers: [pods.informer(), nodes.informer()],
      workers: 1,
      reconcile: async () => {
        try {
          await this.gc();
        } finally {
          this.controller.addAfter(passKey, gcCheckPeriodMs);
        }
      },
    });
  }

  /** Runs the periodic pass until `signal` aborts (after the caches synced). */
  run(options: { signal: AbortSignal }): Promise<void> {
    this.controller.add(passKey);
    return this.controller.run(options);
  }

  /** One pass: terminated beyond the threshold, orphaned, then unscheduled terminating pods. */
  async gc(): Promise<void> {
    const pods = this.#podLister.list();
    const nodes = this.#nodeLister.list();
    if (this.#threshold > 0) await this.#gcTerminated(pods);
    await this.#gcOrphaned(pods, nodes);
    await this.#gcUnscheduledTerminating(pods);
  }

  async #deletePods(pods: readonly Pod[]): Promise<void> {
    await Promise.all(
      pods.map(async (pod) => {
        try {
          await this.#ctx.client.coreV1().pods(pod.metadata?.namespace ?? '').delete(pod.metadata?.name ?? '', { gracePeriodSeconds: 0 });
        } catch (err) {
          // utilruntime.HandleError: reported, and the next pass tries again.
          this.#ctx.onError('podgc', err, `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`);
        }
      }),
    );
  }

  async #gcTerminated(pods: readonly Pod[]): Promise<void> {
    const terminated = pods.filter(isPodTerminated);
    const deleteCount = terminated.length - this.#threshold;
    if (deleteCount <= 0) return;
    terminated.sort(byCreationTimestamp);
    await this.#deletePods(terminated.slice(0, deleteCount));
  }

  async #gcOrphaned(pods: readonly Pod[], nodes: readonly Node[]): Promise<void> {
    const existing = new Set(nodes.map((n) => n.metadata?.name ?? ''));
    const now = this.#ctx.clock.now();
    for (const pod of pods) {
      const node = pod.spec?.nodeName ?? '';
      if (node !== '' && !existing.has(node) && !this.#nodeQueue.has(node)) this.#nodeQueue.set(node, now + quarantineTimeMs);
    }
    // discoverDeletedNodes: the nodes whose quarantine is over, checked live unless the cache has them now.
    const deleted = new Set<string>();
    for (const [node, due] of [...this.#nodeQueue]) {
      if (due > now) continue;
      this.#nodeQueue.delete(node);
      if (existing.has(node)) continue;
      try {
        await this.#ctx.client.coreV1().nodes().get(node);
      } catch (err) {
        if (isNotFound(err)) deleted.add(node);
        else this.#ctx.onError('podgc', err, node);
      }
    }
    await this.#deletePods(pods.filter((p) => deleted.has(p.spec?.nodeName ?? '')));
  }

  async #gcUnscheduledTerminating(pods: readonly Pod[]): Promise<void> {
    await this.#deletePods(pods.filter((p) => p.metadata?.deletionTimestamp !== undefined && (p.spec?.nodeName ?? '') === ''));
  }
}
