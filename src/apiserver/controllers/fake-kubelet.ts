/**
 * A stand-in for kubelets, so that workload controllers can be tested end to end without containers: it
 * registers its Nodes (Ready, with capacity, addresses and node info as a kubelet reports them), keeps
 * them alive as a kubelet does (pkg/kubelet/nodelease: a Lease per node in kube-node-lease renewed every
 * 10 s; the Ready condition's heartbeat refreshed every 5 minutes, nodeStatusReportFrequency) and, for
 * every pod bound to one of them, writes the status a kubelet would through pods/status: Running and
 * Ready with running containers and a pod IP, then — when {@link FakeKubeletOptions.podOutcome} says so,
 * after a delay on the server's clock — the containers exit. As the kubelet's restart logic
 * (pkg/kubelet/kuberuntime, computePodActions), restartPolicy Always restarts them, OnFailure restarts them
 * after a non-zero exit code (restartCount and lastState grow, the pod stays Running), and otherwise the
 * pod ends Succeeded (every exit code 0, Completed) or Failed (Error). By default the pods of Jobs succeed
 * at once and every other pod keeps running, so a Job controller sees its pods finish.
 *
 * A pod being deleted (deletionTimestamp set by a graceful DELETE, registry/core/pod-deletion.ts) has its
 * containers "stopped" at once and is then deleted with a zero grace period and its uid as precondition,
 * as the kubelet's status manager does once a pod's containers are gone.
 *
 * kwok-style (sigs.k8s.io/kwok): {@link FakeKubeletOptions.nodeCount} registers many nodes (`kwok-node-0`,
 * …) whose Leases are renewed together, on one ticker of the clock; {@link FakeKubeletOptions.stages}
 * delays a pod's start and readiness and makes finishing pods fail with a seeded probability
 * (pod-stages.ts); with {@link FakeKubeletOptions.events} the pod's events are written as a kubelet
 * writes them (pkg/kubelet/events: Pulling, Pulled, Created, Started, Killing, source `kubelet` on the
 * node). With the volume binder (fake-volume-binder.ts) running, a pod waits in Pending until its
 * PersistentVolumeClaims are Bound, as the kubelet's volume manager waits for its volumes to mount.
 *
 * A node's kubelet can be stopped and resumed ({@link FakeKubelet.stopNode}, `server.controllers.stopKubelet`):
 * stopped, it neither renews the node's Lease nor reports its status nor syncs its pods (a pod being
 * deleted stays Terminating), as a kubelet that crashed or lost its network — what the node lifecycle
 * controller (src/controllers/nodelifecycle) reacts to. Resumed, it renews the Lease, posts the node
 * status at once (the kubelet's syncNodeStatus sees the status it reads back differ from its own: Ready
 * again) and re-syncs the node's pods, marking the running ones Ready again as the kubelet's status
 * manager reconciles a status changed behind its back.
 *
 * Nothing runs: no images are pulled, no probes or logs (see `setPodLogs`).
 */
import { createHash } from 'node:crypto';
import type { Container, Node, Pod, PersistentVolumeClaim } from '../../api/core/v1.ts';
import { isConflict, isNotFound } from '../../apimachinery/errors.ts';
import type { Clock } from '../../util/clock/clock.ts';
import { formatTime } from '../handlers/scope.ts';
import { isObject } from '../object-meta.ts';
import type { ControllerStats, ServerController } from './controller.ts';
import type { LoopbackClient } from './loopback-client.ts';
import { EventRecorder, type InvolvedObject } from './event-recorder.ts';
import { podFails, type PodStages } from './pod-stages.ts';
import { QueueWorker } from './queue-worker.ts';

type Obj = Record<string, unknown>;

/** What happens to a pod bound to one of the stand-in's nodes. */
export type PodOutcome =
  | {
      /** The pod keeps running. */
      phase: 'Running';
    }
  | {
      /** The pod's containers terminate, with exit code 0 (Succeeded) or not (Failed). */
      phase: 'Succeeded' | 'Failed';
      /** Time it runs first (default 0). */
      afterMs?: number;
      /** Default 0 for Succeeded, 1 for Failed. */
      exitCode?: number;
    };

