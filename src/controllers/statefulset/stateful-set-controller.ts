/**
 * The StatefulSet controller (kubernetes/pkg/controller/statefulset: stateful_set.go,
 * stateful_set_control.go, stateful_set_utils.go, stateful_pod_control.go, and
 * pkg/controller/history for ControllerRevisions), written as kube-controller-manager writes it, on
 * kubeloom's client-go layer: shared informers for StatefulSets, Pods and ControllerRevisions, a
 * rate-limited queue, and one {@link StatefulSetController.syncStatefulSet}.
 *
 * What it keeps: pods named `<set>-<ordinal>` with a stable identity (hostname, the service's subdomain,
 * the `statefulset.kubernetes.io/pod-name` and `apps.kubernetes.io/pod-index` labels) and the
 * `controller-revision-hash` label naming their ControllerRevision; revisions `<set>-<hash>` whose data is
 * the template as a replace patch — the bytes and the hash kube-controller-manager writes
 * (hash/controller-revision-hash.ts) — their numbers, reuse of an equal older revision (a rollback),
 * `collisionCount`, and history trimmed to revisionHistoryLimit (live revisions kept); PersistentVolumeClaims
 * `<claim>-<pod>` from volumeClaimTemplates; OrderedReady (one pod at a time, in ordinal order, each
 * Running and Ready — available after minReadySeconds — before the next; scale-down from the highest
 * ordinal, one at a time) and Parallel management; RollingUpdate from the highest ordinal down to
 * `partition`, one pod at a time, and OnDelete; failed pods replaced; status replicas, readyReplicas,
 * availableReplicas, currentReplicas, updatedReplicas, currentRevision, updateRevision, observedGeneration.
 *
 * With the MaxUnavailableStatefulSet gate (alpha since 1.24, off by default as there) a rolling update
 * deletes up to `rollingUpdate.maxUnavailable` old pods at a time (scaled down from a percentage, at least
 * 1) while fewer pods than that are unavailable; without it one at a time. With StatefulSetAutoDeletePVC
 * (beta and on since 1.27; alpha and off in v1.24) the claims get the owner references
 * `persistentVolumeClaimRetentionPolicy` asks for (claim-retention.ts), set before a scaled-down pod is
 * deleted, and a pod whose claim still belongs to its deleted predecessor waits for the claim to go.
 *
 * Left out: `spec.ordinals.start` (pods start at 0), identity repair of pods whose labels
 * were changed by hand, and the PVC events' wording of every failure.
 */
import type { ControllerRevision, StatefulSet, StatefulSetStatus } from '../../api/apps/v1.ts';
import type { PersistentVolumeClaim, Pod, PodTemplateSpec } from '../../api/core/v1.ts';
import { isAlreadyExists, isNotFound } from '../../apimachinery/errors.ts';
import { labelSelectorAsSelector, type LabelSelector } from '../../apimachinery/labels.ts';
import { objectKey } from '../../apimachinery/meta.ts';
import type { Controller } from '../../controller/controller.ts';
import { enqueueForObject, objectOf } from '../../controller/enqueue.ts';
import { splitMetaNamespaceKey } from '../../tools/cache/key-functions.ts';
import type { Lister } from '../../tools/cache/lister.ts';
import type { EventRecorder } from '../../tools/events/record/event.ts';
import type { Clock } from '../../util/clock/clock.ts';
import { newSyncController, recorderFor, withKind, type ControllerContext } from '../controller-context.ts';
import { ControllerRefManager, recheckDeletionTimestamp } from '../controller-ref-manager.ts';
import { goMarshal, hashControllerRevision, statefulSetRevisionData } from '../hash/controller-revision-hash.ts';
import { canonicalJson, getControllerOf, isPodAvailable, isPodReady, newControllerRef, pruneZero } from '../controller-utils.ts';
import { scaledValue } from '../deployment/deployment-util.ts';
import { resolveControllerFeatureGates, type ControllerFeatureGates } from '../feature-gates.ts';
import { claimOwnerRefsForSetAndPod, claimRetentionPolicy, hasStaleOwnerRef, isClaimOwnerUpToDate } from './claim-retention.ts';

