/**
 * The node lifecycle controller (kubernetes/pkg/controller/nodelifecycle/node_lifecycle_controller.go,
 * v1.24, with the taint manager on: --enable-taint-manager's default), written on kubeloom's client-go layer.
 *
 * Every {@link NodeLifecycleOptions.nodeMonitorPeriodMs} (monitorNodeHealth) it looks at each node: the
 * node is healthy while its kubelet renews its Lease in kube-node-lease or changes its Ready condition's
 * heartbeat. When neither happened for the grace period (node-monitor-grace-period; node-startup-grace-period
 * for a node whose kubelet never posted a Ready condition), the Ready, MemoryPressure, DiskPressure and
 * PIDPressure conditions become Unknown — reason NodeStatusUnknown, "Kubelet stopped posting node status."
 * (NodeStatusNeverUpdated, "Kubelet never posted node status." for a condition that was never there) —
 * the node gets a Normal `NodeNotReady` event and its pods' Ready condition turns False (MarkPodsNotReady,
 * Warning `NodeNotReady` "Node is not ready" on each pod).
 *
 * Taints, kept in step with the conditions:
 * - NoSchedule (doNoScheduleTaintingPass, on every node change): `not-ready` for Ready=False,
 *   `unreachable` for Ready=Unknown, `memory-pressure`, `disk-pressure`, `pid-pressure`,
 *   `network-unavailable` for those conditions True, `unschedulable` for spec.unschedulable — the
 *   TaintNodesByCondition behaviour the scheduler relies on;
 * - NoExecute `not-ready` / `unreachable` (mutually exclusive), added through each zone's rate-limited
 *   queue ({@link RateLimitedTimedQueue}: --node-eviction-rate 0.1/s with burst 1) on the pass after the
 *   one that saw the node go, and taken off (markNodeAsReachable) as soon as the node is Ready again. The
 *   NoExecute taints then evict pods through the {@link NoExecuteTaintManager}.
 *
 * Zones (handleDisruption): nodes are grouped by their topology.kubernetes.io region and zone labels
 * (failure-domain.beta.kubernetes.io as fallback; nodes labelled node.kubernetes.io/exclude-disruption are
 * not counted). A zone is Normal, PartiallyDisrupted (more than 2 not-ready nodes and at least
 * --unhealthy-zone-threshold 55 % of them: rate --secondary-node-eviction-rate 0.01/s above
 * --large-cluster-size-threshold 50 nodes, else 0) or FullyDisrupted (no ready node: the normal rate).
 * When every zone is fully disrupted the controller assumes the control plane lost its network, not the
 * nodes: it takes every NoExecute taint off and stops tainting until a node is ready again, then gives
 * every node a fresh grace period.
 *
 * Left out: the eviction path without the taint manager (--enable-taint-manager=false, deprecated),
 * metrics, the cloud provider's shutdown taint, and the daemon-set pods filter of processPod (pods bound
 * to a not-ready node are marked not ready whoever owns them, as upstream).
 */
import type { Lease } from '../../api/coordination/v1.ts';
import type { Node, NodeCondition, Pod, Taint } from '../../api/core/v1.ts';
import { isNotFound } from '../../apimachinery/errors.ts';
import type { Controller } from '../../controller/controller.ts';
import type { Lister } from '../../tools/cache/lister.ts';
import type { EventRecorder } from '../../tools/events/record/event.ts';
import { newSyncController, recorderFor, withKind, type ControllerContext } from '../controller-context.ts';
import { nowTime, timeMs } from '../controller-utils.ts';
import { removeTaintOffNode, swapNodeControllerTaint, taintExists } from './node-taints.ts';
import { RateLimitedTimedQueue } from './rate-limited-queue.ts';
import { NoExecuteTaintManager } from './taint-manager.ts';

