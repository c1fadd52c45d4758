/**
 * The ReplicaSet controller (kubernetes/pkg/controller/replicaset/replica_set.go and
 * replica_set_utils.go), written as kube-controller-manager writes it, on kubeloom's client-go layer:
 * shared informers for ReplicaSets and Pods and their listers, a rate-limited work queue drained by
 * workers, {@link UIDTrackingControllerExpectations} so a sync never acts on a cache that has not seen
 * the controller's own creates and deletes, and one {@link ReplicaSetController.syncReplicaSet} that
 * claims pods (adoption and release through {@link ControllerRefManager}), creates missing pods in
 * slow-start batches (at most 500 per sync) or deletes surplus ones in {@link comparePodsForDeletion}
 * order, and writes the status (replicas, fullyLabeledReplicas, readyReplicas, availableReplicas,
 * observedGeneration and the ReplicaFailure condition) through the status subresource.
 *
 * Left out: the ReplicationController variant (same code upstream, other types), the controller's
 * Prometheus metric of deletion ages (sortingDeletionAgeRatio) and the `terminatingReplicas` status
 * field (DeploymentReplicaSetTerminatingReplicas, alpha and off by default in the modelled version).
 */
import type { ReplicaSet, ReplicaSetCondition, ReplicaSetStatus } from '../../api/apps/v1.ts';
import type { Pod } from '../../api/core/v1.ts';
import { isNotFound } from '../../apimachinery/errors.ts';
import { labelSelectorAsSelector, selectorFromSet, type LabelSelector } from '../../apimachinery/labels.ts';
import { objectKey } from '../../apimachinery/meta.ts';
import type { Controller } from '../../controller/controller.ts';
import { objectOf } from '../../controller/enqueue.ts';
import { UIDTrackingControllerExpectations } from '../../controller/expectations.ts';
import type { DeletedFinalStateUnknown } from '../../tools/cache/key-functions.ts';
import { splitMetaNamespaceKey } from '../../tools/cache/key-functions.ts';
import type { Lister } from '../../tools/cache/lister.ts';
import type { Clock } from '../../util/clock/clock.ts';
import { newSyncController, recorderFor, withKind, type ControllerContext } from '../controller-context.ts';
import { ControllerRefManager, recheckDeletionTimestamp } from '../controller-ref-manager.ts';
import { createPodsWithExpectations, deletePodsWithExpectations, RealPodControl } from '../pod-control.ts';
import {
  comparePodsForDeletion,
  getControllerOf,
  getPodFromTemplate,
  isPodActive,
  isPodAvailable,
  isPodReady,
  newControllerRef,
  nowTime,
} from '../controller-utils.ts';

/** Upstream BurstReplicas: at most this many creates or deletes per sync. */
export const burstReplicas = 500;
// Upstream statusUpdateRetries: one retry after re-reading the ReplicaSet.
const statusUpdateRetries = 1;
// The ReplicaSet's GroupVersionKind, as its pods' controller references name it.
const rsApiVersion = 'apps/v1';
const rsKind = 'ReplicaSet';

/** Options of {@link ReplicaSetController}. */
export interface ReplicaSetControllerOptions {
  /** Concurrent syncs (default 5, kube-controller-manager's --concurrent-replicaset-syncs). */
  workers?: number;
  /** Creates or deletes per sync (default {@link burstReplicas}). */
  burstReplicas?: number;
}

/** ReplicaFailure's reasons (FailedCreate, FailedDelete), as upstream's event reasons. */
function replicaFailureCondition(reason: string, message: string, now: string): ReplicaSetCondition {
  return { type: 'ReplicaFailure', status: 'True', lastTransitionTime: now, reason, message };
}

/** `err` as an Error (what a rejected promise holds is not always one). */
function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/** The message of an error as Go's err.Error() would print it. */
function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The ReplicaSet controller; see the file comment. */
export class ReplicaSetController {
  /** The queue and its workers. */
  readonly controller: Controller;
  /** Pending creates and deletes per ReplicaSet key. */
  readonly expectations: UIDTrackingControllerExpectations;
  readonly #ctx: ControllerContext;
  readonly #clock: Clock;
  readonly #rsLister: Lister<ReplicaSet>;
  readonly #podLister: Lister<Pod>;
  readonly #podControl: RealPodControl;
  readonly #burst: number;

