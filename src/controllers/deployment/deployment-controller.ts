/**
 * The Deployment controller (kubernetes/pkg/controller/deployment: deployment_controller.go, sync.go,
 * rolling.go, recreate.go, progress.go), written as kube-controller-manager writes it, on kubeloom's
 * client-go layer: shared informers for Deployments, ReplicaSets and Pods, a rate-limited queue, and one
 * {@link DeploymentController.syncDeployment} that claims ReplicaSets (adoption and release through
 * {@link ControllerRefManager}), finds or creates the new ReplicaSet (named `<deployment>-<pod-template-hash>`,
 * the hash label added to its selector and template), and then, in upstream's order: status only while
 * the Deployment is being deleted; the Paused/Resumed Progressing condition; scaling only when paused or
 * when spec.replicas changed mid-rollout (proportional scaling); otherwise a Recreate or RollingUpdate
 * step (maxSurge/maxUnavailable), cleanup of old ReplicaSets beyond revisionHistoryLimit once complete,
 * and the status with its Available and Progressing conditions and the progress deadline.
 *
 * Rollback is what kubectl does today: `kubectl rollout undo` writes an old ReplicaSet's template back
 * into the Deployment, which makes that ReplicaSet the new one again (its revision moves up and the old
 * number goes to the revision-history annotation). The extensions/v1beta1 `rollbackTo` field is gone from
 * apps/v1 and is not handled.
 *
 * Differences: events are in the newer upstream wording ("Scaled up replica set web-x from 0 to 3";
 * v1.24 says "Scaled up replica set web-x to 3"); `terminatingReplicas` is not reported (alpha upstream).
 */
import type { Deployment, DeploymentStatus, ReplicaSet } from '../../api/apps/v1.ts';
import type { Pod } from '../../api/core/v1.ts';
import { isAlreadyExists, isNotFound } from '../../apimachinery/errors.ts';
import { labelSelectorAsSelector, type LabelSelector } from '../../apimachinery/labels.ts';
import { objectKey } from '../../apimachinery/meta.ts';
import type { Controller } from '../../controller/controller.ts';
import { objectOf } from '../../controller/enqueue.ts';
import type { DeletedFinalStateUnknown } from '../../tools/cache/key-functions.ts';
import { splitMetaNamespaceKey } from '../../tools/cache/key-functions.ts';
import type { Lister } from '../../tools/cache/lister.ts';
import type { EventRecorder } from '../../tools/events/record/event.ts';
import type { Clock } from '../../util/clock/clock.ts';
import { newSyncController, recorderFor, withKind, type ControllerContext } from '../controller-context.ts';
import { ControllerRefManager, recheckDeletionTimestamp } from '../controller-ref-manager.ts';
import { canonicalJson, getControllerOf, hasStatusCause, newControllerRef, nowTime, podTemplateHash, pruneZero, timeMs } from '../controller-utils.ts';
import {
  activeReplicaSets,
  byCreationTimestamp,
  byRevision,
  bySizeNewer,
  bySizeOlder,
  deploymentComplete,
  DeploymentReason,
  deploymentProgressing,
  deploymentTimedOut,
  desiredReplicasOf,
  equalIgnoreHash,
  findActiveOrLatest,
  findNewReplicaSet,
  findOldReplicaSets,
  getDeploymentCondition,
  hasProgressDeadline,
  isRollingUpdate,
  isSaturated,
  maxRevision,
  maxSurge,
  maxUnavailable,
  newDeploymentCondition,
  newRSNewReplicas,
  podTemplateHashLabel,
  proportion,
  removeDeploymentCondition,
  replicaSetToDeploymentCondition,
  replicasAnnotationsNeedUpdate,
  replicasOf,
  revisionAnnotation,
  setDeploymentCondition,
  setDeploymentRevision,
  setNewReplicaSetAnnotations,
  setReplicasAnnotations,
  specReplicas,
  statusReplicas,
} from './deployment-util.ts';

const dApiVersion = 'apps/v1';
const dKind = 'Deployment';

/** Options of {@link DeploymentController}. */
export interface DeploymentControllerOptions {
  /** Concurrent syncs (default 5, kube-controller-manager's --concurrent-deployment-syncs). */
  workers?: number;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The Deployment controller; see the file comment. */
export class DeploymentController {
  /** The queue and its workers. */
  readonly controller: Controller;
  readonly #ctx: ControllerContext;
  readonly #clock: Clock;
  readonly #dLister: Lister<Deployment>;
  readonly #rsLister: Lister<ReplicaSet>;
  readonly #podLister: Lister<Pod>;
  readonly #recorder: EventRecorder;

