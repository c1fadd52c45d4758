/**
 * The workload script of the differential check against kube-controller-manager: run on the embedded
 * server (scheduler and kubelet stand-ins, no workload controllers of its own) once with the real
 * kube-controller-manager v1.24 (record.ts, golden file) and once with kubeloom's controllers
 * (replay.test.ts), then normalised and compared.
 *
 * The script: a Deployment of 3 rolled out, updated to a new image (a rolling update), scaled to 1; a
 * Service selecting it (Endpoints, EndpointSlice); the StatefulSet's headless Service; a Service selecting no pods; a Job of 2 completions; a StatefulSet of 2 and a DaemonSet, each
 * updated to a new image (ControllerRevisions, `controller-revision-hash`); PodDisruptionBudgets over
 * the Deployment's pod (minAvailable, maxUnavailable, a percentage), over no pods and over a pod without
 * a controller (the disruption controller's status and events); a
 * ResourceQuota at the end (its hard and used amounts); the Service's EndpointSlice; a Job with
 * ttlSecondsAfterFinished 0 (deleted once finished); a fresh namespace (its `default` ServiceAccount and
 * `kube-root-ca.crt`, both put back after a deletion or a change). Each step waits for the state both controller
 * managers must reach. The snapshot keeps what must match — object names, labels (pod-template-hash),
 * annotations (revisions, replicas), owner references, status counts and condition reasons and messages,
 * event reasons and messages — with what either side picks freely (uids, hash values, pod name
 * suffixes, IPs, times) replaced by placeholders.
 *
 * Where v1.24 and the newer upstream kubeloom models differ, {@link knownDifferences} turns both into
 * the v1.24 form, each with its upstream reference.
 */
import type { ControllerRevision, DaemonSet, Deployment, ReplicaSet, StatefulSet } from '../../../src/api/apps/v1.ts';
import type { Job } from '../../../src/api/batch/v1.ts';
import type { ConfigMap, Endpoints, Event, Pod, ResourceQuota, ServiceAccount } from '../../../src/api/core/v1.ts';
import type { EndpointSlice } from '../../../src/api/discovery/v1.ts';
import type { PodDisruptionBudget } from '../../../src/api/policy/v1.ts';
import { PatchType } from '../../../src/apimachinery/options.ts';
import type { Clientset } from '../../../src/kubernetes/clientset.ts';
import { pruneZero } from '../../../src/controllers/controller-utils.ts';
import { waitForItems, waitForObject } from '../support.ts';

type Obj = Record<string, unknown>;

/** What the script observed, before normalisation. */
export interface Observed {
  deployments: Deployment[];
  replicaSets: ReplicaSet[];
  statefulSets: StatefulSet[];
  daemonSets: DaemonSet[];
  controllerRevisions: ControllerRevision[];
  pods: Pod[];
  jobs: Job[];
  endpoints: Endpoints[];
  podDisruptionBudgets: PodDisruptionBudget[];
  resourceQuotas: ResourceQuota[];
  endpointSlices: EndpointSlice[];
  /** The ServiceAccounts and the root CA ConfigMap of the namespace the script creates. */
  freshServiceAccounts: ServiceAccount[];
  freshConfigMaps: ConfigMap[];
  events: Event[];
}

const ns = 'default';
const template = (image: string) => ({ metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image, ports: [{ name: 'http', containerPort: 8080 }] }] } });

function rolledOut(d: Deployment | undefined, revision: string, replicas: number): boolean {
  const s = d?.status;
  return (
    d?.metadata?.annotations?.['deployment.kubernetes.io/revision'] === revision &&
    s?.observedGeneration === d.metadata?.generation &&
    s?.replicas === replicas &&
    s.updatedReplicas === replicas &&
    s.availableReplicas === replicas &&
    s.readyReplicas === replicas &&
    s.conditions?.some((c) => c.type === 'Progressing' && c.reason === 'NewReplicaSetAvailable') === true
  );
}