const setApiVersion = 'apps/v1';
const setKind = 'StatefulSet';
/** The label naming a pod's ControllerRevision (apps.ControllerRevisionHashLabelKey). */
export const controllerRevisionHashLabel = 'controller-revision-hash';
/** The label carrying a ControllerRevision's hash (history.ControllerRevisionHashLabel). */
export const revisionHistoryHashLabel = 'controller.kubernetes.io/hash';
/** The label naming the pod (apps.StatefulSetPodNameLabel). */
export const statefulSetPodNameLabel = 'statefulset.kubernetes.io/pod-name';
/** The label carrying the pod's ordinal (apps.PodIndexLabel, PodIndexLabel feature, on since 1.28). */
export const podIndexLabel = 'apps.kubernetes.io/pod-index';

/** The ordinal of a pod of `set` (`<set>-<n>`), or -1 (getParentNameAndOrdinal). */
export function ordinalOf(setName: string, pod: Pod): number {
  const name = pod.metadata?.name ?? '';
  const m = /^(.*)-(\d+)$/.exec(name);
  if (m === null || m[1] !== setName) return -1;
  return Number(m[2]);
}

function revisionNumber(r: ControllerRevision): number {
  return r.revision ?? 0;
}

function isRunningAndReady(pod: Pod): boolean {
  return pod.status?.phase === 'Running' && isPodReady(pod);
}

function isFailed(pod: Pod): boolean {
  return pod.status?.phase === 'Failed' || pod.status?.phase === 'Succeeded';
}

function isTerminating(pod: Pod): boolean {
  return pod.metadata?.deletionTimestamp !== undefined;
}

/** The revision data of a set: its template as a replace patch, as Go encodes it (getPatch). */
function revisionData(set: StatefulSet): Record<string, unknown> {
  return statefulSetRevisionData(set.spec?.template ?? {});
}

/**
 * The revision's data in the Go form (history.EqualRevision compares the bytes): a revision written
 * before this controller encoded as Go does still matches its template.
 */
function revisionBytes(r: ControllerRevision): string {
  // The cache's objects are replaced, never changed, on update: their bytes are computed once (~0.15 ms each).
  let bytes = revisionBytesCache.get(r);
  if (bytes === undefined) {
    bytes = goMarshal(statefulSetRevisionData(templateOf(r)));
    revisionBytesCache.set(r, bytes);
  }
  return bytes;
}
const revisionBytesCache = new WeakMap<ControllerRevision, string>();

/** The template a revision records. */
function templateOf(r: ControllerRevision): PodTemplateSpec {
  const data = (r.data ?? {}) as { spec?: { template?: PodTemplateSpec & { $patch?: string } } };
  const t = structuredClone(data.spec?.template ?? {});
  delete t.$patch;
  return t;
}

/** Options of {@link StatefulSetController}. */
export interface StatefulSetControllerOptions {
  /** Concurrent syncs (default 5, kube-controller-manager's --concurrent-statefulset-syncs). */
  workers?: number;
  /** MaxUnavailableStatefulSet (default off) and StatefulSetAutoDeletePVC (default on). */
  featureGates?: ControllerFeatureGates;
}

/** The StatefulSet controller; see the file comment. */
export class StatefulSetController {
  /** The queue and its workers. */
  readonly controller: Controller;
  readonly #ctx: ControllerContext;
  readonly #clock: Clock;
  readonly #setLister: Lister<StatefulSet>;
  readonly #podLister: Lister<Pod>;
  readonly #revisionLister: Lister<ControllerRevision>;
  readonly #recorder: EventRecorder;
  readonly #claimLister: Lister<PersistentVolumeClaim>;
  readonly #gates: Required<ControllerFeatureGates>;

