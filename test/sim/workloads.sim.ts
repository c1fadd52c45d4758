// kubeloom's Deployment, Job, StatefulSet and DaemonSet controllers (src/controllers), unchanged, under the
// simulator through the in-process REST transport (`startControllers` over a typed clientset), with a
// simulated kubelet (a `SimControllerSpec` in a process of its own, perturbed like any controller) that
// starts every pod it sees: Running and Ready, or Succeeded for a Job's pods.
import type { DaemonSet, Deployment, ReplicaSet, StatefulSet } from '../../src/api/apps/v1.ts';
import type { Job } from '../../src/api/batch/v1.ts';
import type { Node, Pod } from '../../src/api/core/v1.ts';
import { isNotFound } from '../../src/apimachinery/errors.ts';
import { kinds } from '../../src/client/kinds.ts';
import { startControllers } from '../../src/controllers/controller-manager.ts';
import { newClientset } from '../../src/kubernetes/clientset.ts';
import type { ReconcileFunc } from '../../src/reconcile/reconcile.ts';
import { controlledBy, type ClusterView, type Invariant, type SimClient, type SimControllerSpec, type Simulation } from '../../src/sim/index.ts';

const pods = kinds.coreV1.pods;
const nodes = kinds.coreV1.nodes;
const deployments = kinds.appsV1.deployments;
const replicaSets = kinds.appsV1.replicaSets;
const statefulSets = kinds.appsV1.statefulSets;
const daemonSets = kinds.appsV1.daemonSets;
const jobs = kinds.batchV1.jobs;

/** A kubelet for every node: a pod it sees Pending (the API server's phase for a new pod) starts (Running and Ready, or Succeeded when it belongs to a Job). */
const kubeletReconcile: ReconcileFunc<SimClient> = async (req, { client }) => {
  let pod: Pod;
  try {
    pod = await client.get(pods, req);
  } catch (err) {
    if (isNotFound(err)) return;
    throw err;
  }
  if (pod.metadata?.deletionTimestamp !== undefined || (pod.status?.phase ?? 'Pending') !== 'Pending') return;
  const now = new Date(Date.now()).toISOString();
  const fromJob = (pod.metadata?.ownerReferences ?? []).some((r) => r.kind === 'Job');
  const status = fromJob
    ? { phase: 'Succeeded', conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: now }], containerStatuses: [{ name: 'app', ready: false, restartCount: 0, image: 'app', imageID: '', state: { terminated: { exitCode: 0, finishedAt: now } } }] }
    : { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }], containerStatuses: [{ name: 'app', ready: true, restartCount: 0, image: 'app', imageID: '', state: { running: { startedAt: now } } }] };
  await client.patchStatus(pods, req, { status });
};

const kubelet: { name: string; controllers: SimControllerSpec[] } = { name: 'kubelet', controllers: [{ name: 'kubelet', for: pods, reconcile: kubeletReconcile }] };

function kcm(controllers: string[]): Simulation['start'] {
  return (h) => {
    startControllers(newClientset(h.restConfig, h.restClientOptions('kcm')), { controllers, clock: h.clock, signal: h.signal, onError: () => undefined });
  };
}

const live = (o: { metadata?: { deletionTimestamp?: string } }): boolean => o.metadata?.deletionTimestamp === undefined;
const template = (app: string, image: string): NonNullable<Deployment['spec']>['template'] => ({ metadata: { labels: { app } }, spec: { containers: [{ name: 'app', image }] } });

function invariant(name: string, check: (view: ClusterView) => string | undefined): Invariant {
  return { name, check };
}

// ---------------------------------------------------------------------------------------------- Deployment

/** A Deployment's ReplicaSets (by controller reference). */
function replicaSetsOf(view: ClusterView, d: Deployment): ReplicaSet[] {
  return controlledBy(view, replicaSets, d);
}

/**
 * Always: the ReplicaSets' replicas sum to at most the most replicas asked (4) + maxSurge (1). (Right after
 * a scale-down the sum is still the old size until the controller reacts, hence the fixed bound.)
 */
const deploymentSurgeBound = invariant('replicaSetsWithinSurge', (view) => {
  for (const d of view.list(deployments)) {
    const sum = replicaSetsOf(view, d).reduce((s, rs) => s + (rs.spec?.replicas ?? 0), 0);
    if (sum > 4 + 1) return `Deployment ${d.metadata?.name}: its ReplicaSets want ${sum} replicas, more than 4 + maxSurge 1`;
  }
  return undefined;
});