  constructor(ctx: ControllerContext, options: ReplicaSetControllerOptions = {}) {
    this.#ctx = ctx;
    this.#clock = ctx.clock;
    this.#burst = options.burstReplicas ?? burstReplicas;
    this.#podControl = new RealPodControl(ctx.client, recorderFor(ctx, 'replicaset-controller'));
    this.expectations = new UIDTrackingControllerExpectations({ clock: ctx.clock });
    const rsInformer = ctx.informerFactory.appsV1().replicaSets();
    const podInformer = ctx.informerFactory.coreV1().pods();
    this.#rsLister = rsInformer.lister();
    this.#podLister = podInformer.lister();
    this.controller = newSyncController(ctx, {
      name: 'replicaset',
      informers: [rsInformer.informer(), podInformer.informer()],
      workers: options.workers ?? 5,
      reconcile: (key) => this.syncReplicaSet(key),
    });
    rsInformer.informer().addEventHandler({
      onAdd: (rs) => this.#enqueue(rs),
      onUpdate: (_old, rs) => this.#enqueue(rs),
      onDelete: (obj) => this.#deleteRS(obj),
    });
    podInformer.informer().addEventHandler({
      onAdd: (pod) => this.#addPod(pod),
      onUpdate: (old, pod) => this.#updatePod(old, pod),
      onDelete: (obj) => this.#deletePod(obj),
    });
  }

  /** Runs the workers until `signal` aborts (after the caches synced). */
  run(options: { signal: AbortSignal }): Promise<void> {
    return this.controller.run(options);
  }