  constructor(ctx: ControllerContext, options: StatefulSetControllerOptions = {}) {
    this.#gates = resolveControllerFeatureGates(options.featureGates);
    this.#ctx = ctx;
    this.#clock = ctx.clock;
    this.#recorder = recorderFor(ctx, 'statefulset-controller');
    const sets = ctx.informerFactory.appsV1().statefulSets();
    const pods = ctx.informerFactory.coreV1().pods();
    const revisions = ctx.informerFactory.appsV1().controllerRevisions();
    const claims = ctx.informerFactory.coreV1().persistentVolumeClaims();
    this.#claimLister = claims.lister();
    this.#setLister = sets.lister();
    this.#podLister = pods.lister();
    this.#revisionLister = revisions.lister();
    this.controller = newSyncController(ctx, {
      name: 'statefulset',
      informers: [sets.informer(), pods.informer(), revisions.informer(), claims.informer()],
      // kube-controller-manager's --concurrent-statefulset-syncs default.
      workers: options.workers ?? 5,
      reconcile: (key) => this.syncStatefulSet(key),
    });
    sets.informer().addEventHandler(enqueueForObject(this.controller));
    const onPod = (pod: Pod | undefined): void => {
      const ref = pod === undefined ? undefined : getControllerOf(pod);
      if (pod === undefined || ref === undefined || ref.kind !== setKind) return;
      this.controller.add(`${pod.metadata?.namespace ?? ''}/${ref.name}`);
    };
    pods.informer().addEventHandler({
      onAdd: onPod,
      onUpdate: (old, pod) => {
        if (old.metadata?.resourceVersion === pod.metadata?.resourceVersion) return;
        onPod(pod);
        // Available only after minReadySeconds: look again then.
        const ref = getControllerOf(pod);
        if (ref?.kind === setKind && !isPodReady(old) && isPodReady(pod)) {
          try {
            const set = this.#setLister.namespace(pod.metadata?.namespace ?? '').get(ref.name);
            const minReady = set.spec?.minReadySeconds ?? 0;
            if (minReady > 0) this.controller.addAfter(objectKey(set), minReady * 1000 + 1000);
          } catch {
            // not cached: nothing to wake
          }
        }
      },
      onDelete: (obj) => onPod(objectOf(obj)),
    });
    // A pod waiting for its predecessor's claim to be deleted (a stale claim) is created once it is gone.
    claims.informer().addEventHandler({
      onDelete: (obj) => {
        const ns = objectOf(obj)?.metadata?.namespace ?? '';
        for (const set of this.#setLister.namespace(ns).list()) if ((set.spec?.volumeClaimTemplates ?? []).length > 0) this.controller.add(objectKey(set));
      },
    });
  }

  /** Runs the workers until `signal` aborts (after the caches synced). */
  run(options: { signal: AbortSignal }): Promise<void> {
    return this.controller.run(options);
  }

  /** One step of the StatefulSet `key` towards its spec, and its status (sync). Exposed for tests. */
  async syncStatefulSet(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    let set: StatefulSet;
    try {
      set = structuredClone(this.#setLister.namespace(namespace).get(name));
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    let selector: LabelSelector;
    try {
      selector = labelSelectorAsSelector(set.spec?.selector);
    } catch {
      return;
    }
    if (selector.empty()) return;
    const setsClient = this.#ctx.client.appsV1().statefulSets(namespace);
    const canAdopt = recheckDeletionTimestamp(() => setsClient.get(name), set, setKind);
    const pods = await new ControllerRefManager<Pod>({ controller: set, apiVersion: setApiVersion, kind: setKind, selector, client: this.#ctx.client.coreV1().pods(namespace), canAdopt }).claim(
      this.#podLister.namespace(namespace).list(),
      (p) => ordinalOf(name, p) >= 0,
    );
    const revisions = await new ControllerRefManager<ControllerRevision>({ controller: set, apiVersion: setApiVersion, kind: setKind, selector, client: this.#ctx.client.appsV1().controllerRevisions(namespace), canAdopt }).claim(
      this.#revisionLister.namespace(namespace).list(),
    );
    revisions.sort((a, b) => revisionNumber(a) - revisionNumber(b));
    const { current, update, collisionCount } = await this.#revisions(set, revisions);
    const status = set.metadata?.deletionTimestamp === undefined ? await this.#update(set, pods, current, update) : this.#status(set, pods, current, update);
    status.collisionCount = collisionCount;
    status.observedGeneration = set.metadata?.generation ?? 0;
    await this.#truncateHistory(set, pods, revisions, current, update);
    if (canonicalJson(pruneZero(status)) !== canonicalJson(pruneZero(set.status ?? {}))) await setsClient.updateStatus({ ...set, status });
  }

  /** The current and update revisions, creating the update revision when needed (getStatefulSetRevisions). */
  async #revisions(set: StatefulSet, revisions: ControllerRevision[]): Promise<{ current: ControllerRevision; update: ControllerRevision; collisionCount: number }> {
    const ns = set.metadata?.namespace ?? '';
    const client = this.#ctx.client.appsV1().controllerRevisions(ns);
    let collisionCount = set.status?.collisionCount ?? 0;
    const next = revisions.length === 0 ? 1 : revisionNumber(revisions.at(-1)!) + 1;
    const data = revisionData(set);
    const dataBytes = goMarshal(data);
    const equal = revisions.filter((r) => revisionBytes(r) === dataBytes);
    let update: ControllerRevision;
    if (equal.length > 0) {
      const last = equal.at(-1)!;
      // An older equal revision (a rollback) becomes the newest.
      update = last === revisions.at(-1) ? last : await client.update({ ...last, revision: next });
    } else {
      for (;;) {
        const hash = hashControllerRevision(data, collisionCount);
        const candidate: ControllerRevision = {
          metadata: {
            name: `${set.metadata?.name ?? ''}-${hash}`,
            namespace: ns,
            labels: { ...set.spec?.template?.metadata?.labels, [revisionHistoryHashLabel]: hash },
            ...(set.metadata?.annotations === undefined ? {} : { annotations: { ...set.metadata.annotations } }),
            ownerReferences: [newControllerRef(set, setApiVersion, setKind)],
          },
          data,
          revision: next,
        };
        try {
          update = await client.create(candidate);
          break;
        } catch (err) {
          if (!isAlreadyExists(err)) throw err;
          const existing = await client.get(candidate.metadata!.name!);
          if (revisionBytes(existing) === dataBytes) {
            update = existing;
            break;
          }
          collisionCount++;
        }
      }
    }
    const current = revisions.find((r) => r.metadata?.name === set.status?.currentRevision) ?? update;
    return { current, update, collisionCount };
  }

  #newPod(set: StatefulSet, revision: ControllerRevision, ordinal: number): Pod {
    const setName = set.metadata?.name ?? '';
    const podName = `${setName}-${ordinal}`;
    const template = templateOf(revision);
    const spec = structuredClone(template.spec ?? { containers: [] });
    spec.hostname = podName;
    if (set.spec?.serviceName !== undefined && set.spec.serviceName !== '') spec.subdomain = set.spec.serviceName;
    // Volumes of the claim templates point at the pod's claims.
    for (const claim of set.spec?.volumeClaimTemplates ?? []) {
      const claimName = claim.metadata?.name ?? '';
      const volumes = (spec.volumes ?? []).filter((v) => v.name !== claimName);
      spec.volumes = [...volumes, { name: claimName, persistentVolumeClaim: { claimName: `${claimName}-${podName}` } }];
    }
    return {
      metadata: {
        name: podName,
        // GetPodFromTemplate's generateName stays beside the name, as upstream's pods show.
        generateName: `${setName}-`,
        labels: { ...template.metadata?.labels, [statefulSetPodNameLabel]: podName, [podIndexLabel]: String(ordinal), [controllerRevisionHashLabel]: revision.metadata?.name ?? '' },
        ...(template.metadata?.annotations === undefined ? {} : { annotations: { ...template.metadata.annotations } }),
        ownerReferences: [newControllerRef(set, setApiVersion, setKind)],
      },
      spec,
    };
  }

  async #createPod(set: StatefulSet, pod: Pod): Promise<void> {
    const ns = set.metadata?.namespace ?? '';
    const setName = set.metadata?.name ?? '';
    const podName = pod.metadata?.name ?? '';
    const subject = withKind(set, setApiVersion, setKind);
    for (const claim of set.spec?.volumeClaimTemplates ?? []) {
      const claimName = `${claim.metadata?.name ?? ''}-${podName}`;
      const pvc: PersistentVolumeClaim = { metadata: { name: claimName, labels: { ...set.spec?.selector?.matchLabels } }, spec: structuredClone(claim.spec ?? {}) };
      try {
        await this.#ctx.client.coreV1().persistentVolumeClaims(ns).create(pvc);
        this.#recorder.eventf(subject, 'Normal', 'SuccessfulCreate', `create Claim ${claimName} Pod ${podName} in StatefulSet ${setName} success`);
      } catch (err) {
        if (!isAlreadyExists(err)) {
          this.#recorder.eventf(subject, 'Warning', 'FailedCreate', `create Claim ${claimName} for Pod ${podName} in StatefulSet ${setName} failed error: ${err instanceof Error ? err.message : String(err)}`);
          throw err;
        }
      }
    }
    try {
      await this.#ctx.client.coreV1().pods(ns).create(pod);
      this.#recorder.eventf(subject, 'Normal', 'SuccessfulCreate', `create Pod ${podName} in StatefulSet ${setName} successful`);
    } catch (err) {
      if (isAlreadyExists(err)) return;
      this.#recorder.eventf(subject, 'Warning', 'FailedCreate', `create Pod ${podName} in StatefulSet ${setName} failed error: ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    }
  }

  async #deletePod(set: StatefulSet, pod: Pod): Promise<void> {
    const podName = pod.metadata?.name ?? '';
    try {
      await this.#ctx.client.coreV1().pods(set.metadata?.namespace ?? '').delete(podName, { preconditions: { uid: pod.metadata?.uid ?? '' } });
      this.#recorder.eventf(withKind(set, setApiVersion, setKind), 'Normal', 'SuccessfulDelete', `delete Pod ${podName} in StatefulSet ${set.metadata?.name ?? ''} successful`);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  /** The status the pods show (part of updateStatefulSet). */
  #status(set: StatefulSet, pods: Pod[], current: ControllerRevision, update: ControllerRevision): StatefulSetStatus {
    const minReady = set.spec?.minReadySeconds ?? 0;
    const now = this.#clock.now();
    const status: StatefulSetStatus = { replicas: 0, readyReplicas: 0, availableReplicas: 0, currentReplicas: 0, updatedReplicas: 0, currentRevision: current.metadata?.name ?? '', updateRevision: update.metadata?.name ?? '' };
    for (const pod of pods) {
      status.replicas++;
      if (isRunningAndReady(pod)) {
        status.readyReplicas = (status.readyReplicas ?? 0) + 1;
        if (isPodAvailable(pod, minReady, now)) status.availableReplicas = (status.availableReplicas ?? 0) + 1;
      }
      if (isTerminating(pod)) continue;
      const rev = pod.metadata?.labels?.[controllerRevisionHashLabel];
      if (rev === status.currentRevision) status.currentReplicas = (status.currentReplicas ?? 0) + 1;
      if (rev === status.updateRevision) status.updatedReplicas = (status.updatedReplicas ?? 0) + 1;
    }
    // A finished rolling update: the update revision becomes the current one (completeRollingUpdate).
    const replicas = set.spec?.replicas ?? 1;
    if ((set.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate' && status.updatedReplicas === replicas && status.readyReplicas === replicas && status.replicas === replicas) {
      status.currentRevision = status.updateRevision;
      status.currentReplicas = status.updatedReplicas;
    }
    return status;
  }

  /** Creates, deletes and updates pods, one step at a time as the policy allows (updateStatefulSet). */
  async #update(set: StatefulSet, pods: Pod[], current: ControllerRevision, update: ControllerRevision): Promise<StatefulSetStatus> {
    const setName = set.metadata?.name ?? '';
    const replicaCount = set.spec?.replicas ?? 1;
    const monotonic = (set.spec?.podManagementPolicy ?? 'OrderedReady') !== 'Parallel';
    const rolling = (set.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
    const partition = rolling ? (set.spec?.updateStrategy?.rollingUpdate?.partition ?? 0) : 0;
    const minReady = set.spec?.minReadySeconds ?? 0;
    const healthy = (p: Pod): boolean => isRunningAndReady(p) && isPodAvailable(p, minReady, this.#clock.now());
    const replicas: (Pod | undefined)[] = Array.from({ length: replicaCount }, () => undefined);
    const condemned: Pod[] = [];
    for (const pod of pods) {
      const ord = ordinalOf(setName, pod);
      if (ord < replicaCount) replicas[ord] = pod;
      else condemned.push(pod);
    }
    condemned.sort((a, b) => ordinalOf(setName, b) - ordinalOf(setName, a));
    // The revision a missing pod gets: below the partition (or the current replicas for OnDelete) the
    // current one, else the update one (newVersionedStatefulSetPod).
    const currentCount = set.status?.currentReplicas ?? 0;
    const revisionFor = (ord: number): ControllerRevision => ((rolling ? ord < partition : ord < currentCount) && current !== update ? current : update);
    const done = (): StatefulSetStatus => this.#status(set, pods, current, update);
    if (this.#gates.StatefulSetAutoDeletePVC) {
      // The claims' owner references follow the retention policy, a scaled-down pod's before it goes.
      for (const pod of pods) if (!isTerminating(pod)) await this.#fixClaims(set, pod, ordinalOf(setName, pod) < replicaCount);
    }

    for (let ord = 0; ord < replicaCount; ord++) {
      const pod = replicas[ord];
      if (pod !== undefined && isFailed(pod) && !isTerminating(pod)) {
        // A failed pod is deleted and created again.
        await this.#deletePod(set, pod);
        if (monotonic) return done();
        continue;
      }
      if (pod === undefined) {
        // PodClaimIsStale: a claim still owned by the deleted pod of this name waits for the garbage collector.
        if (this.#gates.StatefulSetAutoDeletePVC && this.#claimIsStale(set, `${setName}-${ord}`)) return done();
        await this.#createPod(set, this.#newPod(set, revisionFor(ord), ord));
        if (monotonic) return done();
        continue;
      }
      if (isTerminating(pod) && monotonic) return done();
      if (!healthy(pod) && monotonic) return done();
    }
    for (const pod of condemned) {
      if (isTerminating(pod)) {
        if (monotonic) return done();
        continue;
      }
      // Scale down only once every kept pod is healthy (OrderedReady).
      if (monotonic && replicas.some((p) => p === undefined || !healthy(p))) return done();
      await this.#deletePod(set, pod);
      if (monotonic) return done();
    }
    if (!rolling) return done();
    if (this.#gates.MaxUnavailableStatefulSet) {
      // updateStatefulSet with maxUnavailable: old pods from the highest ordinal down, as many as
      // maxUnavailable less those already unavailable.
      const maxUnavailable = Math.max(1, scaledValue(set.spec?.updateStrategy?.rollingUpdate?.maxUnavailable ?? 1, replicaCount, false));
      const unavailable = replicas.filter((p) => p === undefined || isTerminating(p) || !healthy(p)).length;
      let budget = maxUnavailable - unavailable;
      for (let ord = replicaCount - 1; ord >= partition && budget > 0; ord--) {
        const pod = replicas[ord];
        if (pod === undefined || isTerminating(pod) || pod.metadata?.labels?.[controllerRevisionHashLabel] === update.metadata?.name) continue;
        await this.#deletePod(set, pod);
        budget--;
      }
      return done();
    }
    // RollingUpdate: from the highest ordinal down to the partition, one pod at a time.
    for (let ord = replicaCount - 1; ord >= partition; ord--) {
      const pod = replicas[ord];
      if (pod === undefined) continue;
      if (pod.metadata?.labels?.[controllerRevisionHashLabel] !== update.metadata?.name && !isTerminating(pod)) {
        await this.#deletePod(set, pod);
        return done();
      }
      if (!healthy(pod)) return done();
    }
    return done();
  }

  /** The claims a pod of `set` named `podName` uses, by template (getPersistentVolumeClaims), from the cache. */
  #claimsOf(set: StatefulSet, podName: string): PersistentVolumeClaim[] {
    const ns = set.metadata?.namespace ?? '';
    const out: PersistentVolumeClaim[] = [];
    for (const t of set.spec?.volumeClaimTemplates ?? []) {
      try {
        out.push(this.#claimLister.namespace(ns).get(`${t.metadata?.name ?? ''}-${podName}`));
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    return out;
  }

  /** Whether a claim of the pod to create still belongs to a deleted pod of its name (PodClaimIsStale). */
  #claimIsStale(set: StatefulSet, podName: string): boolean {
    if (claimRetentionPolicy(set).whenScaled === 'Retain') return false;
    return this.#claimsOf(set, podName).some((c) => hasStaleOwnerRef(c, { metadata: { name: podName, uid: '' } }, 'Pod'));
  }

  /** Sets the owner references of the pod's claims as the retention policy wants (UpdatePodClaimForRetentionPolicy). */
  async #fixClaims(set: StatefulSet, pod: Pod, inRange: boolean): Promise<void> {
    const client = this.#ctx.client.coreV1().persistentVolumeClaims(set.metadata?.namespace ?? '');
    for (const claim of this.#claimsOf(set, pod.metadata?.name ?? '')) {
      if (isClaimOwnerUpToDate(claim, set, pod, inRange)) continue;
      const ownerReferences = claimOwnerRefsForSetAndPod(claim, set, pod, inRange);
      try {
        await client.update({ ...claim, metadata: { ...claim.metadata, ownerReferences } });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
  }

  /** Deletes the oldest revisions beyond revisionHistoryLimit that no pod uses (truncateHistory). */
  async #truncateHistory(set: StatefulSet, pods: Pod[], revisions: ControllerRevision[], current: ControllerRevision, update: ControllerRevision): Promise<void> {
    const live = new Set<string>([current.metadata?.name ?? '', update.metadata?.name ?? '', ...pods.map((p) => p.metadata?.labels?.[controllerRevisionHashLabel] ?? '')]);
    const history = revisions.filter((r) => !live.has(r.metadata?.name ?? ''));
    const limit = set.spec?.revisionHistoryLimit ?? 10;
    const client = this.#ctx.client.appsV1().controllerRevisions(set.metadata?.namespace ?? '');
    for (const r of history.slice(0, Math.max(0, history.length - limit))) {
      try {
        await client.delete(r.metadata?.name ?? '');
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
  }
}
