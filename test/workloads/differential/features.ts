/**
 * The second workload script of the differential check against kube-controller-manager v1.24 (recorded by
 * `record.ts --script=features`, replayed by replay.test.ts): the workload features v1.24 has and
 * kubeloom's controllers follow —
 *
 * - an Indexed Job (completions 3, parallelism 2): one pod per index, its annotation, hostname and
 *   JOB_COMPLETION_INDEX, `status.completedIndexes`;
 * - a DaemonSet rolled with maxSurge 1 on two nodes: the most pods alive at once and whether a node was
 *   ever without a ready pod;
 * - a StatefulSet created and updated: its ControllerRevision names and `controller-revision-hash` labels
 *   compared as they are (both sides must compute the same hash).
 *
 * Pod name suffixes and uids are placeholders; {@link featureDifferences} turns the newer upstream's form
 * into v1.24's where they differ.
 */
import type { DaemonSet, StatefulSet } from '../../../src/api/apps/v1.ts';
import type { Pod } from '../../../src/api/core/v1.ts';
import { PatchType } from '../../../src/apimachinery/options.ts';
import type { Clientset } from '../../../src/kubernetes/clientset.ts';
import { pruneZero } from '../../../src/controllers/controller-utils.ts';
import { waitForItems, waitForObject } from '../support.ts';
import type { KnownDifference } from './scenario.ts';

type Obj = Record<string, unknown>;

/** The nodes of the kubelet stand-in the script needs (record.ts and replay.test.ts start it with them). */
export const featureNodes: readonly string[] = ['n1', 'n2'];
const ns = 'default';
const indexKey = 'batch.kubernetes.io/job-completion-index';
const ready = (p: Pod): boolean => p.metadata?.deletionTimestamp === undefined && p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

