/**
 * The DaemonSet controller (kubernetes/pkg/controller/daemon: daemon_controller.go, update.go,
 * util/daemonset_util.go), written as kube-controller-manager writes it, on kubeloom's client-go layer:
 * shared informers for DaemonSets, Nodes, Pods and ControllerRevisions, expectations, and one
 * {@link DaemonSetsController.syncDaemonSet}.
 *
 * Every node the DaemonSet should run on (its nodeSelector and required node affinity match the node's
 * labels, and the pod tolerates the node's NoSchedule/NoExecute taints) gets one daemon pod; others lose
 * theirs. Pods are left to the scheduler with a required node affinity on the node's name
 * (`metadata.name` matchFields, as ScheduleDaemonSetPods does), the tolerations DaemonSets add
 * (not-ready, unreachable, disk/memory/pid pressure, unschedulable), the `controller-revision-hash` label of
 * the DaemonSet's ControllerRevision and the deprecated `pod-template-generation` label (when the DaemonSet
 * carries the `deprecated.daemonset.template.generation` annotation). RollingUpdate
 * replaces old pods within maxUnavailable (default 1), or — with maxSurge (on by default since 1.22,
 * DaemonSetUpdateSurge) — first starts the new pod next to the old one on up to maxSurge nodes and deletes
 * the old pod once the new one is available (update.go rollingUpdate, podsShouldBeOnNode); OnDelete
 * leaves them. Status: desired, current and updated numbers scheduled (the oldest pod of a node counts),
 * misscheduled, ready, available, unavailable, observedGeneration.
 *
 * Left out: preferred affinity and other scheduling
 * predicates (resources, ports), `failed` pod backoff, and revision history cleanup.
 */
import type { ControllerRevision, DaemonSet, DaemonSetStatus } from '../../api/apps/v1.ts';
import type { Node, Pod, Toleration } from '../../api/core/v1.ts';
import { isAlreadyExists, isNotFound } from '../../apimachinery/errors.ts';
import { labelSelectorAsSelector, type LabelSelector } from '../../apimachinery/labels.ts';
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
import { canonicalJson, getControllerOf, isPodAvailable, isPodReady, newControllerRef, podTemplateHash, pruneZero } from '../controller-utils.ts';
import { scaledValue } from '../deployment/deployment-util.ts';
import { RealPodControl } from '../pod-control.ts';
import { findMatchingUntoleratedTaint, podMatchesNodeSelectorAndAffinityTerms } from '../scheduling-helpers.ts';

const dsApiVersion = 'apps/v1';
const dsKind = 'DaemonSet';
const revisionHashLabel = 'controller-revision-hash';
const templateGenerationLabel = 'pod-template-generation';
const templateGenerationAnnotation = 'deprecated.daemonset.template.generation';

/** The tolerations every daemon pod gets (util.AddOrUpdateDaemonPodTolerations). */
export const daemonPodTolerations: readonly Toleration[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
];

/** Whether a daemon pod of `ds` should run on `node` (NodeShouldRunDaemonPod, the predicates kept). */
export function nodeShouldRunDaemonPod(ds: DaemonSet, node: Node): boolean {
  const spec = ds.spec?.template?.spec;
  if (!podMatchesNodeSelectorAndAffinityTerms(spec, node)) return false;
  return findMatchingUntoleratedTaint(node.spec?.taints ?? [], [...(spec?.tolerations ?? []), ...daemonPodTolerations]) === undefined;
}

/** The DaemonSet controller; see the file comment. */
export class DaemonSetsController {
  /** The queue and its workers. */
  readonly controller: Controller;
  /** Pending creates and deletes per DaemonSet key. */
  readonly expectations: UIDTrackingControllerExpectations;
  readonly #ctx: ControllerContext;
  readonly #clock: Clock;
  readonly #dsLister: Lister<DaemonSet>;
  readonly #nodeLister: Lister<Node>;
  readonly #podLister: Lister<Pod>;
  readonly #revisionLister: Lister<ControllerRevision>;
  readonly #podControl: RealPodControl;