/** Options of the kubelet stand-in. */
export interface FakeKubeletOptions {
  /** The nodes it registers and runs pods for (default `['kubeloom-node']`). */
  nodes?: readonly string[];
  /** Decides each pod's fate when it starts (default: {@link defaultPodOutcome}). */
  podOutcome?: (pod: Pod) => PodOutcome;
  /** kwok-style: registers this many nodes named `kwok-node-<i>` (when {@link nodes} is not given). */
  nodeCount?: number;
  /** kwok-style stage delays and failure probability (default: none, everything at once). */
  stages?: PodStages;
  /** Writes the pod events a kubelet writes (Pulling, Pulled, Created, Started, Killing); default false. */
  events?: boolean;
  /** Pods wait for their PersistentVolumeClaims to be Bound (set when the volume binder runs). */
  waitForVolumes?: boolean;
}

/** The name kwok gives its i-th fake node. */
export function kwokNodeName(i: number): string {
  return `kwok-node-${i}`;
}

// Upstream kubelet: --node-lease-duration-seconds 40, renewed at a quarter of it; node status reported
// every 5 minutes when nothing changed (nodeStatusReportFrequency).
const leaseDurationSeconds = 40;
const leaseRenewIntervalMs = 10_000;
const nodeStatusReportMs = 5 * 60_000;

/** The node the stand-in registers when none are named. */
export const defaultNodeName = 'kubeloom-node';

/** The default fate: pods owned by a Job succeed at once, every other pod keeps running. */
export function defaultPodOutcome(pod: Pod): PodOutcome {
  const ownedByJob = pod.metadata?.ownerReferences?.some((r) => r.controller === true && r.kind === 'Job' && r.apiVersion === 'batch/v1') ?? false;
  return ownedByJob ? { phase: 'Succeeded' } : { phase: 'Running' };
}

// The version the stand-in reports, matching the API server's.
const kubeletVersion = 'v1.32.0';

