/**
 * A stand-in for kube-scheduler, so that workload controllers can be tested end to end: every pending pod
 * for `default-scheduler` (no spec.nodeName, not being deleted) is bound through pods/binding — as the
 * scheduler binds — to a node that is Ready, schedulable, matches the pod's nodeSelector and whose
 * NoSchedule/NoExecute taints the pod tolerates (a node that is not Ready counts as tainted
 * `node.kubernetes.io/not-ready`, as the node lifecycle controller would taint it); among those, the one running the fewest pods (then by
 * name). The pod's required node affinity (labels and `metadata.name` fields) is honoured, as DaemonSet pods
 * need. A pod no node fits gets PodScheduled=False, reason Unschedulable, with a message in the
 * scheduler's words, and is retried when a node changes. With `events`, a bound pod gets the scheduler's
 * `Scheduled` event (pkg/scheduler/schedule_one.go: "Successfully assigned <ns>/<name> to <node>", source
 * default-scheduler). No scoring, preferred or pod affinity, resources or
 * preemption.
 */
import type { Node, Pod, Taint } from '../../api/core/v1.ts';
import { isForbidden } from '../../apimachinery/errors.ts';
import { findMatchingUntoleratedTaint, podMatchesNodeSelectorAndAffinityTerms } from '../../controllers/scheduling-helpers.ts';
import type { Clock } from '../../util/clock/clock.ts';
import { formatTime } from '../handlers/scope.ts';
import { isObject, metaOf } from '../object-meta.ts';
import { bindPod, updatePodCondition } from '../registry/core/pod-binding.ts';
import { admitNamespaceLifecycle } from '../admission/namespace-lifecycle.ts';
import type { ControllerStats, ServerController } from './controller.ts';
import { EventRecorder } from './event-recorder.ts';
import type { LoopbackClient } from './loopback-client.ts';
import { NodeLoad } from './node-load.ts';
import { QueueWorker } from './queue-worker.ts';

type Obj = Record<string, unknown>;

/** The scheduler name pods get by default (and the only one this stand-in serves). */
export const defaultSchedulerName = 'default-scheduler';

/** Whether the scheduler should place `pod`. */
function needsScheduling(pod: Pod): boolean {
  if (pod.metadata?.deletionTimestamp !== undefined) return false;
  if ((pod.spec?.nodeName ?? '') !== '') return false;
  if ((pod.spec?.schedulerName ?? defaultSchedulerName) !== defaultSchedulerName) return false;
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed';
}