/** Eventually: one ReplicaSet with the current template at spec.replicas, every older one at 0, the status complete. */
const deploymentRolledOut = invariant('rolloutComplete', (view) => {
  for (const d of view.list(deployments)) {
    const want = d.spec?.replicas ?? 1;
    const image = d.spec?.template?.spec?.containers[0]?.image;
    const sets = replicaSetsOf(view, d);
    const current = sets.filter((rs) => rs.spec?.template?.spec?.containers[0]?.image === image);
    if (current.length !== 1) return `Deployment ${d.metadata?.name}: ${current.length} ReplicaSets with the current template`;
    if (current[0]!.spec?.replicas !== want) return `Deployment ${d.metadata?.name}: new ReplicaSet at ${current[0]!.spec?.replicas} replicas, want ${want}`;
    const old = sets.filter((rs) => rs !== current[0] && (rs.spec?.replicas ?? 0) !== 0);
    if (old.length > 0) return `Deployment ${d.metadata?.name}: old ReplicaSet ${old[0]!.metadata?.name} still at ${old[0]!.spec?.replicas}`;
    const podCount = sets.reduce((s, rs) => s + controlledBy(view, pods, rs).filter(live).length, 0);
    if (podCount !== want) return `Deployment ${d.metadata?.name}: ${podCount} pods, want ${want}`;
    const st = d.status ?? {};
    if (st.observedGeneration !== d.metadata?.generation || st.updatedReplicas !== want || st.availableReplicas !== want || st.replicas !== want) {
      return `Deployment ${d.metadata?.name}: status ${JSON.stringify({ observedGeneration: st.observedGeneration, replicas: st.replicas, updatedReplicas: st.updatedReplicas, availableReplicas: st.availableReplicas })} at generation ${d.metadata?.generation}`;
    }
  }
  return undefined;
});

/** The Deployment and ReplicaSet controllers: create 4 replicas (maxSurge 1, maxUnavailable 1), roll out a new image, scale to 2. */
export const deploymentRollout: Simulation = {
  name: 'Deployment controller: create, roll out, scale',
  processes: [kubelet],
  start: kcm(['deployment', 'replicaset']),
  async scenario({ client, settle }) {
    await client.create(deployments, {
      metadata: { name: 'web', namespace: 'default' },
      spec: { replicas: 4, selector: { matchLabels: { app: 'web' } }, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } }, template: template('web', 'app:1') },
    } as Deployment);
    await settle();
    await client.patch(deployments, { namespace: 'default', name: 'web' }, { spec: { template: template('web', 'app:2') } });
    await settle();
    await client.patch(deployments, { namespace: 'default', name: 'web' }, { spec: { replicas: 2 } });
    await settle();
  },
  invariants: [deploymentSurgeBound],
  eventually: [deploymentRolledOut],
};

// --------------------------------------------------------------------------------------------------- Job

/** Always: never more active (running, not terminating) pods than parallelism (2). */
const jobParallelism = invariant('activeWithinParallelism', (view) => {
  for (const j of view.list(jobs)) {
    const active = controlledBy(view, pods, j).filter((p) => live(p) && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed').length;
    if (active > (j.spec?.parallelism ?? 1)) return `Job ${j.metadata?.name}: ${active} active pods, parallelism ${j.spec?.parallelism}`;
  }
  return undefined;
});

/**
 * Eventually: status.succeeded reaches completions and counts the succeeded pods, the Complete condition,
 * no active pods. (Not `succeeded == completions`: after the overshoot below, the extra pod may succeed too;
 * see docs/simulation.md.)
 */
const jobCompleted = invariant('jobComplete', (view) => {
  for (const j of view.list(jobs)) {
    const want = j.spec?.completions ?? 1;
    const st = j.status ?? {};
    const succeededPods = controlledBy(view, pods, j).filter((p) => p.status?.phase === 'Succeeded').length;
    if ((st.succeeded ?? 0) < want || st.succeeded !== succeededPods) return `Job ${j.metadata?.name}: status.succeeded ${st.succeeded}, ${succeededPods} succeeded pods, completions ${want}`;
    if (!(st.conditions ?? []).some((c) => c.type === 'Complete' && c.status === 'True')) return `Job ${j.metadata?.name}: no Complete condition (${JSON.stringify(st.conditions ?? [])})`;
    if ((st.active ?? 0) !== 0) return `Job ${j.metadata?.name}: status.active ${st.active} once complete`;
  }
  return undefined;
});

/** The Job controller: 5 completions, parallelism 2. */
export const jobCompletions: Simulation = {
  name: 'Job controller: 5 completions, parallelism 2',
  processes: [kubelet],
  start: kcm(['job']),
  async scenario({ client, settle }) {
    await client.create(jobs, {
      metadata: { name: 'batch', namespace: 'default' },
      // The API server's defaulting would add a controller-uid selector; the simulated server does no defaulting.
      spec: { completions: 5, parallelism: 2, backoffLimit: 6, manualSelector: true, selector: { matchLabels: { app: 'batch' } }, template: { metadata: { labels: { app: 'batch' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'app', image: 'app:1' }] } } },
    } as Job);
    await settle();
  },
  eventually: [jobCompleted],
};