/** The Node a kubelet registers, Ready. */
export function nodeObject(name: string, index: number, now: string): Obj {
  const condition = (type: string, status: string, reason: string, message: string): Obj => ({ type, status, lastHeartbeatTime: now, lastTransitionTime: now, reason, message });
  const quantities = { cpu: '4', 'ephemeral-storage': '100Gi', 'hugepages-1Gi': '0', 'hugepages-2Mi': '0', memory: '16Gi', pods: '110' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: { 'beta.kubernetes.io/arch': 'amd64', 'beta.kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux' },
      annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
    },
    spec: { podCIDR: podCidr(index), podCIDRs: [podCidr(index)] },
    status: {
      capacity: quantities,
      allocatable: quantities,
      conditions: [
        condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
        condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
        condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
      ],
      addresses: [
        { type: 'InternalIP', address: `172.18.${(index + 2) >> 8}.${(index + 2) & 255}` },
        { type: 'Hostname', address: name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: '',
        systemUUID: '',
        bootID: '',
        kernelVersion: '',
        osImage: 'kubeloom',
        containerRuntimeVersion: 'kubeloom://0.1.0',
        kubeletVersion,
        kubeProxyVersion: kubeletVersion,
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
    },
  };
}

/** The i-th node's pod range: 10.244.i.0/24, then 10.245.…, as kube-controller-manager's range allocator hands /24s out of 10.244.0.0/16 and on. */
function podCidr(index: number): string {
  return `10.${244 + (index >> 8)}.${index & 255}.0/24`;
}

const hex = (s: string): string => createHash('sha256').update(s).digest('hex');

// Image → its imageID: every pod of a template runs the same images (a digest per container and pod otherwise).
const imageIds = new Map<string, string>();

function imageId(image: string): string {
  let id = imageIds.get(image);
  if (id === undefined) {
    id = `${image.split(':')[0]}@sha256:${hex(image)}`;
    if (imageIds.size >= 1024) imageIds.clear();
    imageIds.set(image, id);
  }
  return id;
}

function containerStatus(c: Container, podUid: string, state: Obj, ready: boolean, started: boolean): Obj {
  const image = c.image ?? '';
  return {
    containerID: `kubeloom://${hex(`${podUid}/${c.name}`)}`,
    image,
    imageID: imageId(image),
    lastState: {},
    name: c.name,
    ready,
    restartCount: 0,
    started,
    state,
  };
}

/**
 * The status a kubelet reports once a pod's containers run: phase Running, the Ready conditions, host and
 * pod IPs, start time, init containers completed and containers running and ready. The conditions are
 * meant to replace those of the same types.
 */
export function runningPodStatus(pod: Pod, where: { hostIP: string; podIP: string; now: string }, ready = true): Obj {
  const { hostIP, podIP, now } = where;
  const uid = pod.metadata?.uid ?? '';
  const condition = (type: string): Obj => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: now });
  const containers = pod.spec?.containers ?? [];
  // Running, not yet ready: the status manager's ContainersNotReady conditions.
  const unready = (type: string): Obj => ({
    type,
    status: 'False',
    lastProbeTime: null,
    lastTransitionTime: now,
    reason: 'ContainersNotReady',
    message: `containers with unready status: [${containers.map((c) => c.name).join(' ')}]`,
  });
  const inits = pod.spec?.initContainers ?? [];
  return {
    phase: 'Running',
    conditions: [condition('PodReadyToStartContainers'), condition('Initialized'), ...(ready ? [condition('Ready'), condition('ContainersReady')] : [unready('Ready'), unready('ContainersReady')])],
    hostIP,
    hostIPs: [{ ip: hostIP }],
    podIP,
    podIPs: [{ ip: podIP }],
    startTime: now,
    ...(inits.length > 0
      ? { initContainerStatuses: inits.map((c) => containerStatus(c, uid, { terminated: { exitCode: 0, reason: 'Completed', startedAt: now, finishedAt: now, containerID: `kubeloom://${hex(`${uid}/${c.name}`)}` } }, true, false)) }
      : {}),
    containerStatuses: containers.map((c) => containerStatus(c, uid, { running: { startedAt: now } }, ready, true)),
  };
}

/** Replaces (or adds) conditions by type, keeping the others. */
function withConditions(existing: unknown, conditions: Obj[]): Obj[] {
  const kept = (Array.isArray(existing) ? existing.filter(isObject) : []).filter((c) => !conditions.some((n) => n.type === c.type));
  return [...conditions, ...kept];
}

/** The node without the `node.kubernetes.io/not-ready` taint; undefined when it has none (nothing to write). */
function withoutNotReadyTaint(node: Obj): Obj | undefined {
  const spec = isObject(node.spec) ? node.spec : {};
  const taints = Array.isArray(spec.taints) ? spec.taints : [];
  const kept = taints.filter((t) => !(isObject(t) && t.key === 'node.kubernetes.io/not-ready'));
  if (kept.length === taints.length) return undefined;
  const next: Obj = { ...spec, taints: kept };
  if (kept.length === 0) delete next.taints;
  return { ...node, spec: next };
}

/** The kubelet stand-in; see the file comment. */
export class FakeKubelet implements ServerController {
  readonly #client: LoopbackClient;
  readonly #clock: Clock;
  readonly #nodes: readonly string[];
  readonly #nodeIndex: ReadonlyMap<string, number>;
  readonly #stages: PodStages;
  readonly #events: boolean;
  readonly #waitForVolumes: boolean;
  readonly #recorders = new Map<string, EventRecorder>();
  // Pod uid → when its containers start (pendingMs) and when they become ready (readyMs).
  readonly #startAt = new Map<string, number>();
  readonly #readyAt = new Map<string, number>();
  // Claim key (`namespace/name`) → the pods waiting for it to be Bound.
  readonly #waitingOn = new Map<string, Set<string>>();
  readonly #outcome: (pod: Pod) => PodOutcome;
  readonly #worker: QueueWorker<string>;
  // Pod uid → when it finishes and how, for pods with a terminal outcome.
  readonly #finishing = new Map<string, { at: number; outcome: PodOutcome & { phase: 'Succeeded' | 'Failed' } }>();
  readonly #nextIp = new Map<string, number>();
  readonly #stats: ControllerStats;
  #unsubscribe: (() => void) | undefined;
  #heartbeat: { stop(): void } | undefined;
  #ticks = 0;
  // The nodes whose kubelet is stopped.
  readonly #stoppedNodes = new Set<string>();