function isReady(node: Node): boolean {
  return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

// v1.TaintNodeNotReady with the NoSchedule effect.
const notReadyTaint: Taint = { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' };

/** Why `node` does not fit `pod`, in the words of the scheduler's filter plugins, or undefined when it fits. */
function unfitReason(pod: Pod, node: Node): string | undefined {
  if (node.spec?.unschedulable === true) return 'node(s) were unschedulable';
  // The nodeSelector, and the required node affinity (labels and metadata.name fields).
  if (!podMatchesNodeSelectorAndAffinityTerms(pod.spec, node)) return "node(s) didn't match Pod's node affinity/selector";
  // The node lifecycle controller taints a node that is not Ready; this server has none, so the taint is implied.
  const taints = [...(node.spec?.taints ?? []), ...(isReady(node) ? [] : [notReadyTaint])];
  const taint = findMatchingUntoleratedTaint(taints, pod.spec?.tolerations ?? []);
  return taint === undefined ? undefined : `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`;
}

/** FitError.Error(): "0/N nodes are available: <count> <reason>, ...". */
function fitErrorMessage(total: number, reasons: ReadonlyMap<string, number>): string {
  if (total === 0) return 'no nodes available to schedule pods';
  const parts = [...reasons].map(([r, n]) => `${n} ${r}`).sort();
  return `0/${total} nodes are available: ${parts.join(', ')}. preemption: 0/${total} nodes are available: ${total} Preemption is not helpful for scheduling.`;
}

/**
 * What decides whether a pod fits a node (the inputs of {@link unfitReason} on the pod's side): pods with
 * the same signature fit the same nodes, so the filtering is done once per signature until a node changes.
 */
function fitSignature(pod: Pod): string {
  const spec = pod.spec;
  return JSON.stringify([spec?.nodeSelector, spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution, spec?.tolerations]);
}

/** The filtering of every node for one fit signature: the names of the nodes that fit, and why the others do not. */
interface Feasible {
  fits: ReadonlySet<string>;
  total: number;
  reasons: ReadonlyMap<string, number>;
}

// Distinct signatures kept between node changes (a Deployment's pods share one; a DaemonSet's differ per node).
const maxCachedSignatures = 4096;

/** The scheduler stand-in; see the file comment. */
export class FakeScheduler implements ServerController {
  readonly #client: LoopbackClient;
  readonly #clock: Clock;
  readonly #worker: QueueWorker<string>;
  readonly #unsubscribe: (() => void)[] = [];
  // Pods found unschedulable, retried when a node changes.
  readonly #unschedulable = new Set<string>();
  // The node each assigned, unfinished pod runs on, and the count per node: kept as pods change, so that
  // placing a pod does not list every pod.
  readonly #placed = new Map<string, string>();
  readonly #load = new NodeLoad();
  readonly #stats: ControllerStats;
  readonly #recorder: EventRecorder | undefined;
  // Fit signature → the nodes its pods fit; emptied whenever a node changes, so placing the pods of one
  // template filters the nodes once (kube-scheduler's equivalence cache, without its finer invalidation).
  readonly #feasible = new Map<string, Feasible>();

  /** With `events`, bound pods get a `Scheduled` event. */
  constructor(options: { client: LoopbackClient; clock: Clock; stats: ControllerStats; onError: (error: unknown) => void; events?: boolean }) {
    this.#client = options.client;
    this.#recorder = options.events === true ? new EventRecorder(options.client, options.clock, defaultSchedulerName) : undefined;
    this.#stats = options.stats;
    this.#clock = options.clock;
    this.#worker = new QueueWorker<string>({ clock: options.clock, process: (key) => this.#schedule(key), onError: (err) => options.onError(err), trace: { controller: 'scheduler' } });
  }

  start(): void {
    const storage = this.#client.scope.storage;
    this.#unsubscribe.push(
      storage.subscribe('pods', (c) => {
        this.#track(c.key, c.type === 'DELETED' ? undefined : (c.object.obj as Pod));
        if (c.type === 'DELETED') this.#unschedulable.delete(c.key);
        else if (needsScheduling(c.object.obj as Pod)) this.#worker.queue.add(c.key);
      }),
      storage.subscribe('nodes', () => {
        this.#feasible.clear();
        for (const key of this.#unschedulable) this.#worker.queue.add(key);
      }),
    );
    for (const s of storage.listAt('pods', storage.revision)) {
      this.#track(s.key, s.obj as Pod);
      if (needsScheduling(s.obj as Pod)) this.#worker.queue.add(s.key);
    }
    this.#worker.start();
  }

  /** Keeps the per-node count of assigned, unfinished pods up to date with one pod's change. */
  #track(key: string, pod: Pod | undefined): void {
    const before = this.#placed.get(key);
    const phase = pod?.status?.phase;
    const after = pod !== undefined && phase !== 'Succeeded' && phase !== 'Failed' ? pod.spec?.nodeName : undefined;
    if (before === after) return;
    if (before !== undefined) {
      this.#load.add(before, -1);
      this.#placed.delete(key);
    }
    if (after !== undefined && after !== '') {
      this.#load.add(after, 1);
      this.#placed.set(key, after);
    }
  }

  async stop(): Promise<void> {
    for (const u of this.#unsubscribe) u();
    await this.#worker.stop();
  }

  idle(): boolean {
    return this.#worker.idle();
  }

  /** The nodes `pod` fits (filtered once per fit signature between node changes). */
  #filter(pod: Pod): Feasible {
    const signature = fitSignature(pod);
    const cached = this.#feasible.get(signature);
    if (cached !== undefined) return cached;
    const storage = this.#client.scope.storage;
    const nodes = storage.listAt('nodes', storage.revision);
    const reasons = new Map<string, number>();
    const fits = new Set<string>();
    for (const s of nodes) {
      const node = s.obj as Node;
      const why = unfitReason(pod, node);
      if (why === undefined) {
        const name = node.metadata?.name ?? '';
        fits.add(name);
        this.#load.track(name);
      } else reasons.set(why, (reasons.get(why) ?? 0) + 1);
    }
    const feasible: Feasible = { fits, total: nodes.length, reasons };
    if (this.#feasible.size >= maxCachedSignatures) this.#feasible.clear();
    this.#feasible.set(signature, feasible);
    return feasible;
  }

  #schedule(key: string): void {
    const storage = this.#client.scope.storage;
    const pod = storage.get('pods', key)?.obj as Pod | undefined;
    if (pod === undefined || !needsScheduling(pod)) {
      this.#unschedulable.delete(key);
      return;
    }
    const { fits, total, reasons } = this.#filter(pod);
    const namespace = pod.metadata?.namespace ?? '';
    const name = pod.metadata?.name ?? '';
    if (fits.size === 0) {
      this.#unschedulable.add(key);
      const message = fitErrorMessage(total, reasons);
      this.#client.update(
        this.#client.resourceFor('v1', 'Pod'),
        namespace,
        name,
        (o) => {
          const status: Obj = isObject(o.status) ? o.status : {};
          const changed = updatePodCondition(status, { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message }, formatTime(this.#clock.now()));
          return changed ? { ...o, status } : undefined;
        },
        'status',
      );
      return;
    }
    this.#unschedulable.delete(key);
    // The least-loaded node, then the first by name (every fitting node was indexed by #filter).
    const target = this.#load.leastLoaded(fits)!;
    const scope = this.#client.scope;
    try {
      admitNamespaceLifecycle(scope.storage, { operation: 'CREATE', group: '', resource: 'pods', namespace, name, object: { metadata: { name } } });
    } catch (err) {
      // The namespace is being terminated: the pod is about to go.
      if (isForbidden(err)) return;
      throw err;
    }
    bindPod(scope, namespace, name, { apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace, uid: metaOf(pod as Obj).uid }, target: { apiVersion: 'v1', kind: 'Node', name: target } }, false);
    this.#stats.podsBound++;
    this.#recorder?.normal({ apiVersion: 'v1', kind: 'Pod', name, namespace, uid: pod.metadata?.uid ?? '' }, 'Scheduled', `Successfully assigned ${namespace}/${name} to ${target}`);
  }
}