/**
 * The same, also requiring at most `parallelism` active pods at every step. It does not hold, upstream as
 * here: a pod create that commits but whose response is lost (504) lowers the expectation (manageJob
 * decrements on every error but NamespaceTerminating), and a sync whose pod cache lags creates one more.
 */
export const jobParallelismBound: Simulation = { ...jobCompletions, name: 'Job controller never above parallelism', invariants: [jobParallelism] };

// ------------------------------------------------------------------------------------------- StatefulSet

function ordinal(set: string, pod: Pod): number {
  const name = pod.metadata?.name ?? '';
  const m = name.startsWith(`${set}-`) ? /^\d+$/.exec(name.slice(set.length + 1)) : null;
  return m === null ? -1 : Number(m[0]);
}

/** Always: every pod is `<set>-<ordinal>` with an ordinal below the most replicas asked (5), and under OrderedReady pod i exists only with 0..i-1. */
const statefulSetOrdinals = invariant('orderedOrdinals', (view) => {
  for (const s of view.list(statefulSets)) {
    const name = s.metadata?.name ?? '';
    const owned = controlledBy(view, pods, s);
    const ords = new Set<number>();
    for (const p of owned) {
      const o = ordinal(name, p);
      if (o < 0 || o >= 5) return `StatefulSet ${name}: pod ${p.metadata?.name} has no ordinal below 5`;
      ords.add(o);
    }
    for (const o of ords) {
      for (let i = 0; i < o; i++) if (!ords.has(i)) return `StatefulSet ${name}: pod ${name}-${o} exists without ${name}-${i} (OrderedReady)`;
    }
  }
  return undefined;
});

/** Eventually: exactly pods 0..replicas-1, and status.replicas/readyReplicas at spec.replicas. */
const statefulSetExact = invariant('ordinalsEqualReplicas', (view) => {
  for (const s of view.list(statefulSets)) {
    const name = s.metadata?.name ?? '';
    const want = s.spec?.replicas ?? 1;
    const names = controlledBy(view, pods, s).filter(live).map((p) => p.metadata?.name).sort();
    const expected = Array.from({ length: want }, (_, i) => `${name}-${i}`).sort();
    if (names.join() !== expected.join()) return `StatefulSet ${name}: pods [${names.join(', ')}], want [${expected.join(', ')}]`;
    if (s.status?.replicas !== want || s.status.readyReplicas !== want) return `StatefulSet ${name}: status replicas ${s.status?.replicas}, ready ${s.status?.readyReplicas}, want ${want}`;
  }
  return undefined;
});

/** The StatefulSet controller (OrderedReady): 3 → 5 → 2 replicas. */
export const statefulSetScaling: Simulation = {
  name: 'StatefulSet controller scaling 3, 5, 2',
  processes: [kubelet],
  start: kcm(['statefulset']),
  async scenario({ client, settle }) {
    await client.create(statefulSets, {
      metadata: { name: 'db', namespace: 'default' },
      spec: { replicas: 3, serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: template('db', 'db:1') },
    } as StatefulSet);
    await settle();
    await client.patch(statefulSets, { namespace: 'default', name: 'db' }, { spec: { replicas: 5 } });
    await settle();
    await client.patch(statefulSets, { namespace: 'default', name: 'db' }, { spec: { replicas: 2 } });
    await settle();
  },
  invariants: [statefulSetOrdinals],
  eventually: [statefulSetExact],
};

// --------------------------------------------------------------------------------------------- DaemonSet