  constructor(options: { client: LoopbackClient; clock: Clock; stats: ControllerStats; onError: (error: unknown) => void } & FakeKubeletOptions) {
    this.#client = options.client;
    this.#stats = options.stats;
    this.#clock = options.clock;
    this.#nodes = options.nodes ?? (options.nodeCount === undefined ? [defaultNodeName] : Array.from({ length: options.nodeCount }, (_, i) => kwokNodeName(i)));
    this.#nodeIndex = new Map(this.#nodes.map((n, i) => [n, i]));
    this.#stages = options.stages ?? {};
    this.#events = options.events ?? false;
    this.#waitForVolumes = options.waitForVolumes ?? false;
    this.#outcome = options.podOutcome ?? defaultPodOutcome;
    this.#worker = new QueueWorker<string>({ clock: options.clock, process: (key) => this.#sync(key), onError: (err) => options.onError(err), trace: { controller: 'kubelet' } });
  }

  start(): void {
    const nodes = this.#client.resourceFor('v1', 'Node');
    this.#nodes.forEach((name, i) => {
      if (this.#client.get(nodes, '', name) !== undefined) return;
      this.#client.create(nodes, '', nodeObject(name, i, formatTime(this.#clock.now())));
      // TaintNodesByCondition admission taints a new node not-ready; for a Ready node the node lifecycle
      // controller (pkg/controller/nodelifecycle) takes that taint off again.
      this.#client.update(nodes, '', name, (o) => withoutNotReadyTaint(o));
    });
    this.#renewLeases();
    this.#heartbeat = this.#clock.newTicker(leaseRenewIntervalMs, () => this.#tick());
    const storage = this.#client.scope.storage;
    const unsubscribePods = storage.subscribe('pods', (c) => {
      if (c.type === 'DELETED') this.#forget(String((c.object.obj.metadata as Obj).uid));
      else if (this.#isMine(c.object.obj as Pod)) this.#worker.queue.add(c.key);
    });
    const unsubscribeClaims = storage.subscribe('persistentvolumeclaims', (c) => {
      const waiting = this.#waitingOn.get(c.key);
      if (waiting === undefined || (c.object.obj as PersistentVolumeClaim).status?.phase !== 'Bound') return;
      this.#waitingOn.delete(c.key);
      for (const key of waiting) this.#worker.queue.add(key);
    });
    this.#unsubscribe = () => {
      unsubscribePods();
      unsubscribeClaims();
    };
    for (const s of storage.listAt('pods', storage.revision)) if (this.#isMine(s.obj as Pod)) this.#worker.queue.add(s.key);
    this.#worker.start();
  }

  async stop(): Promise<void> {
    this.#heartbeat?.stop();
    this.#unsubscribe?.();
    await this.#worker.stop();
  }

  /** The nodes this stand-in runs. */
  nodeNames(): readonly string[] {
    return this.#nodes;
  }