/** Runs the script against `client` and returns what the cluster holds at the end. */
export async function runScenario(client: Clientset): Promise<Observed> {
  const deployments = client.appsV1().deployments(ns);
  await deployments.create({ metadata: { name: 'web', labels: { app: 'web' } }, spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: template('nginx:1.25') } });
  await waitForObject(deployments, 'web', (d) => rolledOut(d, '1', 3));
  await deployments.patch('web', PatchType.StrategicMerge, { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.26' }] } } } });
  await waitForObject(deployments, 'web', (d) => rolledOut(d, '2', 3));
  // The old pods are gone once the old ReplicaSet's status says so.
  await waitForItems(client.appsV1().replicaSets(ns), (rss) => rss.length === 2 && rss.every((rs) => rs.status?.observedGeneration === rs.metadata?.generation && (rs.status?.replicas ?? 0) === (rs.spec?.replicas ?? 0)));
  await deployments.patch('web', PatchType.Merge, { spec: { replicas: 1 } });
  await waitForObject(deployments, 'web', (d) => rolledOut(d, '2', 1));
  await waitForItems(client.coreV1().pods(ns), (pods) => pods.filter((p) => p.metadata?.labels?.app === 'web').length === 1);

  await client.coreV1().services(ns).create({ metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } });
  await waitForObject(client.coreV1().endpoints(ns), 'web', (e) => e?.subsets?.[0]?.addresses?.length === 1);
  const slices = client.discoveryV1().endpointSlices(ns);
  const serviceSlices = (name: string) => (all: EndpointSlice[]) => all.filter((e) => e.metadata?.labels?.['kubernetes.io/service-name'] === name);
  const webSlices = serviceSlices('web');
  await waitForItems(slices, (all) => webSlices(all).length === 1 && webSlices(all)[0]!.endpoints?.length === 1 && webSlices(all)[0]!.endpoints?.[0]?.conditions?.ready === true);

  // PodDisruptionBudgets over the one web pod: minAvailable 1 (no disruption allowed) and
  // maxUnavailable 1 (one allowed; the expected count comes from the Deployment's scale).
  const pdbs = client.policyV1().podDisruptionBudgets(ns);
  await pdbs.create({ metadata: { name: 'web-min' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } } });
  await pdbs.create({ metadata: { name: 'web-max' }, spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'web' } } } });
  // A percentage (the expected count from the Deployment's scale, rounded up) and a selector matching nothing.
  await pdbs.create({ metadata: { name: 'web-pct' }, spec: { minAvailable: '50%', selector: { matchLabels: { app: 'web' } } } });
  await pdbs.create({ metadata: { name: 'none' }, spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'none' } } } });
  // A pod without a controller under a maxUnavailable budget: left out of the expected count.
  // Its requests and limits (an init container asking more CPU than the container) are the quota's usage below.
  await client.coreV1().pods(ns).create({
    metadata: { name: 'solo', labels: { app: 'solo' } },
    spec: {
      initContainers: [{ name: 'init', image: 'busybox', resources: { requests: { cpu: '1' } } }],
      containers: [{ name: 'solo', image: 'busybox', resources: { requests: { cpu: '250m', memory: '64Mi' }, limits: { cpu: '500m', memory: '128Mi' } } }],
    },
  });
  await waitForObject(client.coreV1().pods(ns), 'solo', (p) => p?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true);
  await pdbs.create({ metadata: { name: 'solo' }, spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'solo' } } } });
  await waitForItems(pdbs, (all) => all.length === 5 && all.every((p) => p.status?.observedGeneration === p.metadata?.generation && (p.status?.currentHealthy ?? 0) === (p.metadata?.name === 'none' ? 0 : 1) && p.status?.conditions?.some((c) => c.type === 'DisruptionAllowed') === true));
  await waitForItems(client.coreV1().events(ns), (es) => es.some((e) => e.involvedObject.name === 'none' && e.reason === 'NoPods'));

  const jobs = client.batchV1().jobs(ns);
  await jobs.create({ metadata: { name: 'pi' }, spec: { completions: 2, parallelism: 1, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'busybox' }] } } } });
  await waitForObject(jobs, 'pi', (j) => j?.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') === true && (j.status.active ?? 0) === 0);
  // The events of the last steps are written after the state they report.
  await waitForItems(client.coreV1().events(ns), (es) => es.some((e) => e.reason === 'Completed') && es.filter((e) => e.reason === 'SuccessfulCreate' && e.involvedObject.kind === 'Job').length === 2);

  const sets = client.appsV1().statefulSets(ns);
  const stsTemplate = (image: string) => ({ metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image }] } });
  await sets.create({ metadata: { name: 'db' }, spec: { replicas: 2, serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: stsTemplate('postgres:15') } });
  const stsDone = (s: StatefulSet | undefined): boolean =>
    s?.status?.observedGeneration === s?.metadata?.generation && s?.status?.readyReplicas === 2 && s.status.updatedReplicas === 2 && s.status.currentRevision === s.status.updateRevision;
  await waitForObject(sets, 'db', stsDone);
  await sets.patch('db', PatchType.StrategicMerge, { spec: { template: { spec: { containers: [{ name: 'db', image: 'postgres:16' }] } } } });
  await waitForObject(sets, 'db', (s) => stsDone(s) && s?.status?.currentRevision !== undefined && (s.metadata?.generation ?? 0) === 2);
  await waitForItems(client.coreV1().pods(ns), (pods) => pods.filter((p) => p.metadata?.labels?.app === 'db' && p.spec?.containers[0]?.image === 'postgres:16' && p.status?.phase === 'Running').length === 2);

  // The StatefulSet's headless Service: hostnames in Endpoints and EndpointSlice, an unnamed port.
  await client.coreV1().services(ns).create({ metadata: { name: 'db' }, spec: { clusterIP: 'None', selector: { app: 'db' }, ports: [{ port: 5432 }] } });
  await waitForObject(client.coreV1().endpoints(ns), 'db', (e) => e?.subsets?.[0]?.addresses?.length === 2);
  const dbSlices = serviceSlices('db');
  await waitForItems(slices, (all) => dbSlices(all).length === 1 && dbSlices(all)[0]!.endpoints?.filter((ep) => ep.conditions?.ready === true).length === 2);

  // A Service selecting no pods: Endpoints without subsets, a placeholder EndpointSlice.
  await client.coreV1().services(ns).create({ metadata: { name: 'empty' }, spec: { selector: { app: 'nothing' }, ports: [{ name: 'http', port: 80 }] } });
  await waitForObject(client.coreV1().endpoints(ns), 'empty', (e) => e !== undefined);
  const emptySlices = serviceSlices('empty');
  await waitForItems(slices, (all) => emptySlices(all).length === 1);

  const dss = client.appsV1().daemonSets(ns);
  await dss.create({ metadata: { name: 'agent' }, spec: { selector: { matchLabels: { app: 'agent' } }, template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'agent', image: 'agent:1' }] } } } });
  const dsDone = (d: DaemonSet | undefined, gen: number): boolean => d?.metadata?.generation === gen && d.status?.observedGeneration === gen && d.status.updatedNumberScheduled === 1 && d.status.numberAvailable === 1 && d.status.desiredNumberScheduled === 1;
  await waitForObject(dss, 'agent', (d) => dsDone(d, 1));
  await dss.patch('agent', PatchType.StrategicMerge, { spec: { template: { spec: { containers: [{ name: 'agent', image: 'agent:2' }] } } } });
  await waitForObject(dss, 'agent', (d) => dsDone(d, 2));
  await waitForItems(client.coreV1().pods(ns), (pods) => pods.filter((p) => p.metadata?.labels?.app === 'agent').length === 1 && pods.some((p) => p.metadata?.labels?.app === 'agent' && p.spec?.containers[0]?.image === 'agent:2' && p.status?.phase === 'Running'));

  // A Job removed by the TTL-after-finished controller as soon as it finishes (its pods by the garbage collector).
  await jobs.create({ metadata: { name: 'ttl' }, spec: { ttlSecondsAfterFinished: 0, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'ttl', image: 'busybox' }] } } } });
  await waitForItems(client.coreV1().events(ns), (es) => es.some((e) => e.involvedObject.name === 'ttl' && e.reason === 'Completed') && es.some((e) => e.involvedObject.name === 'ttl' && e.reason === 'SuccessfulCreate'));
  await waitForObject(jobs, 'ttl', (j) => j === undefined);
  await waitForItems(client.coreV1().pods(ns), (pods) => !pods.some((p) => p.metadata?.labels?.['job-name'] === 'ttl'));

  // A fresh namespace gets its `default` ServiceAccount and the root CA ConfigMap.
  await client.coreV1().namespaces().create({ metadata: { name: 'fresh' } });
  await waitForObject(client.coreV1().serviceAccounts('fresh'), 'default', (sa) => sa !== undefined);
  const cmRoot = await waitForObject(client.coreV1().configMaps('fresh'), 'kube-root-ca.crt', (cm) => cm !== undefined);
  // Both are put back: a deleted ServiceAccount is created again, changed data is restored (extra keys dropped).
  const firstSa = await client.coreV1().serviceAccounts('fresh').get('default');
  await client.coreV1().serviceAccounts('fresh').delete('default');
  await waitForObject(client.coreV1().serviceAccounts('fresh'), 'default', (sa) => sa !== undefined && sa.metadata?.uid !== firstSa.metadata?.uid);
  await client.coreV1().configMaps('fresh').patch('kube-root-ca.crt', PatchType.Merge, { data: { 'ca.crt': 'changed', extra: 'x' } });
  await waitForObject(client.coreV1().configMaps('fresh'), 'kube-root-ca.crt', (cm) => cm?.data?.extra === undefined && cm?.data?.['ca.crt'] === cmRoot?.data?.['ca.crt'] && cm?.metadata?.resourceVersion !== cmRoot?.metadata?.resourceVersion);

  // A ResourceQuota once the workloads are settled, then a ConfigMap: used must count what the namespace holds.
  const quotas = client.coreV1().resourceQuotas(ns);
  await client.coreV1().configMaps(ns).create({ metadata: { name: 'settings' }, data: { mode: 'test' } });
  await quotas.create({ metadata: { name: 'quota' }, spec: { hard: { pods: '10', services: '5', configmaps: '10', secrets: '10', 'requests.cpu': '2', 'limits.memory': '1Gi', 'limits.cpu': '4', 'requests.memory': '1Gi', cpu: '4', memory: '2Gi', 'count/pods': '10', 'services.nodeports': '1', resourcequotas: '1', persistentvolumeclaims: '2', 'count/deployments.apps': '3', 'count/jobs.batch': '3', 'count/configmaps': '10' } } });
  const livePods = (await client.coreV1().pods(ns).list()).items.filter((p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed').length;
  const services = (await client.coreV1().services(ns).list()).items.length;
  const configMaps = (await client.coreV1().configMaps(ns).list()).items.length;
  await waitForObject(quotas, 'quota', (q) => q?.status?.used?.pods === String(livePods) && q.status.used.services === String(services) && q.status.used.configmaps === String(configMaps) && q.status.used['count/deployments.apps'] === '1' && Object.keys(q.status.used).length === Object.keys(q.spec?.hard ?? {}).length);

  return {
    deployments: (await deployments.list()).items,
    replicaSets: (await client.appsV1().replicaSets(ns).list()).items,
    statefulSets: (await sets.list()).items,
    daemonSets: (await dss.list()).items,
    controllerRevisions: (await client.appsV1().controllerRevisions(ns).list()).items,
    pods: (await client.coreV1().pods(ns).list()).items,
    jobs: (await jobs.list()).items,
    endpoints: (await client.coreV1().endpoints(ns).list()).items.filter((e) => e.metadata?.name !== 'kubernetes'),
    podDisruptionBudgets: (await pdbs.list()).items,
    resourceQuotas: (await quotas.list()).items,
    endpointSlices: [...dbSlices((await slices.list()).items), ...emptySlices((await slices.list()).items), ...webSlices((await slices.list()).items)],
    freshServiceAccounts: (await client.coreV1().serviceAccounts('fresh').list()).items,
    freshConfigMaps: (await client.coreV1().configMaps('fresh').list()).items,
    events: (await client.coreV1().events(ns).list()).items,
  };
}

/** `v` without nulls and empty objects or arrays (Go writes `creationTimestamp: null` into raw revision data). */
function pruneNull(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(pruneNull);
  if (v !== null && typeof v === 'object') {
    const out: Obj = {};
    for (const [k, x] of Object.entries(v as Obj)) {
      const p = pruneNull(x);
      if (p === null || p === undefined) continue;
      if (typeof p === 'object' && !Array.isArray(p) && Object.keys(p).length === 0) continue;
      out[k] = p;
    }
    return out;
  }
  return v;
}

/** Replaces what either side picks freely with placeholders (see the file comment). */
export function normalise(o: Observed): Obj {
  const hashes = new Map<string, string>();
  for (const rs of [...o.replicaSets].sort((a, b) => Number(a.metadata?.annotations?.['deployment.kubernetes.io/revision'] ?? 0) - Number(b.metadata?.annotations?.['deployment.kubernetes.io/revision'] ?? 0))) {
    const h = rs.metadata?.labels?.['pod-template-hash'];
    if (h !== undefined && !hashes.has(h)) hashes.set(h, `{hash:${hashes.size + 1}}`);
  }
  for (const r of [...o.controllerRevisions].sort((a, b) => (a.metadata?.name ?? '').split('-')[0]!.localeCompare((b.metadata?.name ?? '').split('-')[0]!) || (a.revision ?? 0) - (b.revision ?? 0))) {
    const h = r.metadata?.labels?.['controller-revision-hash'] ?? r.metadata?.labels?.['controller.kubernetes.io/hash'];
    if (h !== undefined && !hashes.has(h)) hashes.set(h, `{hash:${hashes.size + 1}}`);
  }
  const jobUid = o.jobs[0]?.metadata?.uid ?? '';
  const prefixes = new Set<string>();
  const text = (str: string): string => {
    let out = str;
    for (const [h, p] of hashes) out = out.split(h).join(p);
    if (jobUid !== '') out = out.split(jobUid).join('{job-uid}');
    // Generated pod names (also of pods gone by the end, named in events): `<generateName>{pod}`.
    for (const prefix of prefixes) out = out.replace(new RegExp(`${prefix.replace(/[{}:]/g, '\\$&')}[bcdfghjklmnpqrstvwxz2456789]{5}\\b`, 'g'), `${prefix}{pod}`);
    return out;
  };
  for (const rs of o.replicaSets) prefixes.add(text(`${rs.metadata?.name ?? ''}-`));
  for (const j of o.jobs) prefixes.add(`${j.metadata?.name ?? ''}-`);
  for (const d of o.daemonSets) prefixes.add(`${d.metadata?.name ?? ''}-`);
  prefixes.add('ttl-'); // the Job deleted after it finished
  // Ordered by generateName, then by name once generated suffixes are placeholders (StatefulSet pods have
  // fixed names, and their replacements can share a creation second), then by creation.
  const pods = [...o.pods].sort(
    (a, b) =>
      text(a.metadata?.generateName ?? '').localeCompare(text(b.metadata?.generateName ?? '')) ||
      text(a.metadata?.name ?? '').localeCompare(text(b.metadata?.name ?? '')) ||
      (a.metadata?.creationTimestamp ?? '').localeCompare(b.metadata?.creationTimestamp ?? ''),
  );
  const deep = (v: unknown): unknown => {
    if (typeof v === 'string') return text(v);
    if (Array.isArray(v)) return v.map(deep);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v as Obj).map(([k, x]) => [text(k), deep(x)]));
    return v;
  };
  const owners = (refs: { apiVersion: string; kind: string; name: string; controller?: boolean; blockOwnerDeletion?: boolean }[] | undefined) =>
    (refs ?? []).map((r) => ({ apiVersion: r.apiVersion, kind: r.kind, name: r.name, controller: r.controller, blockOwnerDeletion: r.blockOwnerDeletion }));
  const conditions = (cs: { type: string; status: string; reason?: string; message?: string }[] | undefined) => (cs ?? []).map((c) => ({ type: c.type, status: c.status, reason: c.reason ?? '', message: c.message ?? '' })).sort((a, b) => a.type.localeCompare(b.type));
  const snapshot = {
    deployments: o.deployments.map((d) => ({
      name: d.metadata?.name,
      generation: d.metadata?.generation,
      annotations: d.metadata?.annotations,
      status: pruneZero({ ...d.status, conditions: conditions(d.status?.conditions) }),
    })),
    replicaSets: [...o.replicaSets]
      .sort((a, b) => Number(a.metadata?.annotations?.['deployment.kubernetes.io/revision'] ?? 0) - Number(b.metadata?.annotations?.['deployment.kubernetes.io/revision'] ?? 0))
      .map((rs) => ({
        name: rs.metadata?.name,
        labels: rs.metadata?.labels,
        annotations: rs.metadata?.annotations,
        ownerReferences: owners(rs.metadata?.ownerReferences),
        replicas: rs.spec?.replicas,
        minReadySeconds: rs.spec?.minReadySeconds,
        selector: rs.spec?.selector,
        templateLabels: rs.spec?.template?.metadata?.labels,
        status: pruneZero({ ...rs.status, conditions: conditions(rs.status?.conditions) }),
      })),
    statefulSets: o.statefulSets.map((st) => ({ name: st.metadata?.name, generation: st.metadata?.generation, status: pruneZero(st.status) })),
    daemonSets: o.daemonSets.map((d) => ({ name: d.metadata?.name, generation: d.metadata?.generation, status: pruneZero(d.status) })),
    controllerRevisions: [...o.controllerRevisions]
      .sort((a, b) => (a.metadata?.name ?? '').split('-')[0]!.localeCompare((b.metadata?.name ?? '').split('-')[0]!) || (a.revision ?? 0) - (b.revision ?? 0))
      .map((r) => ({ name: r.metadata?.name, labels: r.metadata?.labels, ownerReferences: owners(r.metadata?.ownerReferences), revision: r.revision, data: pruneNull(r.data) })),
    pods: pods.map((p) => ({
      name: p.metadata?.name,
      generateName: p.metadata?.generateName,
      labels: p.metadata?.labels,
      annotations: p.metadata?.annotations,
      finalizers: p.metadata?.finalizers,
      ownerReferences: owners(p.metadata?.ownerReferences),
      phase: p.status?.phase,
      hostname: p.spec?.hostname,
      subdomain: p.spec?.subdomain,
      nodeAffinity: p.spec?.affinity?.nodeAffinity,
      tolerations: p.spec?.tolerations?.filter((tol) => tol.key !== 'node.kubernetes.io/not-ready' && tol.key !== 'node.kubernetes.io/unreachable' || tol.tolerationSeconds === undefined),
    })),
    jobs: o.jobs.map((j) => ({
      name: j.metadata?.name,
      status: {
        active: j.status?.active ?? 0,
        succeeded: j.status?.succeeded ?? 0,
        failed: j.status?.failed ?? 0,
        hasStartTime: j.status?.startTime !== undefined,
        hasCompletionTime: j.status?.completionTime !== undefined,
        conditions: conditions(j.status?.conditions),
      },
    })),
    endpoints: o.endpoints.map((e) => ({
      name: e.metadata?.name,
      labels: e.metadata?.labels,
      subsets: (e.subsets ?? []).map((s) => ({
        addresses: [...(s.addresses ?? [])].sort((a, b) => (a.targetRef?.name ?? '').localeCompare(b.targetRef?.name ?? '')).map((a) => ({ ip: '{ip}', hostname: a.hostname, nodeName: a.nodeName, targetRef: { kind: a.targetRef?.kind, name: a.targetRef?.name } })),
        notReadyAddresses: (s.notReadyAddresses ?? []).length,
        ports: s.ports,
      })),
    })),
    podDisruptionBudgets: [...o.podDisruptionBudgets]
      .sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''))
      .map((p) => ({ name: p.metadata?.name, generation: p.metadata?.generation, status: pruneZero({ ...p.status, conditions: conditions(p.status?.conditions) }) })),
    resourceQuotas: o.resourceQuotas.map((q) => ({ name: q.metadata?.name, hard: q.status?.hard, used: q.status?.used })),
    endpointSlices: o.endpointSlices.map((e) => ({
      name: `${e.metadata?.generateName ?? ''}{slice}`,
      labels: e.metadata?.labels,
      ownerReferences: owners(e.metadata?.ownerReferences),
      addressType: e.addressType,
      endpoints: [...(e.endpoints ?? [])]
        .sort((a, b) => (a.targetRef?.name ?? '').localeCompare(b.targetRef?.name ?? ''))
        .map((ep) => ({ addresses: ep.addresses.map(() => '{ip}'), conditions: ep.conditions, hostname: ep.hostname, nodeName: ep.nodeName, targetRef: { kind: ep.targetRef?.kind, name: ep.targetRef?.name, namespace: ep.targetRef?.namespace } })),
      // Go writes the placeholder slice's nil ports as null; absent and null are the same here.
      ports: e.ports ?? [],
    })),
    freshNamespace: {
      serviceAccounts: o.freshServiceAccounts.map((sa) => ({ name: sa.metadata?.name, secrets: sa.secrets?.length ?? 0, automountServiceAccountToken: sa.automountServiceAccountToken })),
      configMaps: o.freshConfigMaps.map((cm) => ({
        name: cm.metadata?.name,
        annotations: cm.metadata?.annotations,
        // The CA is the server's (empty for a plain-HTTP one): only its form is compared.
        data: Object.fromEntries(Object.entries(cm.data ?? {}).map(([k, v]) => [k, v === '' ? '' : v.startsWith('-----BEGIN CERTIFICATE-----') ? '{pem-certificate}' : '{other}'])),
      })),
    },
    // Distinct events, as `<kind> <type> <reason>: <message>` (counts and order depend on timing). A
    // FailedDelete of a pod already gone is a delete racing the informer cache, which either side may
    // or may not run into (seen once in the real kube-controller-manager's StatefulSet update): left out.
    events: [...new Set(o.events.filter((e) => !(e.reason === 'FailedDelete' && / not found$/.test(e.message ?? '')) && ['Deployment', 'ReplicaSet', 'Job', 'Service', 'Endpoints', 'StatefulSet', 'DaemonSet', 'PodDisruptionBudget', 'ResourceQuota'].includes(e.involvedObject.kind ?? '')).map((e) => `${e.involvedObject.kind ?? ''} ${e.type ?? ''} ${e.reason ?? ''}: ${e.message ?? ''} [${e.source?.component ?? ''}]`))].sort(),
  };
  return deep(snapshot) as Obj;
}