  constructor(ctx: ControllerContext, options: DeploymentControllerOptions = {}) {
    this.#ctx = ctx;
    this.#clock = ctx.clock;
    this.#recorder = recorderFor(ctx, 'deployment-controller');
    const dInformer = ctx.informerFactory.appsV1().deployments();
    const rsInformer = ctx.informerFactory.appsV1().replicaSets();
    const podInformer = ctx.informerFactory.coreV1().pods();
    this.#dLister = dInformer.lister();
    this.#rsLister = rsInformer.lister();
    this.#podLister = podInformer.lister();
    this.controller = newSyncController(ctx, {
      name: 'deployment',
      informers: [dInformer.informer(), rsInformer.informer(), podInformer.informer()],
      workers: options.workers ?? 5,
      reconcile: (key) => this.syncDeployment(key),
    });
    dInformer.informer().addEventHandler({
      onAdd: (d) => this.#enqueue(d),
      onUpdate: (_old, d) => this.#enqueue(d),
      onDelete: (obj) => {
        const d = objectOf(obj);
        this.controller.add(d !== undefined ? objectKey(d) : (obj as DeletedFinalStateUnknown<Deployment>).key);
      },
    });
    rsInformer.informer().addEventHandler({
      onAdd: (rs) => this.#addReplicaSet(rs),
      onUpdate: (old, rs) => this.#updateReplicaSet(old, rs),
      onDelete: (obj) => this.#deleteReplicaSet(obj),
    });
    podInformer.informer().addEventHandler({ onDelete: (obj) => this.#deletePod(obj) });
  }

  /** Runs the workers until `signal` aborts (after the caches synced). */
  run(options: { signal: AbortSignal }): Promise<void> {
    return this.controller.run(options);
  }

  #enqueue(d: Deployment): void {
    this.controller.add(objectKey(d));
  }

  #resolveControllerRef(namespace: string, ref: { kind: string; name: string; uid: string }): Deployment | undefined {
    if (ref.kind !== dKind) return undefined;
    let d: Deployment;
    try {
      d = this.#dLister.namespace(namespace).get(ref.name);
    } catch {
      return undefined;
    }
    return d.metadata?.uid === ref.uid ? d : undefined;
  }

  /** Deployments whose selector matches an orphan ReplicaSet (getDeploymentsForReplicaSet). */
  #deploymentsForReplicaSet(rs: ReplicaSet): Deployment[] {
    const labels = rs.metadata?.labels ?? {};
    if (Object.keys(labels).length === 0) return [];
    return this.#dLister
      .namespace(rs.metadata?.namespace ?? '')
      .list()
      .filter((d) => {
        const s = safeSelector(d);
        return s !== undefined && !s.empty() && s.matches(labels);
      });
  }

  #addReplicaSet(rs: ReplicaSet): void {
    if (rs.metadata?.deletionTimestamp !== undefined) {
      this.#deleteReplicaSet(rs);
      return;
    }
    const ref = getControllerOf(rs);
    if (ref !== undefined) {
      const d = this.#resolveControllerRef(rs.metadata?.namespace ?? '', ref);
      if (d !== undefined) this.#enqueue(d);
      return;
    }
    for (const d of this.#deploymentsForReplicaSet(rs)) this.#enqueue(d);
  }

  #updateReplicaSet(old: ReplicaSet, cur: ReplicaSet): void {
    if (old.metadata?.resourceVersion === cur.metadata?.resourceVersion) return;
    const ns = cur.metadata?.namespace ?? '';
    const curRef = getControllerOf(cur);
    const oldRef = getControllerOf(old);
    const refChanged = curRef?.uid !== oldRef?.uid;
    if (refChanged && oldRef !== undefined) {
      const d = this.#resolveControllerRef(ns, oldRef);
      if (d !== undefined) this.#enqueue(d);
    }
    if (curRef !== undefined) {
      const d = this.#resolveControllerRef(ns, curRef);
      if (d !== undefined) this.#enqueue(d);
      return;
    }
    const labelsChanged = JSON.stringify(old.metadata?.labels ?? {}) !== JSON.stringify(cur.metadata?.labels ?? {});
    if (labelsChanged || refChanged) for (const d of this.#deploymentsForReplicaSet(cur)) this.#enqueue(d);
  }