  /** Stops one node's kubelet (no Lease renewal, no status, no pod syncs); false when the node is not one of ours. */
  stopNode(name: string): boolean {
    if (!this.#nodeIndex.has(name)) return false;
    this.#stoppedNodes.add(name);
    return true;
  }

  /**
   * Resumes a stopped node's kubelet: renews its Lease, posts a Ready status and re-syncs its pods; false
   * when the node is not one of ours.
   */
  resumeNode(name: string): boolean {
    if (!this.#nodeIndex.has(name)) return false;
    if (!this.#stoppedNodes.delete(name)) return true;
    this.#renewLeases([name]);
    this.#postReadyStatus(name);
    const storage = this.#client.scope.storage;
    for (const s of storage.listAt('pods', storage.revision)) {
      const pod = s.obj as Pod;
      if (pod.spec?.nodeName !== name) continue;
      const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
      const uid = pod.metadata?.uid ?? '';
      if (pod.status?.phase === 'Running' && pod.metadata?.deletionTimestamp === undefined && ready?.status === 'False' && !this.#readyAt.has(uid)) this.#markReady(pod);
      this.#worker.queue.add(s.key);
    }
    return true;
  }

  /** Whether a node's kubelet is stopped. */
  isNodeStopped(name: string): boolean {
    return this.#stoppedNodes.has(name);
  }

  /** The node status a healthy kubelet posts: every condition as at registration, transition times moved only when the status changes. */
  #postReadyStatus(name: string): void {
    const nodes = this.#client.resourceFor('v1', 'Node');
    const now = formatTime(this.#clock.now());
    const fresh = nodeObject(name, this.#nodeIndex.get(name) ?? 0, now);
    const wanted = ((fresh.status as Obj).conditions as Obj[]).map((c) => ({ ...c }));
    this.#client.update(
      nodes,
      '',
      name,
      (o) => {
        const status: Obj = isObject(o.status) ? o.status : {};
        const old = Array.isArray(status.conditions) ? status.conditions.filter(isObject) : [];
        const conditions = wanted.map((c) => {
          const prev = old.find((x) => x.type === c.type);
          return prev !== undefined && prev.status === c.status ? { ...c, lastTransitionTime: prev.lastTransitionTime } : c;
        });
        return { ...o, status: { ...status, conditions } };
      },
      'status',
    );
  }

  #tick(): void {
    try {
      this.#renewLeases();
      this.#ticks++;
      this.#reportNodeStatus(this.#ticks);
    } catch {
      // A missed heartbeat is retried at the next tick, as the kubelet retries.
    }
  }

  /** Creates or renews each running node's Lease in kube-node-lease (nodelease.controller). */
  #renewLeases(names: readonly string[] = this.#nodes): void {
    const leases = this.#client.resourceFor('coordination.k8s.io/v1', 'Lease');
    const nodes = this.#client.resourceFor('v1', 'Node');
    const renewTime = new Date(this.#clock.now()).toISOString().replace('Z', '000Z');
    for (const name of names) {
      if (this.#stoppedNodes.has(name)) continue;
      if (this.#client.modify(leases, 'kube-node-lease', name, (o) => ({ ...o, spec: { ...(isObject(o.spec) ? o.spec : {}), renewTime } }))) continue;
      const node = this.#client.get(nodes, '', name);
      const uid = node === undefined ? undefined : (node.metadata as Obj).uid;
      this.#client.create(leases, 'kube-node-lease', {
        metadata: { name, namespace: 'kube-node-lease', ...(uid === undefined ? {} : { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name, uid }] }) },
        spec: { holderIdentity: name, leaseDurationSeconds, renewTime },
      });
    }
  }

  /**
   * Refreshes the conditions' heartbeat times, as the periodic node status report does: each node every
   * nodeStatusReportMs, the nodes spread over the heartbeat ticks (node i reports at tick 30 + i mod 30,
   * then every 30 ticks), as real kubelets, started at different times, are. One loop over every node at once
   * held a 1,000-node server for about a second, long enough for a client's Lease renewal to time out.
   */
  #reportNodeStatus(tick: number): void {
    const ticksPerReport = nodeStatusReportMs / leaseRenewIntervalMs;
    if (tick < ticksPerReport) return;
    const nodes = this.#client.resourceFor('v1', 'Node');
    const now = formatTime(this.#clock.now());
    for (let i = tick % ticksPerReport; i < this.#nodes.length; i += ticksPerReport) {
      const name = this.#nodes[i]!;
      if (this.#stoppedNodes.has(name)) continue;
      this.#client.modify(
        nodes,
        '',
        name,
        (o) => {
          const status: Readonly<Obj> = isObject(o.status) ? o.status : {};
          const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isObject).map((c) => ({ ...c, lastHeartbeatTime: now })) : [];
          return { ...o, status: { ...status, conditions } };
        },
        'status',
      );
    }
  }