function node(name: string, role: string): Node {
  return { metadata: { name, labels: { role } }, spec: {}, status: { conditions: [{ type: 'Ready', status: 'True' }] } } as Node;
}

function podsPerNode(view: ClusterView, ds: DaemonSet): Map<string, number> {
  const byNode = new Map<string, number>();
  for (const p of controlledBy(view, pods, ds).filter(live)) {
    const n = p.spec?.nodeName ?? p.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms[0]?.matchFields?.[0]?.values?.[0] ?? '';
    byNode.set(n, (byNode.get(n) ?? 0) + 1);
  }
  return byNode;
}

/** Always: at most one live daemon pod per node. */
const daemonAtMostOne = invariant('atMostOnePodPerNode', (view) => {
  for (const ds of view.list(daemonSets)) {
    for (const [n, count] of podsPerNode(view, ds)) if (count > 1) return `DaemonSet ${ds.metadata?.name}: ${count} pods on node ${n}`;
  }
  return undefined;
});

/** Eventually: exactly one pod on each node matching the nodeSelector (role=worker), none elsewhere. */
const daemonExactlyEligible = invariant('onePodPerEligibleNode', (view) => {
  for (const ds of view.list(daemonSets)) {
    const byNode = podsPerNode(view, ds);
    for (const n of view.list(nodes)) {
      const want = n.metadata?.labels?.role === 'worker' ? 1 : 0;
      const have = byNode.get(n.metadata?.name ?? '') ?? 0;
      if (have !== want) return `DaemonSet ${ds.metadata?.name}: ${have} pods on node ${n.metadata?.name} (role ${n.metadata?.labels?.role}), want ${want}`;
    }
    const st = ds.status;
    const eligible = view.list(nodes).filter((n) => n.metadata?.labels?.role === 'worker').length;
    if (st?.desiredNumberScheduled !== eligible || st.currentNumberScheduled !== eligible || st.numberReady !== eligible) return `DaemonSet ${ds.metadata?.name}: status ${JSON.stringify(st)}, ${eligible} eligible nodes`;
  }
  return undefined;
});

/** The DaemonSet controller: 3 nodes (2 workers), a 4th worker joins, a worker is relabelled, the template changes. */
// A node joins: the API server's TaintNodesByCondition admission gives a new node the not-ready NoSchedule
// taint, which the node lifecycle controller removes once the node reports Ready; here the scenario does.
async function joinNode(client: SimClient, name: string, role: string): Promise<void> {
  await client.create(nodes, node(name, role));
  await client.patch(nodes, { name }, { spec: { taints: null } });
}

export const daemonSetNodes: Simulation = {
  name: 'DaemonSet controller over joining and relabelled nodes',
  processes: [kubelet],
  start: kcm(['daemonset']),
  async scenario({ client, settle }) {
    for (const [n, role] of [['n1', 'worker'], ['n2', 'worker'], ['n3', 'infra']] as const) await joinNode(client, n, role);
    await client.create(daemonSets, {
      metadata: { name: 'agent', namespace: 'default' },
      spec: { selector: { matchLabels: { app: 'agent' } }, template: { ...template('agent', 'agent:1'), spec: { nodeSelector: { role: 'worker' }, containers: [{ name: 'app', image: 'agent:1' }] } } },
    } as DaemonSet);
    await settle();
    await joinNode(client, 'n4', 'worker');
    await client.patch(nodes, { name: 'n2' }, { metadata: { labels: { role: 'infra' } } });
    await settle();
    await client.patch(daemonSets, { namespace: 'default', name: 'agent' }, { spec: { template: { metadata: { labels: { app: 'agent' } }, spec: { nodeSelector: { role: 'worker' }, containers: [{ name: 'app', image: 'agent:2' }] } } } });
    await settle();
  },
  eventually: [daemonExactlyEligible],
};

/**
 * The same, also requiring at most one pod per node at every step. It does not hold, upstream as here: a
 * lost create response (504) lowers the expectation (syncNodes decrements on every error but
 * NamespaceTerminating), and a sync whose pod cache lags creates a second pod on the node; the next sync
 * deletes the younger one.
 */
export const daemonSetOnePerNodeBound: Simulation = { ...daemonSetNodes, name: 'DaemonSet controller never two pods on a node', invariants: [daemonAtMostOne] };

/** Every workload simulation, by controller. */
export const workloads: Record<string, Simulation> = { deployment: deploymentRollout, job: jobCompletions, statefulset: statefulSetScaling, daemonset: daemonSetNodes };