  constructor(ctx: ControllerContext, options: { workers?: number } = {}) {
    this.#ctx = ctx;
    this.#clock = ctx.clock;
    this.#podControl = new RealPodControl(ctx.client, recorderFor(ctx, 'daemonset-controller'));
    this.expectations = new UIDTrackingControllerExpectations({ clock: ctx.clock });
    const dss = ctx.informerFactory.appsV1().daemonSets();
    const nodes = ctx.informerFactory.coreV1().nodes();
    const pods = ctx.informerFactory.coreV1().pods();
    const revisions = ctx.informerFactory.appsV1().controllerRevisions();
    this.#dsLister = dss.lister();
    this.#nodeLister = nodes.lister();
    this.#podLister = pods.lister();
    this.#revisionLister = revisions.lister();
    this.controller = newSyncController(ctx, {
      name: 'daemonset',
      informers: [dss.informer(), nodes.informer(), pods.informer(), revisions.informer()],
      // kube-controller-manager's --concurrent-daemonset-syncs default.
      workers: options.workers ?? 2,
      reconcile: (key) => this.syncDaemonSet(key),
    });
    const onDs = (obj: DaemonSet | DeletedFinalStateUnknown<DaemonSet>): void => {
      const ds = objectOf(obj);
      const key = ds !== undefined ? objectKey(ds) : (obj as DeletedFinalStateUnknown<DaemonSet>).key;
      if (ds === undefined) this.expectations.deleteExpectations(key);
      this.controller.add(key);
    };
    dss.informer().addEventHandler({ onAdd: onDs, onUpdate: (_o, d) => onDs(d), onDelete: onDs });
    const all = (): void => {
      for (const ds of this.#dsLister.list()) this.controller.add(objectKey(ds));
    };
    nodes.informer().addEventHandler({
      onAdd: all,
      onUpdate: (o, n) => {
        if (o.metadata?.resourceVersion !== n.metadata?.resourceVersion) all();
      },
      onDelete: all,
    });
    const onPod = (pod: Pod | undefined, what: 'add' | 'update' | 'delete'): void => {
      const ref = pod === undefined ? undefined : getControllerOf(pod);
      if (pod === undefined || ref?.kind !== dsKind) return;
      const key = `${pod.metadata?.namespace ?? ''}/${ref.name}`;
      if (what === 'add') this.expectations.creationObserved(key);
      if (what === 'delete') this.expectations.deletionObservedOf(key, objectKey(pod));
      this.controller.add(key);
    };
    pods.informer().addEventHandler({
      onAdd: (p) => onPod(p, 'add'),
      onUpdate: (o, p) => {
        if (o.metadata?.resourceVersion !== p.metadata?.resourceVersion) onPod(p, p.metadata?.deletionTimestamp !== undefined && o.metadata?.deletionTimestamp === undefined ? 'delete' : 'update');
      },
      onDelete: (obj) => onPod(objectOf(obj), 'delete'),
    });
  }

  /** Runs the workers until `signal` aborts (after the caches synced). */
  run(options: { signal: AbortSignal }): Promise<void> {
    return this.controller.run(options);
  }

  /** Places and removes daemon pods, rolls them, and writes the status (syncDaemonSet). Exposed for tests. */
  async syncDaemonSet(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    let ds: DaemonSet;
    try {
      ds = structuredClone(this.#dsLister.namespace(namespace).get(name));
    } catch (err) {
      if (!isNotFound(err)) throw err;
      this.expectations.deleteExpectations(key);
      return;
    }
    let selector: LabelSelector;
    try {
      selector = labelSelectorAsSelector(ds.spec?.selector);
    } catch {
      return;
    }
    if (selector.empty()) return;
    const dsClient = this.#ctx.client.appsV1().daemonSets(namespace);
    const canAdopt = recheckDeletionTimestamp(() => dsClient.get(name), ds, dsKind);
    const pods = await new ControllerRefManager<Pod>({ controller: ds, apiVersion: dsApiVersion, kind: dsKind, selector, client: this.#ctx.client.coreV1().pods(namespace), canAdopt }).claim(this.#podLister.namespace(namespace).list());
    const hash = await this.#revision(ds, selector, canAdopt);
    const nodes = this.#nodeLister.list();
    const byNode = new Map<string, Pod[]>();
    for (const pod of pods) {
      if (pod.metadata?.deletionTimestamp !== undefined) continue;
      const node = nodeOfDaemonPod(pod);
      if (node === undefined) continue;
      byNode.set(node, [...(byNode.get(node) ?? []), pod]);
    }
    if (ds.metadata?.deletionTimestamp === undefined && this.expectations.satisfiedExpectations(key)) await this.#manage(ds, nodes, byNode, hash);
    await this.#updateStatus(ds, nodes, byNode, hash);
  }

  /** The hash of the DaemonSet's current ControllerRevision, created when missing (constructHistory). */
  async #revision(ds: DaemonSet, selector: LabelSelector, canAdopt: () => Promise<void>): Promise<string> {
    const ns = ds.metadata?.namespace ?? '';
    const client = this.#ctx.client.appsV1().controllerRevisions(ns);
    const revisions = await new ControllerRefManager<ControllerRevision>({ controller: ds, apiVersion: dsApiVersion, kind: dsKind, selector, client, canAdopt }).claim(this.#revisionLister.namespace(ns).list());
    const data = { spec: { template: { ...structuredClone(ds.spec?.template ?? {}), $patch: 'replace' } } };
    // update.go snapshot: controller.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount).
    const hash = podTemplateHash(ds.spec?.template, ds.status?.collisionCount);
    const name = `${ds.metadata?.name ?? ''}-${hash}`;
    const maxRevision = revisions.reduce((m, r) => Math.max(m, r.revision ?? 0), 0);
    // constructHistory matches revisions by their data (Match), so one written under an older hash (e.g.
    // before this hash followed upstream's) stays current and its label keeps the pods updated.
    const dataJson = canonicalJson(data);
    const existing = revisions.find((r) => r.metadata?.name === name) ?? revisions.find((r) => canonicalJson(r.data) === dataJson);
    if (existing !== undefined) {
      if ((existing.revision ?? 0) < maxRevision) await client.update({ ...existing, revision: maxRevision + 1 });
      return existing.metadata?.labels?.[revisionHashLabel] ?? hash;
    }
    try {
      await client.create({
        metadata: { name, namespace: ns, labels: { ...ds.spec?.template?.metadata?.labels, [revisionHashLabel]: hash }, ownerReferences: [newControllerRef(ds, dsApiVersion, dsKind)] },
        data,
        revision: maxRevision + 1,
      });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    return hash;
  }

  async #manage(ds: DaemonSet, nodes: Node[], byNode: Map<string, Pod[]>, hash: string): Promise<void> {
    const key = objectKey(ds);
    const rolling = (ds.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
    const { maxSurge, maxUnavailable } = updatedDesiredNodeCounts(ds, nodes);
    const now = this.#clock.now();
    const minReady = ds.spec?.minReadySeconds ?? 0;
    const toCreate: string[] = [];
    const toDelete: Pod[] = [];
    for (const node of nodes) {
      const nodeName = node.metadata?.name ?? '';
      const daemonPods = byNode.get(nodeName) ?? [];
      if (nodeShouldRunDaemonPod(ds, node)) {
        // A failed daemon pod is deleted (and replaced on the next sync); extra ones go, oldest kept.
        const failed = daemonPods.filter((p) => p.status?.phase === 'Failed');
        toDelete.push(...failed);
        const running = daemonPods.filter((p) => p.status?.phase !== 'Failed').sort(byCreationTimestampAndPhase);
        if (running.length === 0 && failed.length === 0) toCreate.push(nodeName);
        else if (running.length > 1) {
          if (maxSurge === 0) toDelete.push(...running.slice(1));
          else {
            // With surge, a node keeps its oldest new pod and its oldest old pod, the old one only while it
            // is ready and the new one not yet available.
            let oldestNew: Pod | undefined;
            let oldestOld: Pod | undefined;
            for (const pod of running) {
              if (pod.metadata?.labels?.[revisionHashLabel] === hash) {
                if (oldestNew === undefined) oldestNew = pod;
                else toDelete.push(pod);
              } else if (oldestOld === undefined) oldestOld = pod;
              else toDelete.push(pod);
            }
            if (oldestNew !== undefined && oldestOld !== undefined && (!isPodReady(oldestOld) || isPodAvailable(oldestNew, minReady, now))) toDelete.push(oldestOld);
          }
        }
      } else toDelete.push(...daemonPods);
    }
    if (rolling && toCreate.length === 0 && toDelete.length === 0 && maxSurge > 0) {
      const surge = this.#surgeUpdate(ds, nodes, byNode, hash, maxSurge);
      toCreate.push(...surge.toCreate);
      toDelete.push(...surge.toDelete);
    } else if (rolling && toCreate.length === 0 && toDelete.length === 0) {
      // RollingUpdate: old pods go while the number unavailable stays within maxUnavailable.
      let unavailable = 0;
      const oldPods: Pod[] = [];
      for (const node of nodes) {
        if (!nodeShouldRunDaemonPod(ds, node)) continue;
        const pod = (byNode.get(node.metadata?.name ?? '') ?? [])[0];
        if (pod === undefined || !isPodAvailable(pod, minReady, now)) unavailable++;
        if (pod !== undefined && pod.metadata?.labels?.[revisionHashLabel] !== hash) oldPods.push(pod);
      }
      // Unavailable old pods first, then available ones within the budget.
      const unavailableOld = oldPods.filter((p) => !isPodAvailable(p, minReady, now));
      const availableOld = oldPods.filter((p) => isPodAvailable(p, minReady, now));
      toDelete.push(...unavailableOld);
      for (const p of availableOld) {
        if (unavailable >= maxUnavailable) break;
        toDelete.push(p);
        unavailable++;
      }
    }
    const ns = ds.metadata?.namespace ?? '';
    const subject = withKind(ds, dsApiVersion, dsKind);
    // Deletions expected by pod key (each counted once), creations by number.
    this.expectations.expectDeletionsOf(key, toDelete.map((p) => objectKey(p)));
    this.expectations.raiseExpectations(key, toCreate.length, 0);
    const errors: unknown[] = [];
    await Promise.all(
      toCreate.map(async (nodeName) => {
        try {
          await this.#podControl.createPods(ns, this.#newPod(ds, nodeName, hash), subject);
        } catch (err) {
          this.expectations.creationObserved(key);
          errors.push(err);
        }
      }),
    );
    await Promise.all(
      toDelete.map(async (pod) => {
        try {
          await this.#podControl.deletePod(ns, pod.metadata?.name ?? '', subject);
        } catch (err) {
          if (isNotFound(err)) return;
          this.expectations.deletionObservedOf(key, objectKey(pod));
          errors.push(err);
        }
      }),
    );
    if (errors.length > 0) throw errors[0] instanceof Error ? errors[0] : new Error(String(errors[0]));
  }

  /**
   * The surge half of update.go's rollingUpdate: a node whose only pod is old and unavailable gets its
   * new pod at once; a node whose old pod is available is a candidate, up to maxSurge surging at a time
   * (a node with a new pod not yet available, or with more pods than one old and one new, counts as
   * surging); an old pod goes once the new pod next to it is available.
   */
  #surgeUpdate(ds: DaemonSet, nodes: readonly Node[], byNode: Map<string, Pod[]>, hash: string, maxSurge: number): { toCreate: string[]; toDelete: Pod[] } {
    const now = this.#clock.now();
    const minReady = ds.spec?.minReadySeconds ?? 0;
    const toDelete: Pod[] = [];
    const allowed: string[] = [];
    const candidates: string[] = [];
    let surging = 0;
    const nodeByName = new Map(nodes.map((n) => [n.metadata?.name ?? '', n]));
    for (const [nodeName, pods] of byNode) {
      const found = findUpdatedPodsOnNode(pods, hash);
      if (found === undefined) {
        surging++;
        continue;
      }
      const { newPod, oldPod } = found;
      if (oldPod === undefined) continue;
      if (newPod === undefined) {
        if (isPodAvailable(oldPod, minReady, now)) candidates.push(nodeName);
        else {
          const node = nodeByName.get(nodeName);
          if (node === undefined || !nodeShouldRunDaemonPod(ds, node)) toDelete.push(oldPod);
          else allowed.push(nodeName);
        }
      } else if (!isPodAvailable(newPod, minReady, now)) surging++;
      else toDelete.push(oldPod);
    }
    const remaining = Math.min(Math.max(maxSurge - surging, 0), candidates.length);
    return { toCreate: [...allowed, ...candidates.slice(0, remaining)], toDelete };
  }

  #newPod(ds: DaemonSet, nodeName: string, hash: string): Pod {
    const template = structuredClone(ds.spec?.template ?? {});
    const spec = template.spec ?? { containers: [] };
    const tolerations = [...(spec.tolerations ?? [])];
    for (const t of daemonPodTolerations) if (!tolerations.some((x) => x.key === t.key && x.effect === t.effect)) tolerations.push(t);
    spec.tolerations = tolerations;
    // The deprecated template generation, when the API server recorded it (GetTemplateGeneration).
    const generation = ds.metadata?.annotations?.[templateGenerationAnnotation];
    // The scheduler places it on its node (ReplaceDaemonSetPodNodeNameNodeAffinity).
    spec.affinity = {
      ...spec.affinity,
      nodeAffinity: { ...spec.affinity?.nodeAffinity, requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] }] } },
    };
    return {
      metadata: {
        generateName: `${ds.metadata?.name ?? ''}-`,
        labels: { ...template.metadata?.labels, [revisionHashLabel]: hash, ...(generation === undefined ? {} : { [templateGenerationLabel]: generation }) },
        ...(template.metadata?.annotations === undefined ? {} : { annotations: { ...template.metadata.annotations } }),
        ownerReferences: [newControllerRef(ds, dsApiVersion, dsKind)],
      },
      spec,
    };
  }

  async #updateStatus(ds: DaemonSet, nodes: Node[], byNode: Map<string, Pod[]>, hash: string): Promise<void> {
    const now = this.#clock.now();
    const minReady = ds.spec?.minReadySeconds ?? 0;
    const status: DaemonSetStatus = {
      currentNumberScheduled: 0,
      numberMisscheduled: 0,
      desiredNumberScheduled: 0,
      numberReady: 0,
      updatedNumberScheduled: 0,
      numberAvailable: 0,
      numberUnavailable: 0,
      observedGeneration: ds.metadata?.generation ?? 0,
      ...(ds.status?.collisionCount === undefined ? {} : { collisionCount: ds.status.collisionCount }),
    };
    for (const node of nodes) {
      const pods = [...(byNode.get(node.metadata?.name ?? '') ?? [])].sort(byCreationTimestampAndPhase);
      if (nodeShouldRunDaemonPod(ds, node)) {
        status.desiredNumberScheduled++;
        const pod = pods[0];
        if (pod === undefined) {
          status.numberUnavailable = (status.numberUnavailable ?? 0) + 1;
          continue;
        }
        status.currentNumberScheduled++;
        if (isPodReady(pod)) status.numberReady++;
        if (isPodAvailable(pod, minReady, now)) status.numberAvailable = (status.numberAvailable ?? 0) + 1;
        else status.numberUnavailable = (status.numberUnavailable ?? 0) + 1;
        if (pod.metadata?.labels?.[revisionHashLabel] === hash) status.updatedNumberScheduled = (status.updatedNumberScheduled ?? 0) + 1;
      } else if (pods.length > 0) status.numberMisscheduled++;
    }
    if (canonicalJson(pruneZero(status)) === canonicalJson(pruneZero(ds.status ?? {}))) return;
    await this.#ctx.client.appsV1().daemonSets(ds.metadata?.namespace ?? '').updateStatus({ ...ds, status });
    if (minReady > 0 && status.numberReady !== status.numberAvailable) this.controller.addAfter(objectKey(ds), minReady * 1000);
  }
}