  idle(): boolean {
    return this.#worker.idle();
  }

  #isMine(pod: Pod): boolean {
    const node = pod.spec?.nodeName;
    return node !== undefined && this.#nodeIndex.has(node);
  }

  // A pod on a node whose kubelet is stopped is left alone until the node resumes (which re-syncs it).
  #isStopped(pod: Pod): boolean {
    return this.#stoppedNodes.has(pod.spec?.nodeName ?? '');
  }

  #forget(uid: string): void {
    this.#finishing.delete(uid);
    this.#startAt.delete(uid);
    this.#readyAt.delete(uid);
  }

  /** The claims of `pod` that are not Bound yet (each remembered, so that its binding requeues the pod). */
  #unboundClaims(key: string, pod: Pod): string[] {
    const namespace = pod.metadata?.namespace ?? '';
    const storage = this.#client.scope.storage;
    const unbound: string[] = [];
    for (const v of pod.spec?.volumes ?? []) {
      const claim = v.persistentVolumeClaim?.claimName;
      if (claim === undefined) continue;
      const claimKey = `${namespace}/${claim}`;
      if ((storage.get('persistentvolumeclaims', claimKey)?.obj as PersistentVolumeClaim | undefined)?.status?.phase === 'Bound') continue;
      unbound.push(claim);
      let waiting = this.#waitingOn.get(claimKey);
      if (waiting === undefined) this.#waitingOn.set(claimKey, (waiting = new Set()));
      waiting.add(key);
    }
    return unbound;
  }

  /** The recorder of one node's kubelet (source host = the node). */
  #recorder(node: string): EventRecorder {
    let r = this.#recorders.get(node);
    if (r === undefined) this.#recorders.set(node, (r = new EventRecorder(this.#client, this.#clock, 'kubelet', node)));
    return r;
  }

  /**
   * Records a Normal event about each of the pod's containers (init containers first; `only` limits them
   * to some regular containers), as the kubelet's runtime manager does, with the container as fieldPath.
   */
  #containerEvents(pod: Pod, reason: string, message: (c: Container) => string, only?: ReadonlySet<string>): void {
    if (!this.#events) return;
    const recorder = this.#recorder(pod.spec?.nodeName ?? '');
    const base = { apiVersion: 'v1', kind: 'Pod', name: pod.metadata?.name ?? '', namespace: pod.metadata?.namespace ?? '', uid: pod.metadata?.uid ?? '' };
    const record = (c: Container, field: string): void => {
      const about: InvolvedObject = { ...base, fieldPath: `spec.${field}{${c.name}}` };
      recorder.normal(about, reason, message(c));
    };
    if (only === undefined) for (const c of pod.spec?.initContainers ?? []) record(c, 'initContainers');
    for (const c of pod.spec?.containers ?? []) if (only === undefined || only.has(c.name)) record(c, 'containers');
  }

  #sync(key: string): void {
    const pod = this.#client.scope.storage.get('pods', key)?.obj as Pod | undefined;
    if (pod === undefined || !this.#isMine(pod) || this.#isStopped(pod)) return;
    if (pod.metadata?.deletionTimestamp !== undefined) {
      this.#terminate(pod);
      return;
    }
    const phase = pod.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') return;
    const uid = pod.metadata?.uid ?? '';
    if (phase !== 'Running') {
      // The volume manager waits for the pod's volumes before any container starts.
      if (this.#waitForVolumes && this.#unboundClaims(key, pod).length > 0) return;
      const pendingMs = this.#stages.pendingMs ?? 0;
      let startAt = this.#startAt.get(uid);
      if (startAt === undefined) {
        startAt = this.#clock.now() + pendingMs;
        this.#startAt.set(uid, startAt);
        this.#containerEvents(pod, 'Pulling', (c) => `Pulling image "${c.image ?? ''}"`);
      }
      const wait = startAt - this.#clock.now();
      if (wait > 0) {
        this.#worker.queue.addAfter(key, wait);
        return;
      }
      this.#startAt.delete(uid);
      this.#containerEvents(pod, 'Pulled', (c) => `Container image "${c.image ?? ''}" already present on machine`);
      this.#containerEvents(pod, 'Created', (c) => `Created container: ${c.name}`);
      this.#containerEvents(pod, 'Started', (c) => `Started container ${c.name}`);
      const readyMs = this.#stages.readyMs ?? 0;
      this.#run(pod, readyMs <= 0);
      if (readyMs > 0) {
        this.#readyAt.set(uid, this.#clock.now() + readyMs);
        this.#worker.queue.addAfter(key, readyMs);
      }
      this.#scheduleOutcome(key, pod);
      return;
    }
    const readyAt = this.#readyAt.get(uid);
    if (readyAt !== undefined) {
      const wait = readyAt - this.#clock.now();
      if (wait > 0) {
        this.#worker.queue.addAfter(key, wait);
      } else {
        this.#readyAt.delete(uid);
        this.#markReady(pod);
      }
    }
    const due = this.#finishing.get(uid);
    if (due === undefined) return;
    const wait = due.at - this.#clock.now();
    if (wait > 0) {
      this.#worker.queue.addAfter(key, wait);
      return;
    }
    this.#finishing.delete(uid);
    const exitCode = due.outcome.exitCode ?? (due.outcome.phase === 'Succeeded' ? 0 : 1);
    const policy = pod.spec?.restartPolicy ?? 'Always';
    if (policy === 'Always' || (policy === 'OnFailure' && exitCode !== 0)) {
      this.#restart(pod, exitCode);
      // The restarted containers get a fate of their own.
      this.#scheduleOutcome(key, (this.#client.scope.storage.get('pods', key)?.obj as Pod | undefined) ?? pod);
      return;
    }
    this.#finish(pod, due.outcome);
  }

  #scheduleOutcome(key: string, pod: Pod): void {
    let outcome = this.#outcome(pod);
    if (outcome.phase === 'Running') return;
    if (outcome.phase === 'Succeeded' && podFails(this.#stages, pod.metadata?.namespace ?? '', pod.metadata?.name ?? '')) outcome = { ...outcome, phase: 'Failed', exitCode: 1 };
    const afterMs = outcome.afterMs ?? this.#stages.completeMs ?? 0;
    this.#finishing.set(pod.metadata?.uid ?? '', { at: this.#clock.now() + afterMs, outcome });
    this.#worker.queue.addAfter(key, afterMs);
  }

  /**
   * The containers "stop" and the pod goes: deleted with a zero grace period, on the condition that it is
   * still the same pod (the kubelet's status manager, once a terminating pod's containers are gone).
   */
  #terminate(pod: Pod): void {
    const phase = pod.status?.phase;
    // killContainer: "Stopping container <name>" for each container still running.
    const running = new Set((pod.status?.containerStatuses ?? []).filter((c) => c.state?.running !== undefined).map((c) => c.name));
    if (running.size > 0) this.#containerEvents(pod, 'Killing', (c) => `Stopping container ${c.name}`, running);
    if (phase !== 'Succeeded' && phase !== 'Failed' && (pod.metadata?.finalizers ?? []).length === 0) this.#stats.podsFinished++;
    try {
      this.#client.delete(this.#client.resourceFor('v1', 'Pod'), pod.metadata?.namespace ?? '', pod.metadata?.name ?? '', { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata?.uid ?? '' } });
    } catch (err) {
      // Gone already, or replaced by a pod of the same name: nothing of ours to delete.
      if (isNotFound(err) || isConflict(err)) return;
      throw err;
    }
  }

  /** The containers exited and were started again (restartCount + 1, lastState terminated). */
  #restart(pod: Pod, exitCode: number): void {
    const now = formatTime(this.#clock.now());
    const uid = pod.metadata?.uid ?? '';
    this.#writeStatus(pod, (current) => {
      const statuses = Array.isArray(current.containerStatuses) ? current.containerStatuses.filter(isObject) : [];
      return {
        ...current,
        containerStatuses: statuses.map((c) => {
          const startedAt = isObject(c.state) && isObject(c.state.running) ? c.state.running.startedAt : now;
          const terminated = { containerID: c.containerID ?? `kubeloom://${hex(`${uid}/${String(c.name)}`)}`, exitCode, finishedAt: now, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt };
          return { ...c, restartCount: (typeof c.restartCount === 'number' ? c.restartCount : 0) + 1, lastState: { terminated }, state: { running: { startedAt: now } } };
        }),
      };
    });
  }

  #podIp(node: string): string {
    const n = (this.#nextIp.get(node) ?? 1) + 1;
    this.#nextIp.set(node, n);
    const base = podCidr(this.#nodeIndex.get(node) ?? 0).slice(0, -'0/24'.length);
    return `${base}${n <= 254 ? n : 2 + ((n - 2) % 253)}`;
  }

  // `status` gets the stored status, which it must not change (LoopbackClient.modify): it returns a new one.
  #writeStatus(pod: Pod, status: (current: Readonly<Obj>) => Obj): void {
    this.#client.modify(this.#client.resourceFor('v1', 'Pod'), pod.metadata?.namespace ?? '', pod.metadata?.name ?? '', (o) => ({ ...o, status: status(isObject(o.status) ? o.status : {}) }), 'status');
  }

  #run(pod: Pod, ready = true): void {
    const node = pod.spec?.nodeName ?? '';
    const nodeObj = this.#client.get(this.#client.resourceFor('v1', 'Node'), '', node) as Node | undefined;
    const hostIP = nodeObj?.status?.addresses?.find((a) => a.type === 'InternalIP')?.address ?? '127.0.0.1';
    const started = runningPodStatus(pod, { hostIP, podIP: this.#podIp(node), now: formatTime(this.#clock.now()) }, ready);
    this.#writeStatus(pod, (current) => ({ ...current, ...started, conditions: withConditions(current.conditions, started.conditions as Obj[]) }));
    this.#stats.podsStarted++;
  }

  /** The containers became ready: Ready and ContainersReady True. */
  #markReady(pod: Pod): void {
    const now = formatTime(this.#clock.now());
    const condition = (type: string): Obj => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: now });
    this.#writeStatus(pod, (current) => ({
      ...current,
      conditions: withConditions(current.conditions, [condition('Ready'), condition('ContainersReady')]),
      containerStatuses: (Array.isArray(current.containerStatuses) ? current.containerStatuses.filter(isObject) : []).map((c) => ({ ...c, ready: true })),
    }));
  }

  #finish(pod: Pod, outcome: { phase: 'Succeeded' | 'Failed'; exitCode?: number }): void {
    const now = formatTime(this.#clock.now());
    const uid = pod.metadata?.uid ?? '';
    const succeeded = outcome.phase === 'Succeeded';
    const exitCode = outcome.exitCode ?? (succeeded ? 0 : 1);
    const reason = succeeded ? 'PodCompleted' : 'PodFailed';
    const notReady = (type: string): Obj => ({ type, status: 'False', lastProbeTime: null, lastTransitionTime: now, reason });
    this.#writeStatus(pod, (current) => {
      const running = new Map((Array.isArray(current.containerStatuses) ? current.containerStatuses.filter(isObject) : []).map((s) => [s.name, s]));
      return {
        ...current,
        phase: outcome.phase,
        conditions: withConditions(current.conditions, [{ type: 'PodReadyToStartContainers', status: 'False', lastProbeTime: null, lastTransitionTime: now }, notReady('Ready'), notReady('ContainersReady')]),
        containerStatuses: (pod.spec?.containers ?? []).map((c) => {
          const prev = running.get(c.name);
          const startedAt = isObject(prev?.state) && isObject(prev.state.running) ? prev.state.running.startedAt : now;
          const terminated = { containerID: `kubeloom://${hex(`${uid}/${c.name}`)}`, exitCode, finishedAt: now, reason: succeeded ? 'Completed' : 'Error', startedAt };
          return containerStatus(c, uid, { terminated }, false, false);
        }),
      };
    });
    this.#stats.podsFinished++;
  }
}
