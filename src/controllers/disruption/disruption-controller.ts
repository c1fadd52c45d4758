/**
 * The disruption controller (kubernetes/pkg/controller/disruption/disruption.go), written as
 * kube-controller-manager writes it, on kubeloom's client-go layer: shared informers for
 * PodDisruptionBudgets, Pods and the workloads that own pods, and one
 * {@link DisruptionController.syncPodDisruptionBudget} that writes the status the eviction API reads —
 * expectedPods, desiredHealthy, currentHealthy, disruptionsAllowed, observedGeneration, the
 * DisruptionAllowed condition (SufficientPods / InsufficientPods / SyncFailed) — and forgets
 * `disruptedPods` entries once their pods are gone or after two minutes (DeletionTimeout). A budget that
 * selects no pods gets a Normal `NoPods` event ("No matching pods found") on each sync, as upstream's.
 *
 * The expected count: the pods' number for an integer minAvailable; otherwise the scale of the pods'
 * controllers (ReplicaSets — or their Deployment — StatefulSets, ReplicationControllers), for maxUnavailable
 * and percentages (rounded up); pods without a controller count for neither (unmanagedPods). A pod that is Ready and not being deleted, and not recently evicted, is
 * healthy.
 *
 * Left out: controllers found through arbitrary scale subresources (custom resources), and
 * unhealthyPodEvictionPolicy (read by the eviction API, not here).
 */
import type { Deployment, ReplicaSet, StatefulSet } from '../../api/apps/v1.ts';
import type { Pod, ReplicationController } from '../../api/core/v1.ts';
import type { Condition } from '../../api/meta/v1.ts';
import type { PodDisruptionBudget, PodDisruptionBudgetStatus } from '../../api/policy/v1.ts';
import { isNotFound } from '../../apimachinery/errors.ts';
import { labelSelectorAsSelector } from '../../apimachinery/labels.ts';
import { objectKey } from '../../apimachinery/meta.ts';
import type { Controller } from '../../controller/controller.ts';
import { enqueueForObject, objectOf } from '../../controller/enqueue.ts';
import { splitMetaNamespaceKey } from '../../tools/cache/key-functions.ts';
import type { Lister } from '../../tools/cache/lister.ts';
import type { EventRecorder } from '../../tools/events/record/event.ts';
import type { Clock } from '../../util/clock/clock.ts';
import { newSyncController, recorderFor, withKind, type ControllerContext } from '../controller-context.ts';
import { canonicalJson, getControllerOf, isPodReady, nowTime, pruneZero, timeMs } from '../controller-utils.ts';
import { scaledValue } from '../deployment/deployment-util.ts';

/** Upstream DeletionTimeout: an evicted pod not deleted within this is healthy again. */
export const disruptedPodTimeoutMs = 2 * 60_000;

/** The disruption controller; see the file comment. */
export class DisruptionController {
  /** The queue and its workers. */
  readonly controller: Controller;
  readonly #ctx: ControllerContext;
  readonly #clock: Clock;
  readonly #pdbs: Lister<PodDisruptionBudget>;
  readonly #pods: Lister<Pod>;
  readonly #rss: Lister<ReplicaSet>;
  readonly #deployments: Lister<Deployment>;
  readonly #sets: Lister<StatefulSet>;
  readonly #rcs: Lister<ReplicationController>;
  readonly #recorder: EventRecorder;