/** How many nodes a DaemonSet's rolling update may surge onto and leave without an available pod. */
export interface RollingUpdateBudget {
  /** Nodes that may run a new pod beside the old one at once. */
  maxSurge: number;
  /** Nodes that may be without an available pod at once. */
  maxUnavailable: number;
}

/**
 * A rolling update's budgets (updatedDesiredNodeCounts): maxSurge (default 0) and maxUnavailable (default
 * 1) scaled to the nodes that should run the pod, rounding up; both 0 with pods to run makes
 * maxUnavailable 1, so the update cannot stall.
 */
export function updatedDesiredNodeCounts(ds: DaemonSet, nodes: readonly Node[]): RollingUpdateBudget {
  const desired = nodes.filter((n) => nodeShouldRunDaemonPod(ds, n)).length;
  const rolling = ds.spec?.updateStrategy?.rollingUpdate;
  const maxSurge = scaledValue(rolling?.maxSurge ?? 0, desired, true);
  let maxUnavailable = scaledValue(rolling?.maxUnavailable ?? 1, desired, true);
  if (desired > 0 && maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable };
}

/** A node's new and old daemon pod, undefined when it has more than one of either (findUpdatedPodsOnNode). */
function findUpdatedPodsOnNode(pods: readonly Pod[], hash: string): { newPod?: Pod; oldPod?: Pod } | undefined {
  let newPod: Pod | undefined;
  let oldPod: Pod | undefined;
  for (const pod of pods) {
    if (pod.metadata?.deletionTimestamp !== undefined) continue;
    if (pod.metadata?.labels?.[revisionHashLabel] === hash) {
      if (newPod !== undefined) return undefined;
      newPod = pod;
    } else {
      if (oldPod !== undefined) return undefined;
      oldPod = pod;
    }
  }
  return { ...(newPod === undefined ? {} : { newPod }), ...(oldPod === undefined ? {} : { oldPod }) };
}

/** Scheduled pods first, then the oldest, then by name (podByCreationTimestampAndPhase). */
function byCreationTimestampAndPhase(a: Pod, b: Pod): number {
  const sa = (a.spec?.nodeName ?? '') !== '';
  const sb = (b.spec?.nodeName ?? '') !== '';
  if (sa !== sb) return sa ? -1 : 1;
  const ta = a.metadata?.creationTimestamp ?? '';
  const tb = b.metadata?.creationTimestamp ?? '';
  if (ta === tb) return (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');
  return ta < tb ? -1 : 1;
}

/** The node a daemon pod runs on or is meant for (its nodeName, else its node affinity's name). */
function nodeOfDaemonPod(pod: Pod): string | undefined {
  if ((pod.spec?.nodeName ?? '') !== '') return pod.spec!.nodeName;
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  for (const t of terms) for (const f of t.matchFields ?? []) if (f.key === 'metadata.name' && f.operator === 'In' && f.values?.length === 1) return f.values[0];
  return undefined;
}
