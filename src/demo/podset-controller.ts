/**
 * The PodSet controller: keeps `spec.replicas` pods per PodSet the way the ReplicaSet controller
 * (kubernetes/pkg/controller/replicaset) does — shared informers, an owner index, expectations,
 * adoption and release, slow-start batched creates, events, status through the status subresource —
 * plus a finalizer so a PodSet's pods are deleted (by ownerReference) before the PodSet itself.
 */
import type { Pod } from '../api/core/v1.ts';
import type { OwnerReference, Status } from '../api/meta/v1.ts';
import { isConflict, isInvalid, isNotFound } from '../apimachinery/errors.ts';
import { labelSelectorAsSelector, type LabelSelector } from '../apimachinery/labels.ts';
import { keyOf, objectKey } from '../apimachinery/meta.ts';
import { PatchType, type DeleteOptions, type PatchOptions, type PatchTypeValue, type RequestOptions, type UpdateOptions } from '../apimachinery/options.ts';
import { objectOf } from '../controller/enqueue.ts';
import { UIDTrackingControllerExpectations } from '../controller/expectations.ts';
import { addFinalizer, hasFinalizer, isBeingDeleted, removeFinalizer } from '../controller/finalizers.ts';
import type { DeletedFinalStateUnknown } from '../tools/cache/key-functions.ts';
import { splitMetaNamespaceKey } from '../tools/cache/key-functions.ts';
import type { EventRecorder } from '../tools/events/interfaces.ts';
import { realClock, type Clock } from '../util/clock/clock.ts';
import type { DemoInformer } from './informer.ts';
import type { ManagedController } from '../manager/controller.ts';
import { requestQueue, type ControllerQueue, type Source } from '../source/source.ts';
import { LowPriority } from '../util/workqueue/priority-queue.ts';
import { requestFromKey } from '../reconcile/reconcile.ts';
import { podSetApiVersion, podSetFinalizer, podSetKind, type PodSet, type PodSetStatus } from './podset.ts';

/** The pod calls the controller makes. */
export interface PodClient {
  create(pod: Pod, options?: RequestOptions): Promise<Pod>;
  delete(name: string, options?: DeleteOptions): Promise<Status | Pod>;
  patch(name: string, patchType: PatchTypeValue, patch: unknown, options?: PatchOptions): Promise<Pod>;
}

/** The PodSet calls the controller makes. */
export interface PodSetClient {
  get(name: string, options?: RequestOptions): Promise<PodSet>;
  patch(name: string, patchType: PatchTypeValue, patch: unknown, options?: PatchOptions): Promise<PodSet>;
  updateStatus(obj: PodSet, options?: UpdateOptions): Promise<PodSet>;
}

/** Options of {@link PodSetController}. */
export interface PodSetControllerOptions {
  podSetInformer: DemoInformer<PodSet>;
  /** Must carry the {@link controllerUidIndex} index. */
  podInformer: DemoInformer<Pod>;
  pods: (namespace: string) => PodClient;
  podSets: (namespace: string) => PodSetClient;
  /** Where SuccessfulCreate / SuccessfulDelete events go. Default: none. */
  recorder?: EventRecorder;
  clock?: Clock;
  /**
   * Register the event handlers on the informers at once, keys going nowhere until a controller is
   * attached (for tests driving `sync` by hand). Default false: a manager's controller registers them
   * when it starts, through {@link PodSetController.source}.
   */
  registerHandlers?: boolean;
}

/** The pod index by controlling owner UID: the owner index. */
export const controllerUidIndex = 'controllerUID';

/** Indexes a pod under the UID of its controller reference (none for orphans). */
export function controllerUidIndexFunc(pod: Pod): string[] {
  const ref = controllerRefOf(pod);
  return ref === undefined ? [] : [ref.uid];
}

/** The ownerReference with controller: true, if any (metav1.GetControllerOf). */
export function controllerRefOf(obj: { metadata?: { ownerReferences?: OwnerReference[] } }): OwnerReference | undefined {
  return obj.metadata?.ownerReferences?.find((r) => r.controller === true);
}