  #enqueue(rs: ReplicaSet): void {
    this.controller.add(objectKey(rs));
  }

  #deleteRS(obj: ReplicaSet | DeletedFinalStateUnknown<ReplicaSet>): void {
    const rs = objectOf(obj);
    const key = rs !== undefined ? objectKey(rs) : (obj as DeletedFinalStateUnknown<ReplicaSet>).key;
    this.expectations.deleteExpectations(key);
    this.controller.add(key);
  }

  /** The ReplicaSet a controller reference names, when the cache has it with that uid (resolveControllerRef). */
  #resolveControllerRef(namespace: string, ref: { kind: string; name: string; uid: string }): ReplicaSet | undefined {
    if (ref.kind !== rsKind) return undefined;
    let rs: ReplicaSet;
    try {
      rs = this.#rsLister.namespace(namespace).get(ref.name);
    } catch {
      return undefined;
    }
    return rs.metadata?.uid === ref.uid ? rs : undefined;
  }

  /** The ReplicaSets whose selector matches an orphan pod (getPodReplicaSets). */
  #podReplicaSets(pod: Pod): ReplicaSet[] {
    const labels = pod.metadata?.labels ?? {};
    if (Object.keys(labels).length === 0) return [];
    return this.#rsLister
      .namespace(pod.metadata?.namespace ?? '')
      .list()
      .filter((rs) => {
        const selector = safeSelector(rs);
        return selector !== undefined && !selector.empty() && selector.matches(labels);
      });
  }

  #addPod(pod: Pod): void {
    if (pod.metadata?.deletionTimestamp !== undefined) {
      // A pod seen first while being deleted (a restart of the controller): count it as a deletion.
      this.#deletePod(pod);
      return;
    }
    const ref = getControllerOf(pod);
    if (ref !== undefined) {
      const rs = this.#resolveControllerRef(pod.metadata?.namespace ?? '', ref);
      if (rs === undefined) return;
      const key = objectKey(rs);
      this.expectations.creationObserved(key);
      this.controller.add(key);
      return;
    }
    // An orphan: every ReplicaSet that could adopt it gets a look.
    for (const rs of this.#podReplicaSets(pod)) this.#enqueue(rs);
  }

  #updatePod(old: Pod, cur: Pod): void {
    if (old.metadata?.resourceVersion === cur.metadata?.resourceVersion) return;
    const labelsChanged = JSON.stringify(old.metadata?.labels ?? {}) !== JSON.stringify(cur.metadata?.labels ?? {});
    if (cur.metadata?.deletionTimestamp !== undefined) {
      // Marked for deletion: count it now, a kubelet may take its time to remove it.
      this.#deletePod(cur);
      if (labelsChanged) this.#deletePod(old);
      return;
    }
    const ns = cur.metadata?.namespace ?? '';
    const curRef = getControllerOf(cur);
    const oldRef = getControllerOf(old);
    const refChanged = curRef?.uid !== oldRef?.uid;
    if (refChanged && oldRef !== undefined) {
      const oldRs = this.#resolveControllerRef(ns, oldRef);
      if (oldRs !== undefined) this.#enqueue(oldRs);
    }
    if (curRef !== undefined) {
      const rs = this.#resolveControllerRef(ns, curRef);
      if (rs === undefined) return;
      this.#enqueue(rs);
      // Look again once the pod has been ready for minReadySeconds, so availableReplicas catches up.
      const minReady = rs.spec?.minReadySeconds ?? 0;
      if (!isPodReady(old) && isPodReady(cur) && minReady > 0) this.controller.addAfter(objectKey(rs), minReady * 1000 + 1000);
      return;
    }
    if (labelsChanged || refChanged) for (const rs of this.#podReplicaSets(cur)) this.#enqueue(rs);
  }

  #deletePod(obj: Pod | DeletedFinalStateUnknown<Pod>): void {
    const pod = objectOf(obj);
    if (pod === undefined) return;
    const ref = getControllerOf(pod);
    if (ref === undefined) return;
    const rs = this.#resolveControllerRef(pod.metadata?.namespace ?? '', ref);
    if (rs === undefined) return;
    const key = objectKey(rs);
    this.expectations.deletionObservedOf(key, objectKey(pod));
    this.controller.add(key);
  }

  /**
   * Brings the ReplicaSet `key` (`namespace/name`) to its replica count and writes its status
   * (syncReplicaSet). Exposed for tests.
   */
  async syncReplicaSet(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    let rs: ReplicaSet;
    try {
      rs = this.#rsLister.namespace(namespace).get(name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      this.expectations.deleteExpectations(key);
      return;
    }
    const needsSync = this.expectations.satisfiedExpectations(key);
    const selector = safeSelector(rs);
    if (selector === undefined) {
      // Upstream logs the conversion error and gives up on this ReplicaSet until it changes.
      return;
    }
    // Pods that finished or are being deleted do not count.
    const active = this.#podLister.namespace(namespace).list().filter(isPodActive);
    const pods = await this.#claimPods(rs, selector, active);

    let manageError: unknown;
    if (needsSync && rs.metadata?.deletionTimestamp === undefined) {
      try {
        await this.#manageReplicas(pods, rs);
      } catch (err) {
        manageError = err;
      }
    }
    const status = this.#calculateStatus(rs, pods, manageError);
    const updated = await this.#updateStatus(rs, status);
    const minReady = updated.spec?.minReadySeconds ?? 0;
    // Resync after minReadySeconds so pods that become available are counted (upstream does the same).
    if (manageError === undefined && minReady > 0 && updated.status?.readyReplicas === updated.spec?.replicas && updated.status?.availableReplicas !== updated.spec?.replicas) {
      this.controller.addAfter(key, minReady * 1000);
    }
    if (manageError !== undefined) throw asError(manageError);
  }

  async #claimPods(rs: ReplicaSet, selector: LabelSelector, pods: Pod[]): Promise<Pod[]> {
    const ns = rs.metadata?.namespace ?? '';
    const rsClient = this.#ctx.client.appsV1().replicaSets(ns);
    const manager = new ControllerRefManager<Pod>({
      controller: rs,
      apiVersion: rsApiVersion,
      kind: rsKind,
      selector,
      client: this.#ctx.client.coreV1().pods(ns),
      canAdopt: recheckDeletionTimestamp(() => rsClient.get(rs.metadata?.name ?? ''), rs, rsKind),
    });
    return manager.claim(pods);
  }

  /** The pods of other ReplicaSets with the same controller (a Deployment's), for the deletion ranking (getIndirectlyRelatedPods). */
  #indirectlyRelatedPods(rs: ReplicaSet): Pod[] {
    const owner = getControllerOf(rs);
    const ns = rs.metadata?.namespace ?? '';
    const siblings = owner === undefined ? [rs] : this.#rsLister.namespace(ns).list().filter((r) => getControllerOf(r)?.uid === owner.uid);
    const uids = new Set(siblings.map((r) => r.metadata?.uid ?? ''));
    return this.#podLister
      .namespace(ns)
      .list()
      .filter((p) => isPodActive(p) && uids.has(getControllerOf(p)?.uid ?? ''));
  }

  /** Of `pods`, the `count` to delete first (getPodsToDelete with getPodsRankedByRelatedPodsOnSameNode). */
  #podsToDelete(pods: Pod[], related: Pod[], count: number): Pod[] {
    if (count >= pods.length) return pods;
    const onNode = new Map<string, number>();
    for (const p of related) {
      const node = p.spec?.nodeName ?? '';
      if (node !== '') onNode.set(node, (onNode.get(node) ?? 0) + 1);
    }
    const rank = (p: Pod): number => onNode.get(p.spec?.nodeName ?? '') ?? 0;
    const now = this.#clock.now();
    return [...pods].sort((a, b) => comparePodsForDeletion(a, b, rank(a), rank(b), now)).slice(0, count);
  }

  /** Creates or deletes pods so that `pods.length` reaches spec.replicas (manageReplicas). */
  async #manageReplicas(pods: Pod[], rs: ReplicaSet): Promise<void> {
    const key = objectKey(rs);
    const namespace = rs.metadata?.namespace ?? '';
    const desired = rs.spec?.replicas ?? 1;
    const diff = pods.length - desired;
    const object = withKind(rs, rsApiVersion, rsKind);
    const { expectations } = this;
    const podControl = this.#podControl;
    if (diff < 0) {
      const ref = newControllerRef(rs, rsApiVersion, rsKind);
      const newPod = (): Pod => getPodFromTemplate(rs.spec?.template, rs.metadata?.name ?? '', ref);
      await createPodsWithExpectations({ podControl, expectations, key, count: Math.min(-diff, this.#burst), namespace, object, newPod });
      return;
    }
    if (diff > 0) {
      const count = Math.min(diff, this.#burst);
      const victims = this.#podsToDelete(pods, this.#indirectlyRelatedPods(rs), count);
      await deletePodsWithExpectations({ podControl, expectations, key, pods: victims, namespace, object });
    }
  }

  /** The status the pods show (calculateStatus). */
  #calculateStatus(rs: ReplicaSet, pods: Pod[], manageError: unknown): ReplicaSetStatus {
    const status: ReplicaSetStatus = structuredClone(rs.status ?? { replicas: 0 });
    const templateLabels = selectorFromSet(rs.spec?.template?.metadata?.labels ?? {});
    const minReady = rs.spec?.minReadySeconds ?? 0;
    const now = this.#clock.now();
    let fullyLabeled = 0;
    let ready = 0;
    let available = 0;
    for (const pod of pods) {
      if (templateLabels.matches(pod.metadata?.labels ?? {})) fullyLabeled++;
      if (isPodReady(pod)) {
        ready++;
        if (isPodAvailable(pod, minReady, now)) available++;
      }
    }
    const conditions = status.conditions ?? [];
    const failure = conditions.find((c) => c.type === 'ReplicaFailure');
    if (manageError !== undefined && failure === undefined) {
      const reason = pods.length - (rs.spec?.replicas ?? 1) < 0 ? 'FailedCreate' : 'FailedDelete';
      status.conditions = [...conditions.filter((c) => c.type !== 'ReplicaFailure'), replicaFailureCondition(reason, errorMessage(manageError), nowTime(this.#clock))];
    } else if (manageError === undefined && failure !== undefined) {
      status.conditions = conditions.filter((c) => c.type !== 'ReplicaFailure');
      if (status.conditions.length === 0) delete status.conditions;
    }
    status.replicas = pods.length;
    status.fullyLabeledReplicas = fullyLabeled;
    status.readyReplicas = ready;
    status.availableReplicas = available;
    return status;
  }

  /** Writes `status` unless nothing changed (updateReplicaSetStatus); returns the ReplicaSet as stored. */
  async #updateStatus(rs: ReplicaSet, status: ReplicaSetStatus): Promise<ReplicaSet> {
    const cur: Partial<ReplicaSetStatus> = rs.status ?? {};
    const generation = rs.metadata?.generation ?? 0;
    if (
      (cur.replicas ?? 0) === status.replicas &&
      (cur.fullyLabeledReplicas ?? 0) === status.fullyLabeledReplicas &&
      (cur.readyReplicas ?? 0) === status.readyReplicas &&
      (cur.availableReplicas ?? 0) === status.availableReplicas &&
      (cur.observedGeneration ?? 0) === generation &&
      JSON.stringify(cur.conditions ?? []) === JSON.stringify(status.conditions ?? [])
    ) {
      return rs;
    }
    const client = this.#ctx.client.appsV1().replicaSets(rs.metadata?.namespace ?? '');
    let target = rs;
    for (let attempt = 0; ; attempt++) {
      const next: ReplicaSet = { ...target, status: { ...status, observedGeneration: target.metadata?.generation ?? 0 } };
      try {
        return await client.updateStatus(next);
      } catch (err) {
        if (attempt >= statusUpdateRetries) throw err;
        // Re-read and try once more (a conflict with a spec change, usually).
        target = await client.get(rs.metadata?.name ?? '');
      }
    }
  }
}

/** The ReplicaSet's selector, undefined when it cannot be converted. */
function safeSelector(rs: ReplicaSet): LabelSelector | undefined {
  try {
    return labelSelectorAsSelector(rs.spec?.selector);
  } catch {
    return undefined;
  }
}
