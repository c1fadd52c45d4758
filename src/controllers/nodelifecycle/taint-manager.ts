/**
 * Taint-based eviction (kubernetes/pkg/controller/nodelifecycle/scheduler/taint_manager.go, the
 * NoExecuteTaintManager of v1.24, on when kube-controller-manager's --enable-taint-manager is, the default):
 * a pod bound to a node with NoExecute taints is deleted
 *
 * - at once when some taint is not tolerated;
 * - after the smallest `tolerationSeconds` of the tolerations used (one per taint, the first that
 *   tolerates it), counted from when the eviction was first scheduled — a later update never pushes an
 *   earlier deadline back;
 * - never when every used toleration has no `tolerationSeconds`.
 *
 * An eviction is cancelled when the taints go or the pod's tolerations change so that it no longer
 * applies. Events as upstream, on the pod, source `taint-controller`: Normal TaintManagerEviction
 * "Marking for deletion Pod ns/name" before the delete and "Cancelling deletion of Pod ns/name" when a
 * scheduled one is cancelled. The delete is a plain DELETE (the pod's own grace period; v1.24 adds no
 * DisruptionTarget condition, that came in 1.25), tried up to {@link retries} times.
 *
 * Where kubeloom differs: one queue and worker instead of upstream's per-node-hashed workers (same
 * order per node), and the timed evictions are timers on the injected clock (TimedWorkerQueue).
 */
import type { Node, ObjectReference, Pod, Taint, Toleration } from '../../api/core/v1.ts';
import { isNotFound } from '../../apimachinery/errors.ts';
import type { Controller } from '../../controller/controller.ts';
import { objectOf } from '../../controller/enqueue.ts';
import type { Lister } from '../../tools/cache/lister.ts';
import type { EventRecorder } from '../../tools/events/record/event.ts';
import type { Timer } from '../../util/clock/clock.ts';
import { newSyncController, recorderFor, type ControllerContext } from '../controller-context.ts';
import { toleratesTaint } from '../scheduling-helpers.ts';

/** retries (taint_manager.go): attempts of one pod deletion. */
export const retries = 5;

/** The NoExecute taints of a node (getNoExecuteTaints). */
export function getNoExecuteTaints(taints: readonly Taint[] | undefined): Taint[] {
  return (taints ?? []).filter((t) => t.effect === 'NoExecute');
}

/** What {@link getMatchingTolerations} finds. */
export interface MatchingTolerations {
  /** Whether every taint is tolerated. */
  allTolerated: boolean;
  /** For each taint, the first toleration that tolerates it (empty when not all are tolerated). */
  used: Toleration[];
}

/**
 * GetMatchingTolerations: whether every taint is tolerated, and for each taint the first toleration
 * that tolerates it.
 */
export function getMatchingTolerations(taints: readonly Taint[], tolerations: readonly Toleration[]): MatchingTolerations {
  if (taints.length === 0) return { allTolerated: true, used: [] };
  if (tolerations.length === 0) return { allTolerated: false, used: [] };
  const used: Toleration[] = [];
  for (const taint of taints) {
    const t = tolerations.find((x) => toleratesTaint(x, taint));
    if (t === undefined) return { allTolerated: false, used: [] };
    used.push(t);
  }
  return { allTolerated: true, used };
}

/**
 * getMinTolerationTime: the smallest tolerationSeconds of `tolerations` in ms, 0 when one is <= 0 or when
 * there are none, -1 (forever) when none has tolerationSeconds.
 */
export function getMinTolerationTime(tolerations: readonly Toleration[]): number {
  if (tolerations.length === 0) return 0;
  let min = Infinity;
  for (const t of tolerations) {
    if (t.tolerationSeconds === undefined || t.tolerationSeconds === null) continue;
    if (t.tolerationSeconds <= 0) return 0;
    min = Math.min(min, t.tolerationSeconds);
  }
  return min === Infinity ? -1 : min * 1000;
}

// A scheduled eviction (TimedWorker): when it was created and its timer.
interface TimedWorker {
  createdAt: number;
  fireAt: number;
  timer: Timer;
}

const podKey = (namespace: string, name: string): string => `${namespace}/${name}`;