/** --node-monitor-period default (NodeLifecycleControllerConfiguration). */
export const defaultNodeMonitorPeriodMs = 5_000;
/** --node-monitor-grace-period default. */
export const defaultNodeMonitorGracePeriodMs = 40_000;
/** --node-startup-grace-period default. */
export const defaultNodeStartupGracePeriodMs = 60_000;
/** --node-eviction-rate default (nodes per second tainted NoExecute in a healthy zone). */
export const defaultNodeEvictionRate = 0.1;
/** --secondary-node-eviction-rate default (a partially disrupted zone above the large-cluster size). */
export const defaultSecondaryNodeEvictionRate = 0.01;
/** --large-cluster-size-threshold default. */
export const defaultLargeClusterSizeThreshold = 50;
/** --unhealthy-zone-threshold default. */
export const defaultUnhealthyZoneThreshold = 0.55;
/** scheduler.NodeEvictionPeriod: how often the NoExecute tainting queue is looked at. */
export const nodeEvictionPeriodMs = 100;
/** scheduler.NodeHealthUpdateRetry: attempts of one node status update. */
export const nodeHealthUpdateRetry = 5;

/** The taint keys of node conditions (k8s.io/api/core/v1 well_known_taints.go). */
export const TaintNodeNotReady = 'node.kubernetes.io/not-ready';
/** See {@link TaintNodeNotReady}. */
export const TaintNodeUnreachable = 'node.kubernetes.io/unreachable';
/** See {@link TaintNodeNotReady}. */
export const TaintNodeUnschedulable = 'node.kubernetes.io/unschedulable';
/** The label that keeps a node out of the zone disruption counts (NodeDisruptionExclusion). */
export const labelNodeExcludeDisruption = 'node.kubernetes.io/exclude-disruption';

/** UnreachableTaintTemplate. */
export const unreachableTaintTemplate: Taint = { key: TaintNodeUnreachable, effect: 'NoExecute' };
/** NotReadyTaintTemplate. */
export const notReadyTaintTemplate: Taint = { key: TaintNodeNotReady, effect: 'NoExecute' };

// nodeConditionToTaintKeyStatusMap.
const conditionTaints: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  Ready: { False: TaintNodeNotReady, Unknown: TaintNodeUnreachable },
  MemoryPressure: { True: 'node.kubernetes.io/memory-pressure' },
  DiskPressure: { True: 'node.kubernetes.io/disk-pressure' },
  NetworkUnavailable: { True: 'node.kubernetes.io/network-unavailable' },
  PIDPressure: { True: 'node.kubernetes.io/pid-pressure' },
};
const conditionTaintKeys = new Set(Object.values(conditionTaints).flatMap((m) => Object.values(m)));

/** A zone's disruption state (ZoneState). */
export const ZoneState = {
  /** Seen for the first time; no state computed yet. */
  Initial: 'Initial',
  /** Tainting at --node-eviction-rate. */
  Normal: 'Normal',
  /** No node of the zone is ready. */
  FullDisruption: 'FullDisruption',
  /** More than 2 nodes and at least --unhealthy-zone-threshold of them not ready. */
  PartialDisruption: 'PartialDisruption',
} as const;
/** See {@link ZoneState}. */
export type ZoneStateValue = (typeof ZoneState)[keyof typeof ZoneState];

/** Options of {@link NodeLifecycleController}; every default is kube-controller-manager v1.24's. */
export interface NodeLifecycleOptions {
  /** Pause between two health passes (default 5 s). */
  nodeMonitorPeriodMs?: number;
  /** Silence after which a node is Unknown (default 40 s). */
  nodeMonitorGracePeriodMs?: number;
  /** The same for a node that never posted a Ready condition (default 60 s). */
  nodeStartupGracePeriodMs?: number;
  /** Nodes per second tainted NoExecute in a healthy zone (default 0.1). */
  nodeEvictionRate?: number;
  /** The rate in a partially disrupted zone larger than the threshold (default 0.01). */
  secondaryNodeEvictionRate?: number;
  /** Zone size above which a partially disrupted zone keeps evicting (default 50). */
  largeClusterSizeThreshold?: number;
  /** Share of not-ready nodes that makes a zone partially disrupted (default 0.55). */
  unhealthyZoneThreshold?: number;
}

/** topology.GetZoneKey: region and zone labels (GA, then beta), '' when the node has neither. */
export function getZoneKey(node: Node): string {
  const labels = node.metadata?.labels ?? {};
  const region = labels['topology.kubernetes.io/region'] ?? labels['failure-domain.beta.kubernetes.io/region'] ?? '';
  const zone = labels['topology.kubernetes.io/zone'] ?? labels['failure-domain.beta.kubernetes.io/zone'] ?? '';
  if (region === '' && zone === '') return '';
  return `${region}:\u0000:${zone}`;
}