  #deleteReplicaSet(obj: ReplicaSet | DeletedFinalStateUnknown<ReplicaSet>): void {
    const rs = objectOf(obj);
    if (rs === undefined) return;
    const ref = getControllerOf(rs);
    if (ref === undefined) return;
    const d = this.#resolveControllerRef(rs.metadata?.namespace ?? '', ref);
    if (d !== undefined) this.#enqueue(d);
  }

  /** A Recreate Deployment waits for its old pods to go: the last one gone wakes it (deletePod). */
  #deletePod(obj: Pod | DeletedFinalStateUnknown<Pod>): void {
    const pod = objectOf(obj);
    if (pod === undefined) return;
    const ns = pod.metadata?.namespace ?? '';
    const rsRef = getControllerOf(pod);
    if (rsRef === undefined || rsRef.kind !== 'ReplicaSet') return;
    let rs: ReplicaSet;
    try {
      rs = this.#rsLister.namespace(ns).get(rsRef.name);
    } catch {
      return;
    }
    const dRef = getControllerOf(rs);
    if (rs.metadata?.uid !== rsRef.uid || dRef === undefined) return;
    const d = this.#resolveControllerRef(ns, dRef);
    if (d === undefined || d.spec?.strategy?.type !== 'Recreate') return;
    const rsList = this.#ownedReplicaSets(d);
    const podMap = this.#podMap(d, rsList);
    const remaining = [...podMap.values()].reduce((n, pods) => n + pods.length, 0);
    if (remaining === 0) this.#enqueue(d);
  }

  /** The ReplicaSets in the cache this Deployment controls (no adoption). */
  #ownedReplicaSets(d: Deployment): ReplicaSet[] {
    const uid = d.metadata?.uid;
    return this.#rsLister
      .namespace(d.metadata?.namespace ?? '')
      .list()
      .filter((rs) => getControllerOf(rs)?.uid === uid);
  }

  /** Pods matching the Deployment, grouped by the ReplicaSet of `rsList` controlling them (getPodMapForDeployment). */
  #podMap(d: Deployment, rsList: readonly ReplicaSet[]): Map<string, Pod[]> {
    const map = new Map<string, Pod[]>(rsList.map((rs) => [rs.metadata?.uid ?? '', []]));
    const selector = safeSelector(d);
    if (selector === undefined) return map;
    for (const pod of this.#podLister.namespace(d.metadata?.namespace ?? '').list(selector)) {
      const ref = getControllerOf(pod);
      if (ref === undefined) continue;
      map.get(ref.uid)?.push(pod);
    }
    return map;
  }

  /** Brings the Deployment `key` one step towards its spec (syncDeployment). Exposed for tests. */
  async syncDeployment(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    let cached: Deployment;
    try {
      cached = this.#dLister.namespace(namespace).get(name);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    const d = structuredClone(cached);
    const selectorSpec = d.spec?.selector;
    if (selectorSpec !== undefined && Object.keys(selectorSpec.matchLabels ?? {}).length === 0 && (selectorSpec.matchExpressions ?? []).length === 0) {
      this.#recorder.eventf(withKind(d, dApiVersion, dKind), 'Warning', 'SelectingAll', 'This deployment is selecting all pods. A non-empty selector is required.');
      if ((d.status?.observedGeneration ?? 0) < (d.metadata?.generation ?? 0)) {
        d.status = { ...d.status, observedGeneration: d.metadata?.generation ?? 0 };
        await this.#updateStatus(d);
      }
      return;
    }
    const selector = safeSelector(d);
    if (selector === undefined) return;
    const rsList = await this.#claimReplicaSets(d, selector);
    const podMap = this.#podMap(d, rsList);
    if (d.metadata?.deletionTimestamp !== undefined) {
      await this.#syncStatusOnly(d, rsList);
      return;
    }
    await this.#checkPausedConditions(d);
    if (d.spec?.paused === true) {
      await this.#sync(d, rsList);
      return;
    }
    if (await this.#isScalingEvent(d, rsList)) {
      await this.#sync(d, rsList);
      return;
    }
    if (d.spec?.strategy?.type === 'Recreate') await this.#rolloutRecreate(d, rsList, podMap);
    else await this.#rolloutRolling(d, rsList);
  }

  async #claimReplicaSets(d: Deployment, selector: LabelSelector): Promise<ReplicaSet[]> {
    const ns = d.metadata?.namespace ?? '';
    const dClient = this.#ctx.client.appsV1().deployments(ns);
    const manager = new ControllerRefManager<ReplicaSet>({
      controller: d,
      apiVersion: dApiVersion,
      kind: dKind,
      selector,
      client: this.#ctx.client.appsV1().replicaSets(ns),
      canAdopt: recheckDeletionTimestamp(() => dClient.get(d.metadata?.name ?? ''), d, dKind),
    });
    return manager.claim(this.#rsLister.namespace(ns).list());
  }

  async #updateStatus(d: Deployment): Promise<Deployment> {
    const updated = await this.#ctx.client.appsV1().deployments(d.metadata?.namespace ?? '').updateStatus(d);
    // Later steps of this sync work on what was written (resourceVersion included).
    d.metadata = updated.metadata;
    d.status = updated.status;
    return updated;
  }

  // ---- sync.go ----

  async #syncStatusOnly(d: Deployment, rsList: ReplicaSet[]): Promise<void> {
    const { newRS, oldRSs } = await this.#getAllReplicaSetsAndSyncRevision(d, rsList, false);
    await this.#syncDeploymentStatus([...oldRSs, newRS], newRS, d);
  }

  /** Scales, cleans up when paused, and writes the status (sync). */
  async #sync(d: Deployment, rsList: ReplicaSet[]): Promise<void> {
    const { newRS, oldRSs } = await this.#getAllReplicaSetsAndSyncRevision(d, rsList, false);
    await this.#scale(d, newRS, oldRSs);
    if (d.spec?.paused === true) await this.#cleanupDeployment(oldRSs, d);
    await this.#syncDeploymentStatus([...oldRSs, newRS], newRS, d);
  }

  async #checkPausedConditions(d: Deployment): Promise<void> {
    if (!hasProgressDeadline(d)) return;
    const cond = getDeploymentCondition(d.status, 'Progressing');
    if (cond?.reason === DeploymentReason.TimedOut) return;
    const pausedCondExists = cond?.reason === DeploymentReason.Paused;
    const status: DeploymentStatus = (d.status ??= {});
    const now = nowTime(this.#clock);
    if (d.spec?.paused === true && !pausedCondExists) {
      setDeploymentCondition(status, newDeploymentCondition('Progressing', 'Unknown', DeploymentReason.Paused, 'Deployment is paused', now));
    } else if (d.spec?.paused !== true && pausedCondExists) {
      setDeploymentCondition(status, newDeploymentCondition('Progressing', 'Unknown', DeploymentReason.Resumed, 'Deployment is resumed', now));
    } else {
      return;
    }
    await this.#updateStatus(d);
  }

  async #getAllReplicaSetsAndSyncRevision(d: Deployment, rsList: ReplicaSet[], create: boolean): Promise<{ newRS: ReplicaSet | undefined; oldRSs: ReplicaSet[] }> {
    const oldRSs = findOldReplicaSets(d, rsList);
    const newRS = await this.#getNewReplicaSet(d, rsList, oldRSs, create);
    return { newRS, oldRSs };
  }

  async #getNewReplicaSet(d: Deployment, rsList: ReplicaSet[], oldRSs: ReplicaSet[], create: boolean): Promise<ReplicaSet | undefined> {
    const ns = d.metadata?.namespace ?? '';
    const rsClient = this.#ctx.client.appsV1().replicaSets(ns);
    const existing = findNewReplicaSet(d, rsList);
    const newRevision = maxRevision(oldRSs) + 1;
    const now = nowTime(this.#clock);
    if (existing !== undefined) {
      const copy = structuredClone(existing);
      const annotationsUpdated = setNewReplicaSetAnnotations(d, copy, newRevision, true);
      const minReady = d.spec?.minReadySeconds ?? 0;
      if (annotationsUpdated || (copy.spec?.minReadySeconds ?? 0) !== minReady) {
        copy.spec = { ...copy.spec!, minReadySeconds: minReady };
        return rsClient.update(copy);
      }
      let needsUpdate = setDeploymentRevision(d, copy.metadata?.annotations?.[revisionAnnotation] ?? '');
      if (hasProgressDeadline(d) && getDeploymentCondition(d.status, 'Progressing') === undefined) {
        setDeploymentCondition((d.status ??= {}), newDeploymentCondition('Progressing', 'True', DeploymentReason.FoundNewRS, `Found new replica set "${copy.metadata?.name ?? ''}"`, now));
        needsUpdate = true;
      }
      if (needsUpdate) await this.#updateStatus(d);
      return copy;
    }
    if (!create) return undefined;

    const template = structuredClone(d.spec?.template ?? {});
    const hash = podTemplateHash(template, d.status?.collisionCount);
    template.metadata = { ...template.metadata, labels: { ...template.metadata?.labels, [podTemplateHashLabel]: hash } };
    const selector = structuredClone(d.spec?.selector ?? {});
    selector.matchLabels = { ...selector.matchLabels, [podTemplateHashLabel]: hash };
    const rsName = `${d.metadata?.name ?? ''}-${hash}`;
    const newRS: ReplicaSet = {
      metadata: { name: rsName, namespace: ns, ownerReferences: [newControllerRef(d, dApiVersion, dKind)], labels: { ...template.metadata.labels } },
      spec: { replicas: 0, minReadySeconds: d.spec?.minReadySeconds ?? 0, selector, template },
    };
    const newReplicas = newRSNewReplicas(d, [...oldRSs, newRS], newRS);
    newRS.spec!.replicas = newReplicas;
    setNewReplicaSetAnnotations(d, newRS, newRevision, false);
    let created: ReplicaSet;
    let alreadyExists = false;
    try {
      created = await rsClient.create(newRS);
    } catch (err) {
      if (isAlreadyExists(err)) {
        // As upstream's getNewReplicaSet: a ReplicaSet the cache has not seen yet (our own create, whose
        // watch event lags) is the lister's NotFound and a requeue, not a hash collision; counting it as
        // one would move to a new hash and create a second new ReplicaSet.
        const found = this.#rsLister.namespace(ns).get(rsName);
        if (getControllerOf(found)?.uid === d.metadata?.uid && equalIgnoreHash(d.spec?.template, found.spec?.template)) {
          created = found;
          alreadyExists = true;
        } else {
          // A hash collision: count it, so the next hash differs.
          const status: DeploymentStatus = (d.status ??= {});
          status.collisionCount = (status.collisionCount ?? 0) + 1;
          await this.#updateStatus(d);
          throw err;
        }
      } else if (hasStatusCause(err, 'NamespaceTerminating')) {
        throw err;
      } else {
        const msg = `Failed to create new replica set "${rsName}": ${errorMessage(err)}`;
        if (hasProgressDeadline(d)) {
          setDeploymentCondition((d.status ??= {}), newDeploymentCondition('Progressing', 'False', DeploymentReason.FailedRSCreate, msg, now));
          await this.#updateStatus(d).catch(() => undefined);
        }
        this.#recorder.eventf(withKind(d, dApiVersion, dKind), 'Warning', DeploymentReason.FailedRSCreate, msg);
        throw err;
      }
    }
    if (!alreadyExists && newReplicas > 0) {
      this.#recorder.eventf(withKind(d, dApiVersion, dKind), 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${created.metadata?.name ?? ''} from 0 to ${newReplicas}`);
    }
    let needsUpdate = setDeploymentRevision(d, String(newRevision));
    if (!alreadyExists && hasProgressDeadline(d)) {
      setDeploymentCondition((d.status ??= {}), newDeploymentCondition('Progressing', 'True', DeploymentReason.NewRSCreated, `Created new replica set "${created.metadata?.name ?? ''}"`, now));
      needsUpdate = true;
    }
    if (needsUpdate) await this.#updateStatus(d);
    return created;
  }

  /** Scales ReplicaSets to the Deployment's replicas, proportionally mid-rollout (scale). */
  async #scale(d: Deployment, newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[]): Promise<void> {
    const replicas = replicasOf(d);
    const single = findActiveOrLatest(newRS, oldRSs);
    if (single !== undefined) {
      if (replicasOf(single) === replicas) return;
      await this.#scaleReplicaSetAndRecordEvent(single, replicas, d);
      return;
    }
    if (isSaturated(d, newRS)) {
      for (const old of activeReplicaSets(oldRSs)) await this.#scaleReplicaSetAndRecordEvent(old, 0, d);
      return;
    }
    if (!isRollingUpdate(d)) return;
    let all = activeReplicaSets([...oldRSs, newRS]);
    const current = specReplicas(all);
    const allowed = replicas > 0 ? replicas + maxSurge(d) : 0;
    const toAdd = allowed - current;
    let operation = '';
    if (toAdd > 0) {
      all = bySizeNewer(all);
      operation = 'up';
    } else if (toAdd < 0) {
      all = bySizeOlder(all);
      operation = 'down';
    }
    const sizes = new Map<string, number>();
    let added = 0;
    for (const rs of all) {
      const name = rs.metadata?.name ?? '';
      if (toAdd !== 0) {
        const p = proportion(rs, d, toAdd, added);
        sizes.set(name, replicasOf(rs) + p);
        added += p;
      } else sizes.set(name, replicasOf(rs));
    }
    for (let i = 0; i < all.length; i++) {
      const rs = all[i]!;
      const name = rs.metadata?.name ?? '';
      if (i === 0 && toAdd !== 0) sizes.set(name, Math.max(0, sizes.get(name)! + toAdd - added));
      await this.#scaleReplicaSet(rs, sizes.get(name)!, d, operation);
    }
  }

  async #scaleReplicaSetAndRecordEvent(rs: ReplicaSet, newScale: number, d: Deployment): Promise<{ scaled: boolean; rs: ReplicaSet }> {
    if (replicasOf(rs) === newScale) return { scaled: false, rs };
    return this.#scaleReplicaSet(rs, newScale, d, replicasOf(rs) < newScale ? 'up' : 'down');
  }

  async #scaleReplicaSet(rs: ReplicaSet, newScale: number, d: Deployment, operation: string): Promise<{ scaled: boolean; rs: ReplicaSet }> {
    const sizeNeedsUpdate = replicasOf(rs) !== newScale;
    const max = replicasOf(d) + maxSurge(d);
    if (!sizeNeedsUpdate && !replicasAnnotationsNeedUpdate(rs, replicasOf(d), max)) return { scaled: false, rs };
    const oldScale = replicasOf(rs);
    const copy = structuredClone(rs);
    copy.spec = { ...copy.spec!, replicas: newScale };
    setReplicasAnnotations(copy, replicasOf(d), max);
    const updated = await this.#ctx.client.appsV1().replicaSets(rs.metadata?.namespace ?? '').update(copy);
    if (sizeNeedsUpdate) {
      this.#recorder.eventf(withKind(d, dApiVersion, dKind), 'Normal', 'ScalingReplicaSet', `Scaled ${operation} replica set ${updated.metadata?.name ?? ''} from ${oldScale} to ${newScale}`);
    }
    return { scaled: sizeNeedsUpdate, rs: updated };
  }

  /** Deletes old, empty ReplicaSets beyond revisionHistoryLimit, lowest revision first (cleanupDeployment). */
  async #cleanupDeployment(oldRSs: ReplicaSet[], d: Deployment): Promise<void> {
    const limit = d.spec?.revisionHistoryLimit;
    if (limit === undefined) return;
    const cleanable = oldRSs.filter((rs) => rs.metadata?.deletionTimestamp === undefined);
    const diff = cleanable.length - limit;
    if (diff <= 0) return;
    const client = this.#ctx.client.appsV1().replicaSets(d.metadata?.namespace ?? '');
    for (const rs of byRevision(cleanable).slice(0, diff)) {
      if ((rs.status?.replicas ?? 0) !== 0 || replicasOf(rs) !== 0 || (rs.metadata?.generation ?? 0) > (rs.status?.observedGeneration ?? 0) || rs.metadata?.deletionTimestamp !== undefined) continue;
      try {
        await client.delete(rs.metadata?.name ?? '');
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
  }

  /** The status the ReplicaSets show, with the Available condition (calculateStatus). */
  #calculateStatus(all: readonly (ReplicaSet | undefined)[], newRS: ReplicaSet | undefined, d: Deployment): DeploymentStatus {
    const available = statusReplicas(all, 'availableReplicas');
    const total = specReplicas(all);
    const status: DeploymentStatus = {
      observedGeneration: d.metadata?.generation ?? 0,
      replicas: statusReplicas(all, 'replicas'),
      updatedReplicas: statusReplicas([newRS], 'replicas'),
      readyReplicas: statusReplicas(all, 'readyReplicas'),
      availableReplicas: available,
      unavailableReplicas: Math.max(0, total - available),
      ...(d.status?.collisionCount === undefined ? {} : { collisionCount: d.status.collisionCount }),
      ...(d.status?.conditions === undefined ? {} : { conditions: d.status.conditions.map((c) => ({ ...c })) }),
    };
    const now = nowTime(this.#clock);
    if (available >= replicasOf(d) - maxUnavailable(d)) {
      setDeploymentCondition(status, newDeploymentCondition('Available', 'True', DeploymentReason.MinimumReplicasAvailable, 'Deployment has minimum availability.', now));
    } else {
      setDeploymentCondition(status, newDeploymentCondition('Available', 'False', DeploymentReason.MinimumReplicasUnavailable, 'Deployment does not have minimum availability.', now));
    }
    return status;
  }

  async #syncDeploymentStatus(all: readonly (ReplicaSet | undefined)[], newRS: ReplicaSet | undefined, d: Deployment): Promise<void> {
    const status = this.#calculateStatus(all, newRS, d);
    if (sameStatus(d.status, status)) return;
    d.status = status;
    await this.#updateStatus(d);
  }

  /** Whether spec.replicas changed since the active ReplicaSets were last scaled (isScalingEvent). */
  async #isScalingEvent(d: Deployment, rsList: ReplicaSet[]): Promise<boolean> {
    const { newRS, oldRSs } = await this.#getAllReplicaSetsAndSyncRevision(d, rsList, false);
    for (const rs of activeReplicaSets([...oldRSs, newRS])) {
      const desired = desiredReplicasOf(rs);
      if (desired !== undefined && desired !== replicasOf(d)) return true;
    }
    return false;
  }

  // ---- rolling.go ----

  async #rolloutRolling(d: Deployment, rsList: ReplicaSet[]): Promise<void> {
    const got = await this.#getAllReplicaSetsAndSyncRevision(d, rsList, true);
    const newRS = got.newRS!;
    const oldRSs = got.oldRSs;
    const all = [...oldRSs, newRS];
    const scaledUp = await this.#reconcileNewReplicaSet(all, newRS, d);
    if (scaledUp.scaled) {
      await this.#syncRolloutStatus([...oldRSs, scaledUp.rs], scaledUp.rs, d);
      return;
    }
    const scaledDown = await this.#reconcileOldReplicaSets(all, activeReplicaSets(oldRSs), newRS, d);
    if (scaledDown) {
      await this.#syncRolloutStatus(all, newRS, d);
      return;
    }
    if (deploymentComplete(d, d.status ?? {})) await this.#cleanupDeployment(oldRSs, d);
    await this.#syncRolloutStatus(all, newRS, d);
  }

  async #reconcileNewReplicaSet(all: ReplicaSet[], newRS: ReplicaSet, d: Deployment): Promise<{ scaled: boolean; rs: ReplicaSet }> {
    const replicas = replicasOf(d);
    if (replicasOf(newRS) === replicas) return { scaled: false, rs: newRS };
    if (replicasOf(newRS) > replicas) return this.#scaleReplicaSetAndRecordEvent(newRS, replicas, d);
    return this.#scaleReplicaSetAndRecordEvent(newRS, newRSNewReplicas(d, all, newRS), d);
  }

  async #reconcileOldReplicaSets(all: ReplicaSet[], oldRSs: ReplicaSet[], newRS: ReplicaSet, d: Deployment): Promise<boolean> {
    if (specReplicas(oldRSs) === 0) return false;
    const allPods = specReplicas(all);
    const minAvailable = replicasOf(d) - maxUnavailable(d);
    const newUnavailable = replicasOf(newRS) - (newRS.status?.availableReplicas ?? 0);
    const maxScaledDown = allPods - minAvailable - newUnavailable;
    if (maxScaledDown <= 0) return false;
    const cleaned = await this.#cleanupUnhealthyReplicas(oldRSs, d, maxScaledDown);
    const scaledDown = await this.#scaleDownOldReplicaSetsForRollingUpdate([...cleaned.oldRSs, newRS], cleaned.oldRSs, d);
    return cleaned.count + scaledDown > 0;
  }

  /** Scales old ReplicaSets down by their unavailable pods first, oldest first (cleanupUnhealthyReplicas). */
  async #cleanupUnhealthyReplicas(oldRSs: ReplicaSet[], d: Deployment, maxCleanup: number): Promise<{ oldRSs: ReplicaSet[]; count: number }> {
    const sorted = byCreationTimestamp(oldRSs);
    let total = 0;
    for (let i = 0; i < sorted.length; i++) {
      if (total >= maxCleanup) break;
      const rs = sorted[i]!;
      const available = rs.status?.availableReplicas ?? 0;
      if (replicasOf(rs) === 0 || replicasOf(rs) === available) continue;
      const count = Math.min(maxCleanup - total, replicasOf(rs) - available);
      // As upstream: a status that counts more available pods than the (just lowered) spec would make this
      // a scale-up past maxSurge; it is an error and a requeue until the status catches up.
      if (count < 0) throw new Error(`when cleaning up unhealthy replicas, got invalid request to scale down ${objectKey(rs)} ${replicasOf(rs)} -> ${replicasOf(rs) - count}`);
      const { rs: updated } = await this.#scaleReplicaSetAndRecordEvent(rs, replicasOf(rs) - count, d);
      total += count;
      sorted[i] = updated;
    }
    return { oldRSs: sorted, count: total };
  }

  /** Scales old ReplicaSets down as far as maxUnavailable allows, oldest first (scaleDownOldReplicaSetsForRollingUpdate). */
  async #scaleDownOldReplicaSetsForRollingUpdate(all: ReplicaSet[], oldRSs: ReplicaSet[], d: Deployment): Promise<number> {
    const minAvailable = replicasOf(d) - maxUnavailable(d);
    const available = statusReplicas(all, 'availableReplicas');
    if (available <= minAvailable) return 0;
    const target = available - minAvailable;
    let total = 0;
    for (const rs of byCreationTimestamp(oldRSs)) {
      if (total >= target) break;
      if (replicasOf(rs) === 0) continue;
      const count = Math.min(replicasOf(rs), target - total);
      await this.#scaleReplicaSetAndRecordEvent(rs, replicasOf(rs) - count, d);
      total += count;
    }
    return total;
  }

  // ---- recreate.go ----

  async #rolloutRecreate(d: Deployment, rsList: ReplicaSet[], podMap: Map<string, Pod[]>): Promise<void> {
    let { newRS, oldRSs } = await this.#getAllReplicaSetsAndSyncRevision(d, rsList, false);
    let scaledDown = false;
    for (const rs of activeReplicaSets(oldRSs)) {
      if ((await this.#scaleReplicaSetAndRecordEvent(rs, 0, d)).scaled) scaledDown = true;
    }
    if (scaledDown) {
      await this.#syncRolloutStatus([...oldRSs, newRS], newRS, d);
      return;
    }
    if (oldPodsRunning(newRS, oldRSs, podMap)) {
      await this.#syncRolloutStatus([...oldRSs, newRS], newRS, d);
      return;
    }
    if (newRS === undefined) ({ newRS, oldRSs } = await this.#getAllReplicaSetsAndSyncRevision(d, rsList, true));
    let current = newRS!;
    const up = await this.#scaleReplicaSetAndRecordEvent(current, replicasOf(d), d);
    current = up.rs;
    if (deploymentComplete(d, d.status ?? {})) await this.#cleanupDeployment(oldRSs, d);
    await this.#syncRolloutStatus([...oldRSs, current], current, d);
  }

  // ---- progress.go ----

  /** The status with the Progressing condition and the ReplicaSets' failures (syncRolloutStatus). */
  async #syncRolloutStatus(all: readonly (ReplicaSet | undefined)[], newRS: ReplicaSet | undefined, d: Deployment): Promise<void> {
    const status = this.#calculateStatus(all, newRS, d);
    if (!hasProgressDeadline(d)) removeDeploymentCondition(status, 'Progressing');
    const current = getDeploymentCondition(d.status, 'Progressing');
    const complete = status.replicas === status.updatedReplicas && current?.reason === DeploymentReason.NewRSAvailable;
    const now = nowTime(this.#clock);
    const rsName = newRS?.metadata?.name ?? '';
    if (hasProgressDeadline(d) && !complete) {
      if (deploymentComplete(d, status)) {
        setDeploymentCondition(status, newDeploymentCondition('Progressing', 'True', DeploymentReason.NewRSAvailable, `ReplicaSet "${rsName}" has successfully progressed.`, now));
      } else if (deploymentProgressing(d, status)) {
        const msg = newRS === undefined ? 'Deployment is progressing.' : `ReplicaSet "${rsName}" is progressing.`;
        const condition = newDeploymentCondition('Progressing', 'True', DeploymentReason.ReplicaSetUpdated, msg, now);
        // Progress refreshes lastUpdateTime even with an unchanged reason; the transition time stays while True.
        if (current !== undefined) {
          if (current.status === 'True' && current.lastTransitionTime !== undefined) condition.lastTransitionTime = current.lastTransitionTime;
          removeDeploymentCondition(status, 'Progressing');
        }
        setDeploymentCondition(status, condition);
      } else if (deploymentTimedOut(d, status, this.#clock.now())) {
        const msg = newRS === undefined ? `Deployment "${d.metadata?.name ?? ''}" has timed out progressing.` : `ReplicaSet "${rsName}" has timed out progressing.`;
        setDeploymentCondition(status, newDeploymentCondition('Progressing', 'False', DeploymentReason.TimedOut, msg, now));
      }
    }
    const failures = replicaFailures(all, newRS);
    if (failures.length > 0) setDeploymentCondition(status, failures[0]!);
    else removeDeploymentCondition(status, 'ReplicaFailure');
    if (sameStatus(d.status, status)) {
      this.#requeueStuckDeployment(d, status);
      return;
    }
    d.status = status;
    await this.#updateStatus(d);
  }

  /** Looks again when the progress deadline would pass (requeueStuckDeployment). */
  #requeueStuckDeployment(d: Deployment, status: DeploymentStatus): void {
    const current = getDeploymentCondition(d.status, 'Progressing');
    if (!hasProgressDeadline(d) || current === undefined) return;
    if (deploymentComplete(d, status) || current.reason === DeploymentReason.TimedOut) return;
    const last = timeMs(current.lastUpdateTime);
    if (Number.isNaN(last)) return;
    const after = last + (d.spec?.progressDeadlineSeconds ?? 0) * 1000 - this.#clock.now();
    const key = objectKey(d);
    if (after < 1000) this.controller.queue.addRateLimited(key);
    else this.controller.addAfter(key, after + 1000);
  }
}

/** Old pods still there, not finished (oldPodsRunning). */
function oldPodsRunning(newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[], podMap: Map<string, Pod[]>): boolean {
  if (statusReplicas(oldRSs, 'replicas') > 0) return true;
  for (const [uid, pods] of podMap) {
    if (newRS !== undefined && newRS.metadata?.uid === uid) continue;
    if (pods.some((p) => p.status?.phase !== 'Failed' && p.status?.phase !== 'Succeeded')) return true;
  }
  return false;
}

/** The ReplicaFailure conditions of the new ReplicaSet, else of any (getReplicaFailures). */
function replicaFailures(all: readonly (ReplicaSet | undefined)[], newRS: ReplicaSet | undefined) {
  const of = (rs: ReplicaSet | undefined) => (rs?.status?.conditions ?? []).filter((c) => c.type === 'ReplicaFailure').map(replicaSetToDeploymentCondition);
  const fromNew = of(newRS);
  return fromNew.length > 0 ? fromNew : all.flatMap(of);
}

/** Deep equality of two statuses (reflect.DeepEqual on what the controller computes). */
function sameStatus(a: DeploymentStatus | undefined, b: DeploymentStatus): boolean {
  return canonicalJson(pruneZero(a ?? {})) === canonicalJson(pruneZero(b));
}

function safeSelector(d: Deployment): LabelSelector | undefined {
  try {
    return labelSelectorAsSelector(d.spec?.selector);
  } catch {
    return undefined;
  }
}