/** The NoExecuteTaintManager; see the file comment. */
export class NoExecuteTaintManager {
  /** Node and pod updates (keys `node:<name>`, `pod:<ns>/<name>@<node>`) and their worker. */
  readonly controller: Controller;
  readonly #ctx: ControllerContext;
  readonly #recorder: EventRecorder;
  readonly #pods: Lister<Pod>;
  readonly #nodes: Lister<Node>;
  readonly #podsOnNode: (node: string) => Pod[];
  // taintedNodes: node → its NoExecute taints, as last seen.
  readonly #taintedNodes = new Map<string, Taint[]>();
  // taintEvictionQueue: pod key → its scheduled deletion.
  readonly #scheduled = new Map<string, TimedWorker>();
  readonly #deletions = new Set<Promise<void>>();
  #stopped = false;

  constructor(ctx: ControllerContext, podsOnNode: (node: string) => Pod[]) {
    this.#ctx = ctx;
    this.#recorder = recorderFor(ctx, 'taint-controller');
    this.#podsOnNode = podsOnNode;
    const pods = ctx.informerFactory.coreV1().pods();
    const nodes = ctx.informerFactory.coreV1().nodes();
    this.#pods = pods.lister();
    this.#nodes = nodes.lister();
    this.controller = newSyncController(ctx, {
      name: 'taint-manager',
      errorName: 'nodelifecycle',
      informers: [pods.informer(), nodes.informer()],
      workers: 1,
      reconcile: (key) => this.#sync(key),
    });
    // PodUpdated: only a change of node or tolerations matters.
    pods.informer().addEventHandler({
      onAdd: (p) => this.#podUpdated(undefined, p),
      onUpdate: (o, p) => this.#podUpdated(o, p),
      onDelete: (obj) => {
        const p = objectOf(obj);
        if (p !== undefined) this.#podUpdated(p, undefined);
      },
    });
    // NodeUpdated: only a change of NoExecute taints matters.
    const nodeUpdated = (o: Node | undefined, n: Node | undefined): void => {
      const name = n?.metadata?.name ?? o?.metadata?.name ?? '';
      if (o !== undefined && n !== undefined && JSON.stringify(getNoExecuteTaints(o.spec?.taints)) === JSON.stringify(getNoExecuteTaints(n.spec?.taints))) return;
      this.controller.add(`node:${name}`);
    };
    nodes.informer().addEventHandler({
      onAdd: (n) => nodeUpdated(undefined, n),
      onUpdate: (o, n) => nodeUpdated(o, n),
      onDelete: (obj) => {
        const n = objectOf(obj);
        if (n !== undefined) nodeUpdated(n, undefined);
      },
    });
  }