/** What {@link computeZoneState} finds. */
export interface ZoneHealth {
  /** Nodes whose Ready condition is not True (or missing). */
  notReady: number;
  /** The zone's state. */
  state: ZoneStateValue;
}

/**
 * ComputeZoneState: the number of not-ready nodes and the zone's state from its nodes' Ready conditions
 * (undefined: no condition, counted not ready).
 */
export function computeZoneState(ready: readonly (NodeCondition | undefined)[], unhealthyZoneThreshold = defaultUnhealthyZoneThreshold): ZoneHealth {
  let readyNodes = 0;
  let notReady = 0;
  for (const c of ready) {
    if (c?.status === 'True') readyNodes++;
    else notReady++;
  }
  if (readyNodes === 0 && notReady > 0) return { notReady, state: ZoneState.FullDisruption };
  if (notReady > 2 && notReady / (notReady + readyNodes) >= unhealthyZoneThreshold) return { notReady, state: ZoneState.PartialDisruption };
  return { notReady, state: ZoneState.Normal };
}

// nodeHealthData: what the controller last saw of a node.
interface NodeHealth {
  probeTimestamp: number;
  readyTransitionTimestamp: number;
  ready: NodeCondition | undefined;
  leaseRenewTime: number | undefined;
}

const readyOf = (node: Node): NodeCondition | undefined => node.status?.conditions?.find((c) => c.type === 'Ready');
const sameCondition = (a: NodeCondition | undefined, b: NodeCondition | undefined): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
const nodeIndex = 'spec.nodeName';
const monitorKey = 'monitor';
const taintPassKey = 'taint-pass';

/** The node lifecycle controller; see the file comment. */
export class NodeLifecycleController {
  /** The queue of the health passes, taint passes and node updates, and its worker. */
  readonly controller: Controller;
  /** The taint-based eviction of pods. */
  readonly taintManager: NoExecuteTaintManager;
  readonly #ctx: ControllerContext;
  readonly #recorder: EventRecorder;
  readonly #nodes: Lister<Node>;
  readonly #pods: Lister<Pod>;
  readonly #leases: Lister<Lease>;
  readonly #podsOnNode: (node: string) => Pod[];
  readonly #monitorPeriod: number;
  readonly #gracePeriod: number;
  readonly #startupGracePeriod: number;
  readonly #evictionRate: number;
  readonly #secondaryEvictionRate: number;
  readonly #largeClusterThreshold: number;
  readonly #unhealthyZoneThreshold: number;
  readonly #knownNodes = new Map<string, Node>();
  readonly #health = new Map<string, NodeHealth>();
  readonly #zoneStates = new Map<string, ZoneStateValue>();
  readonly #zoneTainters = new Map<string, RateLimitedTimedQueue>();
  readonly #nodesToRetry = new Set<string>();