/** Runs the script against `client` and returns its normalised outcome. */
export async function runFeatures(client: Clientset): Promise<Obj> {
  const pods = client.coreV1().pods(ns);

  const jobs = client.batchV1().jobs(ns);
  await jobs.create({ metadata: { name: 'idx' }, spec: { completions: 3, parallelism: 2, completionMode: 'Indexed', template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } });
  const job = await waitForObject(jobs, 'idx', (j) => j?.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') === true && (j.status.active ?? 0) === 0);
  await waitForItems(client.coreV1().events(ns), (es) => es.some((e) => e.involvedObject.name === 'idx' && e.reason === 'Completed'));
  const jobPods = (await pods.list()).items.filter((p) => p.metadata?.labels?.['job-name'] === 'idx').sort((a, b) => Number(a.metadata?.annotations?.[indexKey]) - Number(b.metadata?.annotations?.[indexKey]));

  const dss = client.appsV1().daemonSets(ns);
  const ds: DaemonSet = {
    metadata: { name: 'surge' },
    spec: {
      selector: { matchLabels: { app: 'surge' } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      template: { metadata: { labels: { app: 'surge' } }, spec: { containers: [{ name: 'agent', image: 'agent:1' }] } },
    },
  };
  await dss.create(ds);
  const surgePods = (items: Pod[]): Pod[] => items.filter((p) => p.metadata?.labels?.app === 'surge');
  await waitForItems(pods, (items) => surgePods(items).filter(ready).length === featureNodes.length);
  await waitForObject(dss, 'surge', (d) => d?.status?.numberAvailable === featureNodes.length && d.status.observedGeneration === 1);
  await dss.patch('surge', PatchType.StrategicMerge, { spec: { template: { spec: { containers: [{ name: 'agent', image: 'agent:2' }] } } } });
  let mostAlive = 0;
  let nodeWithoutReadyPod = false;
  await waitForItems(pods, (items) => {
    const mine = surgePods(items);
    mostAlive = Math.max(mostAlive, mine.filter((p) => p.metadata?.deletionTimestamp === undefined).length);
    if (featureNodes.some((n) => !mine.some((p) => p.spec?.nodeName === n && ready(p)))) nodeWithoutReadyPod = true;
    return mine.length === featureNodes.length && mine.every((p) => p.spec?.containers[0]?.image === 'agent:2' && ready(p));
  });
  const rolled = await waitForObject(dss, 'surge', (d) => d?.status?.observedGeneration === 2 && d.status.updatedNumberScheduled === featureNodes.length && d.status.numberAvailable === featureNodes.length);

  const sets = client.appsV1().statefulSets(ns);
  const set: StatefulSet = {
    metadata: { name: 'db' },
    spec: {
      replicas: 1,
      serviceName: 'db',
      selector: { matchLabels: { app: 'db' } },
      template: { metadata: { labels: { app: 'db' }, annotations: { note: 'a <b> & c' } }, spec: { containers: [{ name: 'db', image: 'postgres:15', resources: { requests: { cpu: '500m', memory: '1024Mi' } } }] } },
    },
  };
  await sets.create(set);
  await waitForObject(sets, 'db', (s) => s?.status?.readyReplicas === 1 && s.status.observedGeneration === 1);
  await sets.patch('db', PatchType.StrategicMerge, { spec: { template: { spec: { containers: [{ name: 'db', image: 'postgres:16' }] } } } });
  const dbDone = await waitForObject(sets, 'db', (s) => s?.status?.observedGeneration === 2 && s.status.readyReplicas === 1 && s.status.updatedReplicas === 1 && s.status.currentRevision === s.status.updateRevision);
  const dbPods = await waitForItems(pods, (items) => items.filter((p) => p.metadata?.labels?.app === 'db' && ready(p) && p.spec?.containers[0]?.image === 'postgres:16').length === 1);
  const revisions = (await client.appsV1().controllerRevisions(ns).list()).items.filter((r) => r.metadata?.name?.startsWith('db-') === true).sort((a, b) => (a.revision ?? 0) - (b.revision ?? 0));

  const podName = (p: Pod): string => (p.metadata?.name ?? '').replace(/[bcdfghjklmnpqrstvwxz2456789]{5}$/, '{pod}');
  return {
    indexedJob: {
      status: {
        active: job?.status?.active ?? 0,
        succeeded: job?.status?.succeeded ?? 0,
        failed: job?.status?.failed ?? 0,
        completedIndexes: job?.status?.completedIndexes,
        conditions: (job?.status?.conditions ?? []).filter((c) => c.status === 'True').map((c) => ({ type: c.type, reason: c.reason ?? '', message: c.message ?? '' })).sort((a, b) => a.type.localeCompare(b.type)),
      },
      pods: jobPods.map((p) => ({
        name: podName(p),
        generateName: p.metadata?.generateName,
        annotations: p.metadata?.annotations,
        labels: Object.fromEntries(Object.entries(p.metadata?.labels ?? {}).filter(([k]) => k !== 'controller-uid' && k !== 'batch.kubernetes.io/controller-uid')),
        hostname: p.spec?.hostname,
        subdomain: p.spec?.subdomain,
        env: p.spec?.containers[0]?.env,
        phase: p.status?.phase,
      })),
    },
    surgeDaemonSet: { mostAlive, nodeWithoutReadyPod, status: pruneZero(rolled?.status) },
    statefulSet: {
      status: { currentRevision: dbDone?.status?.currentRevision, updateRevision: dbDone?.status?.updateRevision },
      revisions: revisions.map((r) => ({ name: r.metadata?.name, hash: r.metadata?.labels?.['controller.kubernetes.io/hash'], revision: r.revision })),
      podRevision: dbPods.find((p) => p.metadata?.labels?.app === 'db')?.metadata?.labels?.['controller-revision-hash'],
    },
  };
}

/** Differences between kube-controller-manager v1.24 and the newer upstream in this script, applied to both sides. */
export const featureDifferences: readonly KnownDifference[] = [
  {
    what: 'Indexed Job pods carry the completion index as a label too, and JOB_COMPLETION_INDEX reads it, since 1.28 (PodIndexLabel; v1.24 reads the annotation)',
    upstream: 'KEP-4017, pkg/controller/job/indexed_job_utils.go addCompletionIndexEnvVariable and addCompletionIndexLabel',
    apply: (s) => {
      for (const p of (s.indexedJob as { pods: { labels: Obj; env: unknown }[] }).pods) {
        delete p.labels[indexKey];
        p.env = JSON.parse(JSON.stringify(p.env).replace(`metadata.labels['${indexKey}']`, `metadata.annotations['${indexKey}']`));
      }
    },
  },
  {
    what: 'Jobs get SuccessCriteriaMet before Complete, and Complete has reason and message CompletionsReached, since 1.31 (v1.24: Complete alone, no reason)',
    upstream: 'KEP-4368 (JobManagedBy), pkg/controller/job/job_controller.go enactJobFinished',
    apply: (s) => {
      const status = (s.indexedJob as { status: { conditions: { type: string; reason: string; message: string }[] } }).status;
      status.conditions = status.conditions.filter((c) => c.type !== 'SuccessCriteriaMet').map((c) => (c.type === 'Complete' ? { ...c, reason: '', message: '' } : c));
    },
  },
];

/** The gates `--script=gated` turns on in the real kube-controller-manager (off in v1.24) and in kubeloom's. */
export const gatedFeatureGates = { MaxUnavailableStatefulSet: true, StatefulSetAutoDeletePVC: true } as const;

/**
 * The third script, with the StatefulSet gates v1.24 has as alpha turned on in both controller managers:
 * a rolling update with maxUnavailable 2 (the most pods unavailable at once) and a claim retention policy
 * of Delete/Delete (the claims' owner references, which claims a scale-down leaves, which the deletion of
 * the set leaves). Needs the volume binder stand-in.
 */
export async function runGated(client: Clientset): Promise<Obj> {
  const sets = client.appsV1().statefulSets(ns);
  const pods = client.coreV1().pods(ns);
  const claims = client.coreV1().persistentVolumeClaims(ns);
  const template = (app: string, image: string) => ({ metadata: { labels: { app } }, spec: { containers: [{ name: 'c', image }] } });
  await sets.create({ metadata: { name: 'web' }, spec: { replicas: 4, serviceName: 'web', podManagementPolicy: 'Parallel', selector: { matchLabels: { app: 'web' } }, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } }, template: template('web', 'nginx:1') } });
  await waitForObject(sets, 'web', (s) => s?.status?.readyReplicas === 4);
  await sets.patch('web', PatchType.StrategicMerge, { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } });
  let mostUnavailable = 0;
  await waitForItems(pods, (items) => {
    const web = items.filter((p) => p.metadata?.labels?.app === 'web');
    mostUnavailable = Math.max(mostUnavailable, 4 - web.filter(ready).length);
    return web.length === 4 && web.every((p) => ready(p) && p.spec?.containers[0]?.image === 'nginx:2');
  });

  await sets.create({
    metadata: { name: 'data' },
    spec: {
      replicas: 2,
      serviceName: 'data',
      selector: { matchLabels: { app: 'data' } },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Delete' },
      template: template('data', 'postgres:16'),
      volumeClaimTemplates: [{ metadata: { name: 'vol' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
    },
  });
  await waitForObject(sets, 'data', (s) => s?.status?.readyReplicas === 2);
  const owners = (c: { metadata?: { name?: string; ownerReferences?: { apiVersion: string; kind: string; name: string; controller?: boolean; blockOwnerDeletion?: boolean }[] } }) => ({
    name: c.metadata?.name,
    owners: (c.metadata?.ownerReferences ?? []).map((r) => `${r.apiVersion} ${r.kind}/${r.name} controller=${String(r.controller)} block=${String(r.blockOwnerDeletion)}`),
  });
  const owned = (await waitForItems(claims, (items) => items.length === 2 && items.every((c) => (c.metadata?.ownerReferences ?? []).length > 0))).map(owners).sort((a, b) => (a.name ?? '').localeCompare(b.name ?? ''));
  await sets.patch('data', PatchType.Merge, { spec: { replicas: 1 } });
  const afterScaleDown = (await waitForItems(claims, (items) => items.length === 1)).map(owners);
  await waitForObject(sets, 'data', (s) => s?.status?.replicas === 1 && s.status.readyReplicas === 1);
  await sets.delete('data');
  await waitForItems(claims, (items) => items.length === 0);
  return { rollingUpdate: { mostUnavailable }, claimRetention: { owned, afterScaleDown, afterDelete: [] } };
}

/** Differences between v1.24's alpha StatefulSet gates and the newer upstream in the gated script, applied to both sides. */
export const gatedDifferences: readonly KnownDifference[] = [
  {
    what: "A claim's owner reference to its StatefulSet or pod is a controller reference (controller and blockOwnerDeletion true) in the newer upstream; v1.24's alpha wrote a plain owner reference",
    upstream: 'pkg/controller/statefulset/stateful_set_utils.go updateClaimOwnerRefForSetAndPod (addControllerRef, metav1.NewControllerRef) vs v1.24 (setOwnerRef)',
    apply: (s) => {
      const c = s.claimRetention as Record<string, { owners: string[] }[]>;
      for (const list of Object.values(c)) for (const claim of list) claim.owners = claim.owners.map((o) => o.replace(' controller=true block=true', ' controller=undefined block=undefined'));
    },
  },
];