  /** Runs the worker until `signal` aborts; then cancels the scheduled evictions and waits for deletions in flight. */
  async run(options: { signal: AbortSignal }): Promise<void> {
    try {
      await this.controller.run(options);
    } finally {
      this.#stopped = true;
      for (const w of this.#scheduled.values()) w.timer.stop();
      this.#scheduled.clear();
      await Promise.all([...this.#deletions]);
    }
  }

  /** The pods whose deletion is scheduled, with when it fires (ms since the epoch); for tests and diagnostics. */
  scheduledEvictions(): Map<string, number> {
    return new Map([...this.#scheduled].map(([k, w]) => [k, w.fireAt]));
  }

  #podUpdated(oldPod: Pod | undefined, newPod: Pod | undefined): void {
    const oldNode = oldPod?.spec?.nodeName ?? '';
    const newNode = newPod?.spec?.nodeName ?? '';
    if (oldPod !== undefined && newPod !== undefined && oldNode === newNode && JSON.stringify(oldPod.spec?.tolerations ?? []) === JSON.stringify(newPod.spec?.tolerations ?? [])) return;
    const p = newPod ?? oldPod;
    const node = newPod !== undefined ? newNode : oldNode;
    this.controller.add(`pod:${podKey(p?.metadata?.namespace ?? '', p?.metadata?.name ?? '')}@${node}`);
  }

  async #sync(key: string): Promise<void> {
    if (key.startsWith('node:')) this.#handleNodeUpdate(key.slice('node:'.length));
    else if (key.startsWith('pod:')) {
      const at = key.lastIndexOf('@');
      this.#handlePodUpdate(key.slice('pod:'.length, at), key.slice(at + 1));
    }
    return Promise.resolve();
  }

  #handlePodUpdate(key: string, nodeName: string): void {
    const slash = key.indexOf('/');
    const [namespace, name] = [key.slice(0, slash), key.slice(slash + 1)];
    let pod: Pod;
    try {
      pod = this.#pods.namespace(namespace).get(name);
    } catch (err) {
      if (isNotFound(err)) {
        this.#cancelWorkWithEvent(namespace, name);
        return;
      }
      throw err;
    }
    // Keyed by node: an update queued for another node is not ours to process.
    if ((pod.spec?.nodeName ?? '') !== nodeName || nodeName === '') return;
    const taints = this.#taintedNodes.get(nodeName);
    if (taints === undefined) return;
    this.#processPodOnNode(namespace, name, pod.spec?.tolerations ?? [], taints, this.#ctx.clock.now());
  }

  #handleNodeUpdate(name: string): void {
    let node: Node;
    try {
      node = this.#nodes.get(name);
    } catch (err) {
      if (isNotFound(err)) {
        this.#taintedNodes.delete(name);
        return;
      }
      throw err;
    }
    const taints = getNoExecuteTaints(node.spec?.taints);
    if (taints.length === 0) this.#taintedNodes.delete(name);
    else this.#taintedNodes.set(name, taints);
    const pods = this.#podsOnNode(name);
    if (pods.length === 0) return;
    if (taints.length === 0) {
      for (const p of pods) this.#cancelWorkWithEvent(p.metadata?.namespace ?? '', p.metadata?.name ?? '');
      return;
    }
    const now = this.#ctx.clock.now();
    for (const p of pods) this.#processPodOnNode(p.metadata?.namespace ?? '', p.metadata?.name ?? '', p.spec?.tolerations ?? [], taints, now);
  }

  #processPodOnNode(namespace: string, name: string, tolerations: readonly Toleration[], taints: readonly Taint[], now: number): void {
    if (taints.length === 0) this.#cancelWorkWithEvent(namespace, name);
    const { allTolerated, used } = getMatchingTolerations(taints, tolerations);
    if (!allTolerated) {
      this.#cancelWorkWithEvent(namespace, name);
      this.#addWork(namespace, name, now, now);
      return;
    }
    const min = getMinTolerationTime(used);
    if (min < 0) {
      this.#cancelWorkWithEvent(namespace, name);
      return;
    }
    let startTime = now;
    const triggerTime = now + min;
    const scheduled = this.#scheduled.get(podKey(namespace, name));
    if (scheduled !== undefined) {
      startTime = scheduled.createdAt;
      if (startTime + min < triggerTime) return;
      this.#cancelWorkWithEvent(namespace, name);
    }
    this.#addWork(namespace, name, startTime, startTime + min);
  }

  // TimedWorkerQueue.AddWork: a timer firing at fireAt; a deletion already due starts at once (and, as
  // upstream's worker without a timer, cannot be cancelled). Refused when one is scheduled.
  #addWork(namespace: string, name: string, createdAt: number, fireAt: number): void {
    const key = podKey(namespace, name);
    if (this.#scheduled.has(key) || this.#stopped) return;
    const fire = (): void => {
      const deletion = this.#deletePod(namespace, name).finally(() => this.#deletions.delete(deletion));
      this.#deletions.add(deletion);
    };
    const delay = fireAt - this.#ctx.clock.now();
    if (delay <= 0) {
      fire();
      return;
    }
    const timer = this.#ctx.clock.afterFunc(delay, () => {
      this.#scheduled.delete(key);
      fire();
    });
    this.#scheduled.set(key, { createdAt, fireAt, timer });
  }

  #cancelWorkWithEvent(namespace: string, name: string): void {
    const key = podKey(namespace, name);
    const w = this.#scheduled.get(key);
    if (w === undefined) return;
    w.timer.stop();
    this.#scheduled.delete(key);
    this.#recorder.eventf(this.#ref(namespace, name), 'Normal', 'TaintManagerEviction', `Cancelling deletion of Pod ${key}`);
  }

  // The reference upstream builds from the name alone: the event's involvedObject carries no uid.
  #ref(namespace: string, name: string): ObjectReference {
    return { apiVersion: 'v1', kind: 'Pod', namespace, name };
  }

  // deletePodHandler: the event, then the DELETE, retried.
  async #deletePod(namespace: string, name: string): Promise<void> {
    this.#recorder.eventf(this.#ref(namespace, name), 'Normal', 'TaintManagerEviction', `Marking for deletion Pod ${podKey(namespace, name)}`);
    let last: unknown;
    for (let i = 0; i < retries; i++) {
      try {
        await this.#ctx.client.coreV1().pods(namespace).delete(name);
        return;
      } catch (err) {
        if (isNotFound(err)) return;
        last = err;
        // Upstream sleeps 10 ms between attempts.
        await this.#ctx.clock.sleep(10);
      }
    }
    this.#ctx.onError('nodelifecycle', last, podKey(namespace, name));
  }
}