  constructor(ctx: ControllerContext, options: NodeLifecycleOptions = {}) {
    this.#ctx = ctx;
    this.#recorder = recorderFor(ctx, 'node-controller');
    this.#monitorPeriod = options.nodeMonitorPeriodMs ?? defaultNodeMonitorPeriodMs;
    this.#gracePeriod = options.nodeMonitorGracePeriodMs ?? defaultNodeMonitorGracePeriodMs;
    this.#startupGracePeriod = options.nodeStartupGracePeriodMs ?? defaultNodeStartupGracePeriodMs;
    this.#evictionRate = options.nodeEvictionRate ?? defaultNodeEvictionRate;
    this.#secondaryEvictionRate = options.secondaryNodeEvictionRate ?? defaultSecondaryNodeEvictionRate;
    this.#largeClusterThreshold = options.largeClusterSizeThreshold ?? defaultLargeClusterSizeThreshold;
    this.#unhealthyZoneThreshold = options.unhealthyZoneThreshold ?? defaultUnhealthyZoneThreshold;
    const f = ctx.informerFactory;
    const nodes = f.coreV1().nodes();
    const pods = f.coreV1().pods();
    const leases = f.coordinationV1().leases();
    this.#nodes = nodes.lister();
    this.#pods = pods.lister();
    this.#leases = leases.lister();
    // getPodsAssignedToNode through an index, as upstream's podIndexer (another controller may have added it).
    try {
      pods.informer().addIndexers({ [nodeIndex]: (p: Pod) => ((p.spec?.nodeName ?? '') === '' ? [] : [p.spec!.nodeName!]) });
    } catch {
      // The index exists already.
    }
    const indexer = pods.informer().getIndexer();
    this.#podsOnNode = (node) => indexer.byIndex(nodeIndex, node);
    this.taintManager = new NoExecuteTaintManager(ctx, this.#podsOnNode);
    this.controller = newSyncController(ctx, {
      name: 'nodelifecycle',
      informers: [nodes.informer(), pods.informer(), leases.informer()],
      workers: 1,
      reconcile: (key) => this.#sync(key),
    });
    const nodeChanged = (n: Node | undefined): void => {
      if (n?.metadata?.name !== undefined) this.controller.add(`node:${n.metadata.name}`);
    };
    nodes.informer().addEventHandler({ onAdd: nodeChanged, onUpdate: (_o, n) => nodeChanged(n), onDelete: () => undefined });
    // podUpdateQueue (processPod): a pod bound to a node that is not ready is marked not ready.
    const podChanged = (p: Pod | undefined): void => {
      if (p === undefined || (p.spec?.nodeName ?? '') === '') return;
      this.controller.add(`pod:${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`);
    };
    pods.informer().addEventHandler({
      onAdd: podChanged,
      onUpdate: (o, p) => {
        if ((o.spec?.nodeName ?? '') !== (p.spec?.nodeName ?? '')) podChanged(p);
      },
      onDelete: () => undefined,
    });
  }

  /** Runs the health passes, the taint passes and the taint manager until `signal` aborts. */
  async run(options: { signal: AbortSignal }): Promise<void> {
    this.controller.add(monitorKey);
    await Promise.all([this.controller.run(options), this.taintManager.run(options)]);
  }

  /** The state of each zone seen so far (zone key → state); for tests and diagnostics. */
  zoneStates(): Map<string, ZoneStateValue> {
    return new Map(this.#zoneStates);
  }

  /** The eviction rate of a zone now (0 when tainting is stopped), undefined for an unknown zone. */
  zoneEvictionRate(zone: string): number | undefined {
    return this.#zoneTainters.get(zone)?.qps;
  }

  async #sync(key: string): Promise<void> {
    if (key === monitorKey) {
      try {
        await this.monitorNodeHealth();
      } finally {
        this.controller.addAfter(monitorKey, this.#monitorPeriod);
      }
    } else if (key === taintPassKey) {
      await this.#doNoExecuteTaintingPass();
    } else if (key.startsWith('node:')) {
      await this.#doNoScheduleTaintingPass(key.slice('node:'.length));
    } else if (key.startsWith('pod:')) {
      await this.#processPod(key.slice('pod:'.length));
    }
  }

  /** One health pass over every node (monitorNodeHealth); exposed for tests. */
  async monitorNodeHealth(): Promise<void> {
    const nodes = this.#nodes.list();
    // classifyNodes
    const added = nodes.filter((n) => !this.#knownNodes.has(n.metadata?.name ?? ''));
    const newZoneRepresentatives = nodes.filter((n) => this.#knownNodes.has(n.metadata?.name ?? '') && !this.#zoneStates.has(getZoneKey(n)));
    const present = new Set(nodes.map((n) => n.metadata?.name ?? ''));
    const deleted = [...this.#knownNodes.values()].filter((n) => !present.has(n.metadata?.name ?? ''));
    for (const n of newZoneRepresentatives) this.#addPodEvictorForNewZone(n);
    for (const n of added) {
      this.#recordNodeEvent(n, 'RegisteredNode', `Registered Node ${n.metadata?.name ?? ''} in Controller`);
      this.#knownNodes.set(n.metadata?.name ?? '', n);
      this.#addPodEvictorForNewZone(n);
      try {
        await this.#markNodeAsReachable(n);
      } catch (err) {
        this.#ctx.onError('nodelifecycle', err, n.metadata?.name ?? '');
      }
    }
    for (const n of deleted) {
      this.#recordNodeEvent(n, 'RemovingNode', `Removing Node ${n.metadata?.name ?? ''} from Controller`);
      this.#knownNodes.delete(n.metadata?.name ?? '');
      this.#health.delete(n.metadata?.name ?? '');
    }

    const zoneConditions = new Map<string, (NodeCondition | undefined)[]>();
    for (const cached of nodes) {
      const name = cached.metadata?.name ?? '';
      let result: { observed: NodeCondition; current: NodeCondition | undefined } | undefined;
      let node: Node = structuredClone(cached);
      for (let i = 0; i < nodeHealthUpdateRetry && result === undefined; i++) {
        try {
          result = await this.#tryUpdateNodeHealth(node);
        } catch (err) {
          try {
            node = await this.#ctx.client.coreV1().nodes().get(name);
          } catch (getErr) {
            this.#ctx.onError('nodelifecycle', getErr, name);
            break;
          }
          if (i + 1 === nodeHealthUpdateRetry) this.#ctx.onError('nodelifecycle', err, name);
        }
      }
      if (result === undefined) continue;
      const { observed, current } = result;
      if (node.metadata?.labels?.[labelNodeExcludeDisruption] === undefined) {
        const zone = getZoneKey(node);
        zoneConditions.set(zone, [...(zoneConditions.get(zone) ?? []), current]);
      }
      if (current !== undefined) {
        const pods = this.#podsOnNode(name);
        await this.#processTaintBaseEviction(node, observed);
        const transition = current.status !== 'True' && observed.status === 'True';
        if (transition) this.#nodeEvent(node, 'NodeNotReady', `Node ${name} status is now: NodeNotReady`);
        if (transition || (this.#nodesToRetry.has(name) && current.status !== 'True')) {
          if (!(await this.#markPodsNotReady(pods, name))) {
            this.#nodesToRetry.add(name);
            continue;
          }
        }
      }
      this.#nodesToRetry.delete(name);
    }
    await this.#handleDisruption(zoneConditions, nodes);
  }

  /**
   * tryUpdateNodeHealth: refreshes what is known of the node's heartbeats and, past the grace period,
   * writes its conditions Unknown. Returns the Ready condition as observed and as it is now.
   */
  async #tryUpdateNodeHealth(node: Node): Promise<{ observed: NodeCondition; current: NodeCondition | undefined }> {
    const name = node.metadata?.name ?? '';
    const now = this.#ctx.clock.now();
    const created = timeMs(node.metadata?.creationTimestamp);
    let health = this.#health.get(name);
    let current = readyOf(node);
    let observed: NodeCondition;
    let gracePeriod: number;
    if (current === undefined) {
      // The kubelet never posted: a fake Unknown condition as of the node's creation.
      observed = { type: 'Ready', status: 'Unknown', lastHeartbeatTime: node.metadata?.creationTimestamp, lastTransitionTime: node.metadata?.creationTimestamp };
      gracePeriod = this.#startupGracePeriod;
      if (health !== undefined) health = { ...health, ready: undefined };
      else health = { probeTimestamp: created, readyTransitionTimestamp: created, ready: undefined, leaseRenewTime: undefined };
    } else {
      observed = structuredClone(current);
      gracePeriod = this.#gracePeriod;
    }
    const saved = health?.ready;
    const savedLease = health?.leaseRenewTime;
    if (health === undefined) {
      health = { probeTimestamp: now, readyTransitionTimestamp: now, ready: current, leaseRenewTime: undefined };
    } else if (saved === undefined && current !== undefined) {
      health = { probeTimestamp: now, readyTransitionTimestamp: now, ready: current, leaseRenewTime: undefined };
    } else if (saved !== undefined && current === undefined) {
      health = { probeTimestamp: now, readyTransitionTimestamp: now, ready: undefined, leaseRenewTime: undefined };
    } else if (saved !== undefined && current !== undefined && saved.lastHeartbeatTime !== current.lastHeartbeatTime) {
      const transition = saved.lastTransitionTime !== current.lastTransitionTime ? now : health.readyTransitionTimestamp;
      health = { probeTimestamp: now, readyTransitionTimestamp: transition, ready: current, leaseRenewTime: undefined };
    }
    // A renewed Lease always counts as a heartbeat.
    let lease: Lease | undefined;
    try {
      lease = this.#leases.namespace('kube-node-lease').get(name);
    } catch {
      lease = undefined;
    }
    const renewTime = lease?.spec?.renewTime === undefined ? undefined : timeMs(lease.spec.renewTime);
    if (renewTime !== undefined && (savedLease === undefined || savedLease < renewTime)) health = { ...health, leaseRenewTime: renewTime, probeTimestamp: now };
    this.#health.set(name, health);

    if (now > health.probeTimestamp + gracePeriod) {
      const nowStamp = nowTime(this.#ctx.clock);
      const conditions = node.status?.conditions ?? [];
      for (const type of ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure']) {
        const c = conditions.find((x) => x.type === type);
        if (c === undefined) {
          conditions.push({ type, status: 'Unknown', reason: 'NodeStatusNeverUpdated', message: 'Kubelet never posted node status.', lastHeartbeatTime: node.metadata?.creationTimestamp, lastTransitionTime: nowStamp });
        } else if (c.status !== 'Unknown') {
          c.status = 'Unknown';
          c.reason = 'NodeStatusUnknown';
          c.message = 'Kubelet stopped posting node status.';
          c.lastTransitionTime = nowStamp;
        }
      }
      node.status = { ...node.status, conditions };
      current = readyOf(node);
      if (!sameCondition(current, observed)) {
        await this.#ctx.client.coreV1().nodes().updateStatus(node);
        this.#health.set(name, { probeTimestamp: health.probeTimestamp, readyTransitionTimestamp: now, ready: current, leaseRenewTime: renewTime });
      }
    }
    return { observed, current };
  }

  // processTaintBaseEviction: queue the NoExecute taint, or swap it at once, or take it off.
  async #processTaintBaseEviction(node: Node, observed: NodeCondition): Promise<void> {
    const taints = node.spec?.taints;
    switch (observed.status) {
      case 'False':
        if (taintExists(taints, unreachableTaintTemplate)) await this.#swap(node, [notReadyTaintTemplate], [unreachableTaintTemplate]);
        else this.#markNodeForTainting(node, 'False');
        break;
      case 'Unknown':
        if (taintExists(taints, notReadyTaintTemplate)) await this.#swap(node, [unreachableTaintTemplate], [notReadyTaintTemplate]);
        else this.#markNodeForTainting(node, 'Unknown');
        break;
      case 'True':
        try {
          await this.#markNodeAsReachable(node);
        } catch (err) {
          // Retried at the next pass.
          this.#ctx.onError('nodelifecycle', err, node.metadata?.name ?? '');
        }
        break;
    }
  }

  #swap(node: Node, add: readonly Taint[], remove: readonly Taint[]): Promise<boolean> {
    return swapNodeControllerTaint(this.#ctx.client, this.#ctx.clock, add, remove, node, (err) => this.#ctx.onError('nodelifecycle', err, node.metadata?.name ?? ''));
  }

  #tainter(node: Node): RateLimitedTimedQueue {
    const zone = getZoneKey(node);
    let q = this.#zoneTainters.get(zone);
    if (q === undefined) {
      this.#addPodEvictorForNewZone(node);
      q = this.#zoneTainters.get(zone)!;
    }
    return q;
  }

  #markNodeForTainting(node: Node, status: 'False' | 'Unknown'): void {
    const q = this.#tainter(node);
    const name = node.metadata?.name ?? '';
    const template = status === 'False' ? notReadyTaintTemplate : unreachableTaintTemplate;
    if (!taintExists(node.spec?.taints, template)) q.remove(name);
    if (q.add(name, node.metadata?.uid ?? '')) this.controller.add(taintPassKey);
  }

  // markNodeAsReachable: both NoExecute taints off, and out of the tainting queue.
  async #markNodeAsReachable(node: Node): Promise<boolean> {
    const name = node.metadata?.name ?? '';
    await removeTaintOffNode(this.#ctx.client, name, node, [unreachableTaintTemplate]);
    await removeTaintOffNode(this.#ctx.client, name, node, [notReadyTaintTemplate]);
    return this.#tainter(node).remove(name);
  }

  #addPodEvictorForNewZone(node: Node): void {
    const zone = getZoneKey(node);
    if (this.#zoneStates.has(zone)) return;
    this.#zoneStates.set(zone, ZoneState.Initial);
    this.#zoneTainters.set(zone, new RateLimitedTimedQueue(this.#evictionRate, this.#ctx.clock));
  }

  // doNoExecuteTaintingPass: every zone's due nodes, as far as its limiter lets; polled every
  // nodeEvictionPeriod while some zone that may taint still has nodes queued.
  async #doNoExecuteTaintingPass(): Promise<void> {
    const writes: Promise<void>[] = [];
    for (const q of this.#zoneTainters.values()) {
      q.try((value) => {
        let node: Node;
        try {
          node = this.#nodes.get(value.value);
        } catch (err) {
          if (isNotFound(err)) return { done: true };
          return { done: false, retryAfterMs: 50 };
        }
        const ready = readyOf(node);
        let add: Taint;
        let opposite: Taint;
        if (ready?.status === 'False') [add, opposite] = [notReadyTaintTemplate, unreachableTaintTemplate];
        else if (ready?.status === 'Unknown') [add, opposite] = [unreachableTaintTemplate, notReadyTaintTemplate];
        else return { done: true };
        // The write is awaited below; a failed one is queued again (upstream's result false, retried at once).
        writes.push(
          this.#swap(node, [add], [opposite]).then((ok) => {
            if (!ok) {
              q.remove(value.value);
              q.add(value.value, value.uid);
            }
          }),
        );
        return { done: true };
      });
    }
    await Promise.all(writes);
    if ([...this.#zoneTainters.values()].some((q) => q.qps > 0 && q.nextDue() !== undefined)) this.controller.addAfter(taintPassKey, nodeEvictionPeriodMs);
  }

  // doNoScheduleTaintingPass: the NoSchedule taints follow the conditions and spec.unschedulable.
  async #doNoScheduleTaintingPass(name: string): Promise<void> {
    let node: Node;
    try {
      node = this.#nodes.get(name);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    const want: Taint[] = [];
    for (const c of node.status?.conditions ?? []) {
      const key = conditionTaints[c.type]?.[c.status];
      if (key !== undefined) want.push({ key, effect: 'NoSchedule' });
    }
    if (node.spec?.unschedulable === true) want.push({ key: TaintNodeUnschedulable, effect: 'NoSchedule' });
    const have = (node.spec?.taints ?? []).filter((t) => t.effect === 'NoSchedule' && (t.key === TaintNodeUnschedulable || conditionTaintKeys.has(t.key)));
    // TaintSetDiff
    const toAdd = want.filter((w) => !taintExists(have, w));
    const toDel = have.filter((h) => !taintExists(want, h));
    if (toAdd.length === 0 && toDel.length === 0) return;
    if (!(await this.#swap(node, toAdd, toDel))) throw new Error(`failed to swap taints of node ${name}`);
  }

  // processPod: a pod that lands on a node that is not ready is marked not ready.
  async #processPod(key: string): Promise<void> {
    const slash = key.indexOf('/');
    let pod: Pod;
    try {
      pod = this.#pods.namespace(key.slice(0, slash)).get(key.slice(slash + 1));
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    const nodeName = pod.spec?.nodeName ?? '';
    const health = this.#health.get(nodeName);
    // The node is not known yet: the next health pass looks at it.
    if (health === undefined) return;
    // Upstream reads the node too (and retries while it is missing), then decides on the health data.
    this.#nodes.get(nodeName);
    const ready = health.ready;
    if (ready === undefined || ready.status === 'True') return;
    if (!(await this.#markPodsNotReady([pod], nodeName))) throw new Error(`could not mark pod ${key} not ready`);
  }

  /** MarkPodsNotReady: each pod's Ready condition False; false when some update failed. */
  async #markPodsNotReady(pods: readonly Pod[], nodeName: string): Promise<boolean> {
    let ok = true;
    for (const p of pods) {
      if (p.spec?.nodeName !== nodeName) continue;
      const conditions = p.status?.conditions ?? [];
      const i = conditions.findIndex((c) => c.type === 'Ready');
      if (i < 0) continue;
      const old = conditions[i]!;
      // UpdatePodCondition: nothing to write when it is False already.
      if (old.status === 'False') continue;
      const next = [...conditions];
      next[i] = { ...old, status: 'False', lastTransitionTime: nowTime(this.#ctx.clock) };
      const pod: Pod = { ...p, status: { ...p.status, conditions: next } };
      try {
        await this.#ctx.client.coreV1().pods(p.metadata?.namespace ?? '').updateStatus(pod);
      } catch (err) {
        if (isNotFound(err)) continue;
        this.#ctx.onError('nodelifecycle', err, `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`);
        ok = false;
      }
      this.#recorder.eventf(withKind(p, 'v1', 'Pod'), 'Warning', 'NodeNotReady', 'Node is not ready');
    }
    return ok;
  }

  // RecordNodeStatusChange: a Normal event about the node (cluster-scoped: in default).
  #nodeEvent(node: Node, reason: string, message: string): void {
    this.#recorder.eventf({ apiVersion: 'v1', kind: 'Node', name: node.metadata?.name ?? '', uid: node.metadata?.uid ?? '' }, 'Normal', reason, message);
  }

  // RecordNodeEvent: the same, its message prefixed "Node <name> event: ".
  #recordNodeEvent(node: Node, reason: string, event: string): void {
    this.#nodeEvent(node, reason, `Node ${node.metadata?.name ?? ''} event: ${event}`);
  }

  // handleDisruption: the zones' states and their eviction rates.
  async #handleDisruption(zoneConditions: Map<string, (NodeCondition | undefined)[]>, nodes: readonly Node[]): Promise<void> {
    const newStates = new Map<string, ZoneStateValue>();
    let allAreFullyDisrupted = true;
    for (const [zone, conditions] of zoneConditions) {
      const { state } = computeZoneState(conditions, this.#unhealthyZoneThreshold);
      if (state !== ZoneState.FullDisruption) allAreFullyDisrupted = false;
      newStates.set(zone, state);
      if (!this.#zoneStates.has(zone)) this.#zoneStates.set(zone, ZoneState.Initial);
    }
    let allWasFullyDisrupted = true;
    for (const [zone, state] of [...this.#zoneStates]) {
      if (!zoneConditions.has(zone)) {
        this.#zoneStates.delete(zone);
        continue;
      }
      if (state !== ZoneState.FullDisruption) {
        allWasFullyDisrupted = false;
        break;
      }
    }
    if (allAreFullyDisrupted && allWasFullyDisrupted) return;
    if (allAreFullyDisrupted) {
      // Entering master disruption mode: untaint everything and stop tainting.
      for (const n of nodes) {
        try {
          await this.#markNodeAsReachable(n);
        } catch (err) {
          this.#ctx.onError('nodelifecycle', err, n.metadata?.name ?? '');
        }
      }
      for (const zone of this.#zoneStates.keys()) {
        this.#zoneTainters.get(zone)?.swapLimiter(0);
        this.#zoneStates.set(zone, ZoneState.FullDisruption);
      }
      return;
    }
    if (allWasFullyDisrupted) {
      // Exiting it: every node gets a fresh grace period.
      const now = this.#ctx.clock.now();
      for (const n of nodes) {
        const h = this.#health.get(n.metadata?.name ?? '');
        if (h !== undefined) this.#health.set(n.metadata?.name ?? '', { ...h, probeTimestamp: now, readyTransitionTimestamp: now });
      }
      for (const zone of this.#zoneStates.keys()) {
        const state = newStates.get(zone) ?? ZoneState.Normal;
        this.#setLimiterInZone(zone, zoneConditions.get(zone)?.length ?? 0, state);
        this.#zoneStates.set(zone, state);
      }
      return;
    }
    for (const [zone, state] of [...this.#zoneStates]) {
      const next = newStates.get(zone);
      if (next === undefined || next === state) continue;
      this.#setLimiterInZone(zone, zoneConditions.get(zone)?.length ?? 0, next);
      this.#zoneStates.set(zone, next);
    }
  }

  #setLimiterInZone(zone: string, zoneSize: number, state: ZoneStateValue): void {
    const q = this.#zoneTainters.get(zone);
    if (q === undefined) return;
    switch (state) {
      case ZoneState.Normal:
      case ZoneState.FullDisruption:
        // HealthyQPSFunc for both: a fully disrupted zone among healthy ones keeps the normal rate.
        q.swapLimiter(this.#evictionRate);
        break;
      case ZoneState.PartialDisruption:
        // ReducedQPSFunc.
        q.swapLimiter(zoneSize > this.#largeClusterThreshold ? this.#secondaryEvictionRate : 0);
        break;
    }
    if (q.qps > 0 && q.nextDue() !== undefined) this.controller.add(taintPassKey);
  }
}