// Upstream's burstReplicas: at most this many creates or deletes per sync.
const burstReplicas = 500;
// Upstream's SlowStartInitialBatchSize: creates go out in batches of 1, 2, 4, ... so a failing
// template fails once, not 500 times.
const slowStartInitialBatchSize = 1;

/** Counters the demo reports. */
export interface PodSetControllerCounts {
  podsCreated: number;
  podsDeleted: number;
  podsAdopted: number;
  podsReleased: number;
  statusUpdates: number;
}

/**
 * The pod as an event's related object. Pods from the informer's initial LIST carry no kind (the API
 * server leaves TypeMeta out of list items); client-go's recorder finds it in its scheme, this one
 * needs it on the object.
 */
function relatedPod(pod: Pod): Pod {
  return { ...pod, apiVersion: 'v1', kind: 'Pod' };
}

function isPodReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

function isPodActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !isBeingDeleted(pod);
}

/** Deletion preference (controller.ActivePods ordering, reduced): unready before ready, pending before running, newer before older. */
function deletionRank(a: Pod, b: Pod): number {
  const ready = Number(isPodReady(a)) - Number(isPodReady(b));
  if (ready !== 0) return ready;
  const running = Number(a.status?.phase === 'Running') - Number(b.status?.phase === 'Running');
  if (running !== 0) return running;
  const ta = a.metadata?.creationTimestamp ?? '';
  const tb = b.metadata?.creationTimestamp ?? '';
  return ta === tb ? 0 : ta > tb ? -1 : 1;
}

/**
 * The PodSet controller. Construct it with informers that were not started yet (so its handlers see
 * the initial lists), start the informers, then `run`.
 */
export class PodSetController {
  /** The manager's controller running this one's reconciles (zero counts until {@link PodSetController.attach}ed). */
  controller: Pick<ManagedController, 'stats'> = { stats: () => ({ success: 0, requeueAfter: 0, error: 0, terminal: 0, panics: 0, active: 0, queueDepth: 0 }) };
  readonly expectations: UIDTrackingControllerExpectations;
  readonly counts: PodSetControllerCounts = { podsCreated: 0, podsDeleted: 0, podsAdopted: 0, podsReleased: 0, statusUpdates: 0 };
  readonly #podSets: DemoInformer<PodSet>;
  readonly #pods: DemoInformer<Pod>;
  readonly #podClient: (namespace: string) => PodClient;
  readonly #podSetClient: (namespace: string) => PodSetClient;
  readonly #recorder: EventRecorder | undefined;
  #queue: ControllerQueue | undefined;

  constructor(options: PodSetControllerOptions) {
    const clock = options.clock ?? realClock;
    this.#podSets = options.podSetInformer;
    this.#pods = options.podInformer;
    this.#podClient = options.pods;
    this.#podSetClient = options.podSets;
    this.#recorder = options.recorder;
    this.expectations = new UIDTrackingControllerExpectations({ clock });
    if (options.registerHandlers === true) this.#register();
  }

  /** Sets the controller whose queue and stats this one uses (the builder's result). */
  attach(controller: Pick<ManagedController, 'stats'>): void {
    this.controller = controller;
  }