  constructor(ctx: ControllerContext, options: { workers?: number } = {}) {
    this.#ctx = ctx;
    this.#clock = ctx.clock;
    this.#recorder = recorderFor(ctx, 'controllermanager');
    const f = ctx.informerFactory;
    const pdbs = f.policyV1().podDisruptionBudgets();
    const pods = f.coreV1().pods();
    const informers = [pdbs, pods, f.appsV1().replicaSets(), f.appsV1().deployments(), f.appsV1().statefulSets(), f.coreV1().replicationControllers()];
    this.#pdbs = pdbs.lister();
    this.#pods = pods.lister();
    this.#rss = f.appsV1().replicaSets().lister();
    this.#deployments = f.appsV1().deployments().lister();
    this.#sets = f.appsV1().statefulSets().lister();
    this.#rcs = f.coreV1().replicationControllers().lister();
    this.controller = newSyncController(ctx, {
      name: 'disruption',
      informers: informers.map((i) => i.informer()),
      workers: options.workers ?? 1,
      reconcile: (key) => this.syncPodDisruptionBudget(key),
    });
    pdbs.informer().addEventHandler(enqueueForObject(this.controller));
    const onPod = (pod: Pod | undefined): void => {
      if (pod === undefined) return;
      for (const pdb of this.#pdbsFor(pod)) this.controller.add(objectKey(pdb));
    };
    pods.informer().addEventHandler({ onAdd: onPod, onUpdate: (_o, p) => onPod(p), onDelete: (obj) => onPod(objectOf(obj)) });
    // A changed scale changes the expected count of every budget in the namespace.
    const onScale = (obj: { metadata?: { namespace?: string } } | undefined): void => {
      if (obj === undefined) return;
      for (const pdb of this.#pdbs.namespace(obj.metadata?.namespace ?? '').list()) this.controller.add(objectKey(pdb));
    };
    for (const i of informers.slice(2)) {
      (i.informer() as { addEventHandler(h: object): unknown }).addEventHandler({
        onAdd: (o: { metadata?: { namespace?: string } }) => onScale(o),
        onUpdate: (_o: unknown, n: { metadata?: { namespace?: string } }) => onScale(n),
        onDelete: (o: unknown) => onScale(objectOf(o as { metadata?: { namespace?: string } })),
      });
    }
  }

  /** Runs the workers until `signal` aborts (after the caches synced). */
  run(options: { signal: AbortSignal }): Promise<void> {
    return this.controller.run(options);
  }

  /** The budgets selecting a pod (getPdbForPod: upstream warns when there are several). */
  #pdbsFor(pod: Pod): PodDisruptionBudget[] {
    return this.#pdbs
      .namespace(pod.metadata?.namespace ?? '')
      .list()
      .filter((pdb) => {
        try {
          const s = labelSelectorAsSelector(pdb.spec?.selector);
          return s.matches(pod.metadata?.labels ?? {});
        } catch {
          return false;
        }
      });
  }

  /** The scale of the workload controlling `pod` (getExpectedScale's finders), undefined when none. */
  #scaleOf(pod: Pod): { uid: string; scale: number } | undefined {
    const ref = getControllerOf(pod);
    if (ref === undefined) return undefined;
    const ns = pod.metadata?.namespace ?? '';
    const get = <T extends { metadata?: { uid?: string } }>(lister: Lister<T>, name: string): T | undefined => {
      try {
        const o = lister.namespace(ns).get(name);
        return o;
      } catch {
        return undefined;
      }
    };
    if (ref.kind === 'ReplicaSet' && ref.apiVersion.startsWith('apps/')) {
      const rs = get(this.#rss, ref.name);
      if (rs === undefined || rs.metadata?.uid !== ref.uid) return undefined;
      const dRef = getControllerOf(rs);
      if (dRef?.kind === 'Deployment') {
        const d = get(this.#deployments, dRef.name);
        if (d !== undefined && d.metadata?.uid === dRef.uid) return { uid: d.metadata.uid ?? '', scale: d.spec?.replicas ?? 1 };
      }
      return { uid: rs.metadata.uid ?? '', scale: rs.spec?.replicas ?? 1 };
    }
    if (ref.kind === 'StatefulSet') {
      const s = get(this.#sets, ref.name);
      return s !== undefined && s.metadata?.uid === ref.uid ? { uid: ref.uid, scale: s.spec?.replicas ?? 1 } : undefined;
    }
    if (ref.kind === 'ReplicationController') {
      const rc = get(this.#rcs, ref.name);
      return rc !== undefined && rc.metadata?.uid === ref.uid ? { uid: ref.uid, scale: rc.spec?.replicas ?? 1 } : undefined;
    }
    return undefined;
  }

  /** Writes the budget's status (trySync). Exposed for tests. */
  async syncPodDisruptionBudget(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    let pdb: PodDisruptionBudget;
    try {
      pdb = structuredClone(this.#pdbs.namespace(namespace).get(name));
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    const now = this.#clock.now();
    const subject = withKind(pdb, 'policy/v1', 'PodDisruptionBudget');
    let pods: Pod[];
    try {
      const selector = labelSelectorAsSelector(pdb.spec?.selector);
      pods = this.#pods.namespace(namespace).list().filter((p) => selector.matches(p.metadata?.labels ?? {}));
    } catch {
      pods = [];
    }
    // Upstream reports a budget over no pods on every sync (the recorder aggregates the repeats).
    if (pods.length === 0) this.#recorder.eventf(subject, 'Normal', 'NoPods', 'No matching pods found');
    // Expected pods and the healthy ones wanted (getExpectedPodCount).
    let expected = 0;
    let desired = 0;
    let failure: string | undefined;
    const minAvailable = pdb.spec?.minAvailable;
    if (minAvailable !== undefined && typeof minAvailable === 'number') {
      expected = pods.length;
      desired = minAvailable;
    } else if (pdb.spec?.maxUnavailable !== undefined || minAvailable !== undefined) {
      const scales = new Map<string, number>();
      for (const pod of pods) {
        // Pods without a controller are left out of the expected count, not an error (upstream's
        // unmanagedPods, which it only logs).
        if (getControllerOf(pod) === undefined) continue;
        const s = this.#scaleOf(pod);
        if (s === undefined) {
          failure = `found no controllers for pod "${pod.metadata?.name ?? ''}"`;
          break;
        }
        scales.set(s.uid, s.scale);
      }
      expected = [...scales.values()].reduce((a, b) => a + b, 0);
      if (pdb.spec?.maxUnavailable !== undefined) desired = Math.max(0, expected - scaledValue(pdb.spec.maxUnavailable, expected, true));
      else desired = scaledValue(minAvailable, expected, true);
    }
    // Evictions not yet followed by a deletion keep their pods out of the healthy count for 2 minutes.
    const disrupted: Record<string, string> = {};
    for (const [podName, at] of Object.entries(pdb.status?.disruptedPods ?? {})) {
      const pod = pods.find((p) => p.metadata?.name === podName);
      if (pod === undefined || pod.metadata?.deletionTimestamp !== undefined) continue;
      if (timeMs(at) + disruptedPodTimeoutMs < now) continue;
      disrupted[podName] = at;
    }
    const healthy = pods.filter((p) => p.metadata?.deletionTimestamp === undefined && isPodReady(p) && disrupted[p.metadata?.name ?? ''] === undefined).length;
    let allowed = healthy - desired;
    if (expected <= 0 || allowed <= 0) allowed = 0;
    const status: PodDisruptionBudgetStatus = {
      ...pdb.status,
      observedGeneration: pdb.metadata?.generation ?? 0,
      currentHealthy: failure === undefined ? healthy : 0,
      desiredHealthy: failure === undefined ? desired : 0,
      expectedPods: failure === undefined ? expected : 0,
      disruptionsAllowed: failure === undefined ? allowed : 0,
      disruptedPods: disrupted,
    };
    if (Object.keys(disrupted).length === 0) delete status.disruptedPods;
    const condition: Condition =
      failure !== undefined
        ? { type: 'DisruptionAllowed', status: 'False', reason: 'SyncFailed', message: failure, lastTransitionTime: nowTime(this.#clock), observedGeneration: pdb.metadata?.generation ?? 0 }
        : { type: 'DisruptionAllowed', status: allowed > 0 ? 'True' : 'False', reason: allowed > 0 ? 'SufficientPods' : 'InsufficientPods', message: '', lastTransitionTime: nowTime(this.#clock), observedGeneration: pdb.metadata?.generation ?? 0 };
    const current = pdb.status?.conditions?.find((c) => c.type === 'DisruptionAllowed');
    if (current !== undefined && current.status === condition.status) condition.lastTransitionTime = current.lastTransitionTime;
    status.conditions = [...(pdb.status?.conditions ?? []).filter((c) => c.type !== 'DisruptionAllowed'), condition];
    if (failure !== undefined) this.#recorder.eventf(subject, 'Warning', 'CalculateExpectedPodCountFailed', `Failed to calculate the number of expected pods: ${failure}`);
    if (canonicalJson(pruneZero(status)) !== canonicalJson(pruneZero(pdb.status ?? {}))) await this.#ctx.client.policyV1().podDisruptionBudgets(namespace).updateStatus({ ...pdb, status });
    // Look again when the oldest remembered eviction expires.
    const expiries = Object.values(disrupted).map((t) => timeMs(t) + disruptedPodTimeoutMs - now);
    if (expiries.length > 0) this.controller.addAfter(key, Math.max(0, Math.min(...expiries)) + 1000);
  }
}