/** One difference between v1.24 and the newer upstream, and how both sides are brought to v1.24's form. */
export interface KnownDifference {
  what: string;
  upstream: string;
  apply: (snapshot: Obj) => void;
}

/**
 * Differences between kube-controller-manager v1.24 and the newer upstream kubeloom models, applied to
 * both sides before comparing, each with its reference.
 */
export const knownDifferences: readonly KnownDifference[] = [
  {
    what: 'StatefulSet pods carry the apps.kubernetes.io/pod-index label since 1.28 (PodIndexLabel); v1.24 pods do not',
    upstream: 'KEP-4017, pkg/controller/statefulset/stateful_set_utils.go initIdentity',
    apply: (s) => {
      for (const p of s.pods as { labels?: Record<string, string> }[]) if (p.labels !== undefined) delete p.labels['apps.kubernetes.io/pod-index'];
    },
  },
  {
    what: 'ScalingReplicaSet events say "Scaled up replica set X from 0 to M" and "Scaled D replica set X from N to M" in the newer upstream; v1.24 says "Scaled up replica set X to M" when it creates the ReplicaSet and "Scaled D replica set X to M from N" otherwise (a scale-up of an existing ReplicaSet from 0 cannot be told from a creation in the newer form: this script has none)',
    upstream: 'pkg/controller/deployment/sync.go getNewReplicaSet and scaleReplicaSet (v1.24 vs v1.32)',
    apply: (s) => {
      s.events = [...new Set((s.events as string[]).map((e) => e.replace(/(Scaled up replica set \S+) from 0 to (\d+)/, '$1 to $2').replace(/(Scaled (?:up|down) replica set \S+) from (\d+) to (\d+)/, '$1 to $3 from $2')))].sort();
    },
  },
  {
    what: 'Jobs get SuccessCriteriaMet before Complete, and Complete has reason and message CompletionsReached, since 1.31 (v1.24: Complete alone, no reason)',
    upstream: 'KEP-4368 (JobManagedBy), pkg/controller/job/job_controller.go enactJobFinished',
    apply: (s) => {
      for (const j of s.jobs as { status: { conditions: { type: string; reason: string; message: string }[] } }[]) {
        j.status.conditions = j.status.conditions.filter((c) => c.type !== 'SuccessCriteriaMet').map((c) => (c.type === 'Complete' ? { ...c, reason: '', message: '' } : c));
      }
    },
  },
];

/** The normalised snapshot with the known differences applied. */
export function comparable(o: Observed): Obj {
  const s = normalise(o);
  for (const d of knownDifferences) d.apply(s);
  return s;
}