  /**
   * The source feeding the manager's controller: when the controller starts (on the leader), it
   * registers the PodSet and Pod handlers on the shared informers, which replay the cached objects as
   * initial-list adds (low priority), so a replica taking over needs no new LIST.
   */
  source(): Source {
    const regs: unknown[] = [];
    return {
      description: 'podsets and pods (owner index, expectations)',
      start: (queue) => {
        this.#queue = queue;
        regs.push(...this.#register());
      },
      hasSynced: () => regs.length > 0 && regs.every((r) => (r as { hasSynced(): boolean }).hasSynced()),
    };
  }

  #register(): unknown[] {
    return [
      this.#podSets.addEventHandler({
        onAdd: (ps, initial) => this.#add(objectKey(ps), initial === true),
        onUpdate: (old, ps) => this.#add(objectKey(ps), old.metadata?.resourceVersion === ps.metadata?.resourceVersion),
        onDelete: (obj) => this.#deletePodSet(obj),
      }),
      this.#pods.addEventHandler({
        onAdd: (pod, initial) => this.#addPod(pod, initial === true),
        onUpdate: (old, pod) => this.#updatePod(old, pod),
        onDelete: (obj) => this.#deletePod(obj),
      }),
    ];
  }

  /** Enqueues `key`; objects of the initial list and unchanged resyncs at low priority. */
  #add(key: string, low = false): void {
    if (this.#queue !== undefined) requestQueue(this.#queue, low ? LowPriority : 0).add(requestFromKey(key));
  }

  // ---- informer handlers (replica_set.go addPod / updatePod / deletePod) ----

  #deletePodSet(obj: PodSet | DeletedFinalStateUnknown<PodSet>): void {
    const ps = objectOf(obj);
    const key = ps !== undefined ? objectKey(ps) : (obj as DeletedFinalStateUnknown<PodSet>).key;
    this.expectations.deleteExpectations(key);
    this.#add(key);
  }

  /** The PodSet a controller reference points at, if it is in the cache with that UID. */
  #resolveControllerRef(namespace: string, ref: OwnerReference): PodSet | undefined {
    if (ref.kind !== podSetKind || ref.apiVersion.split('/')[0] !== podSetApiVersion.split('/')[0]) return undefined;
    const ps = this.#podSets.getIndexer().getByKey(keyOf(namespace, ref.name));
    return ps?.metadata?.uid === ref.uid ? ps : undefined;
  }

  /** PodSets in the pod's namespace whose selector matches it (getPodReplicaSets). */
  #matchingPodSets(pod: Pod): PodSet[] {
    const labels = pod.metadata?.labels ?? {};
    return this.#podSets
      .getIndexer()
      .byIndex('namespace', pod.metadata?.namespace ?? '')
      .filter((ps) => selectorOf(ps)?.matches(labels) === true);
  }

  #addPod(pod: Pod, initial = false): void {
    if (isBeingDeleted(pod)) {
      this.#deletePod(pod);
      return;
    }
    const ns = pod.metadata?.namespace ?? '';
    const ref = controllerRefOf(pod);
    if (ref !== undefined) {
      const ps = this.#resolveControllerRef(ns, ref);
      if (ps === undefined) return;
      const key = objectKey(ps);
      this.expectations.creationObserved(key);
      this.#add(key, initial);
      return;
    }
    // An orphan: whoever could adopt it gets a look.
    for (const ps of this.#matchingPodSets(pod)) this.#add(objectKey(ps), initial);
  }

  #updatePod(old: Pod, pod: Pod): void {
    if (old.metadata?.resourceVersion === pod.metadata?.resourceVersion) return;
    const ns = pod.metadata?.namespace ?? '';
    const labelsChanged = JSON.stringify(old.metadata?.labels ?? {}) !== JSON.stringify(pod.metadata?.labels ?? {});
    if (isBeingDeleted(pod)) {
      this.#deletePod(pod);
      if (labelsChanged) this.#deletePod(old);
      return;
    }
    const oldRef = controllerRefOf(old);
    const ref = controllerRefOf(pod);
    if (oldRef !== undefined && oldRef.uid !== ref?.uid) {
      const oldPs = this.#resolveControllerRef(ns, oldRef);
      if (oldPs !== undefined) this.#add(objectKey(oldPs));
    }
    if (ref !== undefined) {
      const ps = this.#resolveControllerRef(ns, ref);
      if (ps !== undefined) this.#add(objectKey(ps));
      return;
    }
    if (labelsChanged || oldRef !== undefined) for (const ps of this.#matchingPodSets(pod)) this.#add(objectKey(ps));
  }

  #deletePod(obj: Pod | DeletedFinalStateUnknown<Pod>): void {
    const pod = objectOf(obj);
    if (pod === undefined) return;
    const ref = controllerRefOf(pod);
    if (ref === undefined) return;
    const ps = this.#resolveControllerRef(pod.metadata?.namespace ?? '', ref);
    if (ps === undefined) return;
    const key = objectKey(ps);
    this.expectations.deletionObservedOf(key, objectKey(pod));
    this.#add(key);
  }

  // ---- reconcile (syncReplicaSet) ----

  /** Reconciles the PodSet `key`. Exposed for tests. */
  async sync(key: string, signal: AbortSignal): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const cached = this.#podSets.getIndexer().getByKey(key);
    if (cached === undefined) {
      this.expectations.deleteExpectations(key);
      return;
    }
    let ps: PodSet = cached;
    const podSets = this.#podSetClient(namespace);
    if (isBeingDeleted(ps)) {
      await this.#finalize(ps, signal);
      return;
    }
    if (!hasFinalizer(ps, podSetFinalizer)) ps = await addFinalizer(podSets, ps, podSetFinalizer, { signal });

    const selector = selectorOf(ps);
    if (selector === undefined || selector.empty()) {
      // Upstream refuses an empty selector rather than adopting every pod of the namespace.
      this.#recorder?.eventf(ps, undefined, 'Warning', 'InvalidSelector', 'Sync', 'spec.selector must select some labels');
      return;
    }
    const needsSync = this.expectations.satisfiedExpectations(key);
    const all = this.#pods.getIndexer().byIndex('namespace', namespace).filter(isPodActive);
    const pods = await this.#claimPods(ps, selector, all, signal);

    let manageError: unknown;
    if (needsSync) {
      try {
        await this.#manageReplicas(key, pods, ps, signal);
      } catch (err) {
        manageError = err;
      }
    }
    // Status reflects what the cache shows now (creates not yet observed are not counted, as upstream).
    const owned = this.#pods.getIndexer().byIndex(controllerUidIndex, ps.metadata?.uid ?? '').filter(isPodActive);
    await this.#updateStatus(ps, owned, name, signal);
    if (manageError !== undefined) throw asError(manageError);
  }

  /**
   * Adopts matching orphans and releases owned pods that stopped matching (PodControllerRefManager).
   * Returns the pods this PodSet owns after that.
   */
  async #claimPods(ps: PodSet, selector: LabelSelector, pods: Pod[], signal: AbortSignal): Promise<Pod[]> {
    const uid = ps.metadata?.uid ?? '';
    const ns = ps.metadata?.namespace ?? '';
    const client = this.#podClient(ns);
    const claimed: Pod[] = [];
    let canAdopt: boolean | undefined;
    for (const pod of pods) {
      const ref = controllerRefOf(pod);
      const matches = selector.matches(pod.metadata?.labels ?? {});
      if (ref !== undefined) {
        if (ref.uid !== uid) continue;
        if (matches) {
          claimed.push(pod);
          continue;
        }
        await this.#release(client, pod, ps, uid, signal);
        continue;
      }
      if (!matches || isBeingDeleted(pod)) continue;
      // Recheck with a live read that the PodSet was not deleted and recreated under the same name
      // since the cache saw it (RecheckDeletionTimestamp), once per sync.
      canAdopt ??= await this.#canAdopt(ps, signal);
      if (!canAdopt) continue;
      const adopted = await this.#adopt(client, pod, ps, signal);
      if (adopted !== undefined) claimed.push(adopted);
    }
    return claimed;
  }

  async #canAdopt(ps: PodSet, signal: AbortSignal): Promise<boolean> {
    try {
      const fresh = await this.#podSetClient(ps.metadata?.namespace ?? '').get(ps.metadata?.name ?? '', { signal });
      return fresh.metadata?.uid === ps.metadata?.uid && !isBeingDeleted(fresh);
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  async #adopt(client: PodClient, pod: Pod, ps: PodSet, signal: AbortSignal): Promise<Pod | undefined> {
    const ref = ownerRefFor(ps);
    const refs = pod.metadata?.ownerReferences;
    // The resourceVersion test makes sure no one else adopted it meanwhile.
    const patch = [
      { op: 'test', path: '/metadata/resourceVersion', value: pod.metadata?.resourceVersion },
      refs === undefined || refs.length === 0 ? { op: 'add', path: '/metadata/ownerReferences', value: [ref] } : { op: 'add', path: '/metadata/ownerReferences/-', value: ref },
    ];
    try {
      const adopted = await client.patch(pod.metadata?.name ?? '', PatchType.JSON, patch, { signal });
      this.counts.podsAdopted++;
      return adopted;
    } catch (err) {
      // Gone, or changed under us (the next event brings the new state and another sync).
      if (isNotFound(err) || isInvalid(err) || isConflict(err)) return undefined;
      throw err;
    }
  }

  async #release(client: PodClient, pod: Pod, ps: PodSet, uid: string, signal: AbortSignal): Promise<void> {
    const refs = pod.metadata?.ownerReferences ?? [];
    const index = refs.findIndex((r) => r.uid === uid);
    if (index < 0) return;
    try {
      await client.patch(
        pod.metadata?.name ?? '',
        PatchType.JSON,
        [
          { op: 'test', path: `/metadata/ownerReferences/${index}/uid`, value: uid },
          { op: 'remove', path: `/metadata/ownerReferences/${index}` },
        ],
        { signal },
      );
      this.counts.podsReleased++;
      this.#recorder?.eventf(ps, relatedPod(pod), 'Normal', 'SuccessfulRelease', 'Release', `Released pod: ${pod.metadata?.name ?? ''}`);
    } catch (err) {
      // Gone or changed: nothing left to release, or the next sync sees the new state.
      if (isNotFound(err) || isInvalid(err)) return;
      throw err;
    }
  }

  async #manageReplicas(key: string, pods: Pod[], ps: PodSet, signal: AbortSignal): Promise<void> {
    const desired = ps.spec?.replicas ?? 1;
    const diff = pods.length - desired;
    const ns = ps.metadata?.namespace ?? '';
    const client = this.#podClient(ns);
    if (diff < 0) {
      const count = Math.min(-diff, burstReplicas);
      // Raised before any create goes out, so a create observed before we return cannot be missed.
      this.expectations.expectCreations(key, count);
      let remaining = count;
      let batch = Math.min(remaining, slowStartInitialBatchSize);
      let firstError: unknown;
      while (batch > 0) {
        const results = await Promise.allSettled(Array.from({ length: batch }, () => client.create(newPodFor(ps), { signal })));
        let failed = 0;
        for (const r of results) {
          if (r.status === 'fulfilled') {
            this.counts.podsCreated++;
            this.#recorder?.eventf(ps, r.value, 'Normal', 'SuccessfulCreate', 'Create', `Created pod: ${r.value.metadata?.name ?? ''}`);
          } else {
            failed++;
            firstError ??= r.reason;
            // This creation will never be observed.
            this.expectations.creationObserved(key);
            this.#recorder?.eventf(ps, undefined, 'Warning', 'FailedCreate', 'Create', `Error creating: ${String((r.reason as Error).message ?? r.reason)}`);
          }
        }
        remaining -= batch;
        if (failed > 0) {
          // Skip the rest: they will not be observed either.
          for (let i = 0; i < remaining; i++) this.expectations.creationObserved(key);
          break;
        }
        batch = Math.min(remaining, 2 * batch);
      }
      if (firstError !== undefined) throw asError(firstError);
      return;
    }
    if (diff > 0) {
      const victims = [...pods].sort(deletionRank).slice(0, Math.min(diff, burstReplicas));
      this.expectations.expectDeletionsOf(
        key,
        victims.map((p) => objectKey(p)),
      );
      let firstError: unknown;
      await Promise.all(
        victims.map(async (pod) => {
          const podKey = objectKey(pod);
          try {
            await client.delete(pod.metadata?.name ?? '', { signal });
            this.counts.podsDeleted++;
            this.#recorder?.eventf(ps, relatedPod(pod), 'Normal', 'SuccessfulDelete', 'Delete', `Deleted pod: ${pod.metadata?.name ?? ''}`);
          } catch (err) {
            // This deletion will never be observed.
            this.expectations.deletionObservedOf(key, podKey);
            if (isNotFound(err)) return;
            firstError ??= err;
            this.#recorder?.eventf(ps, relatedPod(pod), 'Warning', 'FailedDelete', 'Delete', `Error deleting: ${(err as Error).message}`);
          }
        }),
      );
      if (firstError !== undefined) throw asError(firstError);
    }
  }

  async #updateStatus(ps: PodSet, owned: Pod[], name: string, signal: AbortSignal): Promise<void> {
    const next: PodSetStatus = {
      replicas: owned.length,
      readyReplicas: owned.filter(isPodReady).length,
      observedGeneration: ps.metadata?.generation ?? 0,
    };
    const cur = ps.status ?? {};
    if (cur.replicas === next.replicas && cur.readyReplicas === next.readyReplicas && cur.observedGeneration === next.observedGeneration) return;
    const client = this.#podSetClient(ps.metadata?.namespace ?? '');
    // Upstream's statusUpdateRetries = 1: on a conflict, read the latest copy and try once more.
    let base: PodSet = ps;
    for (let attempt = 0; ; attempt++) {
      const copy: PodSet = { ...base, metadata: { ...base.metadata, name }, status: { ...base.status, ...next } };
      try {
        await client.updateStatus(copy, { signal });
        this.counts.statusUpdates++;
        return;
      } catch (err) {
        if (attempt >= 1 || !isConflict(err)) throw err;
        base = await client.get(name, { signal });
        if (base.metadata?.uid !== ps.metadata?.uid) return;
        // The status describes the generation this sync saw; a newer spec gets its own sync.
        if (base.metadata?.generation !== ps.metadata?.generation) return;
      }
    }
  }

  /** Deletes the PodSet's pods by ownerReference; once none is left, removes the finalizer. */
  async #finalize(ps: PodSet, signal: AbortSignal): Promise<void> {
    if (!hasFinalizer(ps, podSetFinalizer)) return;
    const ns = ps.metadata?.namespace ?? '';
    const owned = this.#pods.getIndexer().byIndex(controllerUidIndex, ps.metadata?.uid ?? '');
    if (owned.length > 0) {
      const client = this.#podClient(ns);
      await Promise.all(
        owned.map(async (pod) => {
          if (isBeingDeleted(pod)) return;
          try {
            await client.delete(pod.metadata?.name ?? '', { signal });
            this.counts.podsDeleted++;
            this.#recorder?.eventf(ps, relatedPod(pod), 'Normal', 'SuccessfulDelete', 'Delete', `Deleted pod: ${pod.metadata?.name ?? ''}`);
          } catch (err) {
            if (!isNotFound(err)) throw err;
          }
        }),
      );
      // The pod informer's delete events bring us back here; the finalizer goes once the cache is empty.
      return;
    }
    try {
      await removeFinalizer(this.#podSetClient(ns), ps, podSetFinalizer, { signal });
    } catch (err) {
      // An earlier pass removed it and the PodSet is gone; the cache has not caught up yet.
      if (!isNotFound(err)) throw err;
    }
  }
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/** The PodSet's selector, or undefined when it is missing or malformed. */
function selectorOf(ps: PodSet): LabelSelector | undefined {
  try {
    return ps.spec?.selector === undefined ? undefined : labelSelectorAsSelector(ps.spec.selector);
  } catch {
    return undefined;
  }
}

/** The controller reference a PodSet puts on its pods. */
export function ownerRefFor(ps: PodSet): OwnerReference {
  return { apiVersion: podSetApiVersion, kind: podSetKind, name: ps.metadata?.name ?? '', uid: ps.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true };
}

/** A new pod from the PodSet's template (controller.GetPodFromTemplate). */
export function newPodFor(ps: PodSet): Pod {
  const template = ps.spec?.template ?? {};
  const labels = { ...template.metadata?.labels };
  const annotations = { ...template.metadata?.annotations };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${ps.metadata?.name ?? 'podset'}-`,
      namespace: ps.metadata?.namespace ?? 'default',
      labels,
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      ownerReferences: [ownerRefFor(ps)],
    },
    spec: structuredClone(template.spec ?? { containers: [] }),
  };
}
