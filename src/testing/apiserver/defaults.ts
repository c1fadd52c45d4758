/**
 * Defaults kube-apiserver applies to Services and Jobs (SetDefaults_* of core/v1 and batch/v1, plus the
 * allocations and generated selectors of their registries) that clients and kubectl rely on: a Service
 * has a cluster IP, protocols and target ports; a Job has completions, parallelism and a selector.
 */
import type { ApiResource } from './resources.ts';

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Hands out service cluster IPs and node ports, as the registry's allocators (sequentially here). */
export class ServiceAllocator {
  // kube-apiserver's default service CIDR is 10.96.0.0/12; 10.96.0.1 belongs to the `kubernetes` service.
  #nextIp = 10;
  // The default node port range is 30000-32767.
  #nextNodePort = 30000;

  /** The next free cluster IP. */
  clusterIP(): string {
    const n = this.#nextIp++;
    return `10.${96 + Math.floor(n / 65536)}.${Math.floor(n / 256) % 256}.${n % 256}`;
  }

  /** The next free node port (wraps within the range). */
  nodePort(): number {
    const p = this.#nextNodePort;
    this.#nextNodePort = p === 32767 ? 30000 : p + 1;
    return p;
  }
}

function isService(r: ApiResource): boolean {
  return r.group === '' && r.resource === 'services';
}

function isJob(r: ApiResource): boolean {
  return r.group === 'batch' && r.resource === 'jobs';
}

// SetDefaults_Service and SetDefaults_ServicePort: fields that are defaulted on every write.
function serviceFieldDefaults(spec: Obj): void {
  spec.type ??= 'ClusterIP';
  spec.sessionAffinity ??= 'None';
  const type = spec.type;
  if (type !== 'ExternalName') spec.internalTrafficPolicy ??= 'Cluster';
  if (type === 'NodePort' || type === 'LoadBalancer') spec.externalTrafficPolicy ??= 'Cluster';
  if (type === 'LoadBalancer') spec.allocateLoadBalancerNodePorts ??= true;
  for (const p of Array.isArray(spec.ports) ? spec.ports.filter(isObj) : []) {
    p.protocol ??= 'TCP';
    if (p.targetPort === undefined && p.port !== undefined) p.targetPort = p.port;
  }
}

function allocateService(spec: Obj, alloc: ServiceAllocator, old: Obj | undefined): void {
  const type = spec.type;
  if (type !== 'ExternalName') {
    // An update that leaves the cluster IP out keeps the allocated one (the registry's patchAllocatedValues).
    if ((spec.clusterIP === undefined || spec.clusterIP === '') && old !== undefined && typeof old.clusterIP === 'string' && old.clusterIP !== '') {
      spec.clusterIP = old.clusterIP;
      if (spec.clusterIPs === undefined && old.clusterIPs !== undefined) spec.clusterIPs = structuredClone(old.clusterIPs);
    }
    if (spec.clusterIP === undefined || spec.clusterIP === '') spec.clusterIP = alloc.clusterIP();
    spec.clusterIPs ??= [spec.clusterIP];
    spec.ipFamilies ??= ['IPv4'];
    spec.ipFamilyPolicy ??= 'SingleStack';
  }
  if (type === 'NodePort' || type === 'LoadBalancer') {
    const oldPorts = old !== undefined && Array.isArray(old.ports) ? old.ports.filter(isObj) : [];
    for (const p of Array.isArray(spec.ports) ? spec.ports.filter(isObj) : []) {
      if (p.nodePort !== undefined) continue;
      const prev = oldPorts.find((q) => q.port === p.port && (q.protocol ?? 'TCP') === p.protocol);
      p.nodePort = typeof prev?.nodePort === 'number' ? prev.nodePort : alloc.nodePort();
    }
  }
}

// SetDefaults_Job and the job strategy's generated selector and template labels.
function jobDefaults(obj: Obj, uid: unknown, name: unknown): void {
  const spec = isObj(obj.spec) ? obj.spec : (obj.spec = {});
  if (spec.completions === undefined && spec.parallelism === undefined) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  spec.parallelism ??= 1;
  spec.backoffLimit ??= 6;
  spec.completionMode ??= 'NonIndexed';
  spec.suspend ??= false;
  if (spec.podFailurePolicy === undefined) spec.podReplacementPolicy ??= 'TerminatingOrFailed';
  if (spec.manualSelector !== true && typeof uid === 'string') {
    spec.selector = { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } };
    const template = isObj(spec.template) ? spec.template : (spec.template = {});
    const meta = isObj(template.metadata) ? template.metadata : (template.metadata = {});
    meta.labels = {
      ...(isObj(meta.labels) ? meta.labels : {}),
      'batch.kubernetes.io/controller-uid': uid,
      'batch.kubernetes.io/job-name': String(name),
      'controller-uid': uid,
      'job-name': String(name),
    };
  }
}

/** qos.GetPodQOS: BestEffort without requests or limits, Guaranteed when every container limits cpu and memory to its requests. */
export function podQOSClass(spec: unknown): string {
  const containers = isObj(spec) ? [...list(spec.containers), ...list(spec.initContainers)] : [];
  let any = false;
  let guaranteed = true;
  for (const c of containers) {
    const res = isObj(c.resources) ? c.resources : {};
    const limits = isObj(res.limits) ? res.limits : {};
    const requests = isObj(res.requests) ? res.requests : {};
    for (const r of ['cpu', 'memory']) {
      const limit = limits[r];
      const request = requests[r] ?? limit;
      if (limit !== undefined || request !== undefined) any = true;
      if (limit === undefined || JSON.stringify(limit) !== JSON.stringify(request)) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

// SetDefaults_Container: the pull policy follows the image's tag (latest or none → Always).
function pullPolicy(image: unknown): string {
  if (typeof image !== 'string') return 'IfNotPresent';
  if (image.includes('@')) return 'IfNotPresent';
  const last = image.slice(image.lastIndexOf('/') + 1);
  const colon = last.lastIndexOf(':');
  return colon < 0 || last.slice(colon + 1) === 'latest' ? 'Always' : 'IfNotPresent';
}

function list(v: unknown): Obj[] {
  return Array.isArray(v) ? (v as unknown[]).filter(isObj) : [];
}

/** SetDefaults_PodSpec and SetDefaults_Container (plus, for pods, SetDefaults_Pod's requests-from-limits). */
function podSpecDefaults(spec: Obj, isPod: boolean): void {
  spec.restartPolicy ??= 'Always';
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.terminationGracePeriodSeconds ??= 30;
  spec.securityContext ??= {};
  spec.schedulerName ??= 'default-scheduler';
  if (isPod) spec.enableServiceLinks ??= true;
  for (const c of [...list(spec.initContainers), ...list(spec.containers)]) {
    c.terminationMessagePath ??= '/dev/termination-log';
    c.terminationMessagePolicy ??= 'File';
    c.imagePullPolicy ??= pullPolicy(c.image);
    c.resources ??= {};
    for (const port of list(c.ports)) port.protocol ??= 'TCP';
    const res = c.resources;
    if (isPod && isObj(res) && isObj(res.limits)) {
      const requests = isObj(res.requests) ? res.requests : {};
      for (const [k, v] of Object.entries(res.limits)) requests[k] ??= v;
      res.requests = requests;
    }
  }
}

function templateSpec(obj: Obj): Obj | undefined {
  const spec = isObj(obj.spec) ? obj.spec : undefined;
  const template = spec !== undefined && isObj(spec.template) ? spec.template : undefined;
  return template !== undefined && isObj(template.spec) ? template.spec : undefined;
}

// SetDefaults_Deployment / StatefulSet / DaemonSet (apps/v1) and the pod template defaults of every workload.
function workloadDefaults(r: ApiResource, obj: Obj): void {
  if (r.group === '' && r.resource === 'pods') {
    if (isObj(obj.spec)) podSpecDefaults(obj.spec, true);
    return;
  }
  const isWorkload = (r.group === 'apps' && ['deployments', 'replicasets', 'statefulsets', 'daemonsets'].includes(r.resource)) || isJob(r);
  if (!isWorkload) return;
  const pod = templateSpec(obj);
  // Job templates must choose their restart policy: validation, not defaulting, decides there.
  if (pod !== undefined) {
    const restart = pod.restartPolicy;
    podSpecDefaults(pod, false);
    if (isJob(r) && restart === undefined) delete pod.restartPolicy;
  }
  const spec = isObj(obj.spec) ? obj.spec : undefined;
  if (spec === undefined || r.group !== 'apps') return;
  if (r.resource !== 'daemonsets') spec.replicas ??= 1;
  if (r.resource === 'deployments') {
    spec.strategy ??= { type: 'RollingUpdate' };
    if (isObj(spec.strategy) && spec.strategy.type === 'RollingUpdate') spec.strategy.rollingUpdate ??= { maxUnavailable: '25%', maxSurge: '25%' };
    spec.revisionHistoryLimit ??= 10;
    spec.progressDeadlineSeconds ??= 600;
  } else if (r.resource === 'statefulsets') {
    spec.podManagementPolicy ??= 'OrderedReady';
    spec.updateStrategy ??= { type: 'RollingUpdate' };
    if (isObj(spec.updateStrategy) && spec.updateStrategy.type === 'RollingUpdate') spec.updateStrategy.rollingUpdate ??= { partition: 0 };
    spec.revisionHistoryLimit ??= 10;
    spec.persistentVolumeClaimRetentionPolicy ??= { whenDeleted: 'Retain', whenScaled: 'Retain' };
  } else if (r.resource === 'daemonsets') {
    spec.updateStrategy ??= { type: 'RollingUpdate' };
    if (isObj(spec.updateStrategy) && spec.updateStrategy.type === 'RollingUpdate') spec.updateStrategy.rollingUpdate ??= { maxUnavailable: 1, maxSurge: 0 };
    spec.revisionHistoryLimit ??= 10;
  }
}

/**
 * The defaults the scheme applies when a request is decoded (SetDefaults_*), before admission: workload
 * replicas and pod templates, Service field defaults, Secret type. Allocations and generated fields come later.
 */
export function applySchemeDefaults(r: ApiResource, obj: Obj): void {
  if (r.group === 'apps' && (r.resource === 'deployments' || r.resource === 'replicasets' || r.resource === 'statefulsets')) {
    if (isObj(obj.spec) && obj.spec.replicas === undefined) obj.spec.replicas = 1;
  } else if (r.group === '' && r.resource === 'secrets') obj.type ??= 'Opaque';
  workloadDefaults(r, obj);
  if (isService(r) && isObj(obj.spec)) serviceFieldDefaults(obj.spec);
}

/** Create-time defaults and allocations for `obj` (metadata.uid and name already set). */
export function applyCreateDefaults(r: ApiResource, obj: Obj, alloc: ServiceAllocator): void {
  const meta = isObj(obj.metadata) ? obj.metadata : {};
  workloadDefaults(r, obj);
  if (isService(r)) {
    const spec = isObj(obj.spec) ? obj.spec : (obj.spec = {});
    serviceFieldDefaults(spec);
    allocateService(spec, alloc, undefined);
    obj.status = { loadBalancer: {} };
  } else if (isJob(r)) jobDefaults(obj, meta.uid, meta.name);
}

/** Update-time defaults: the same field defaults, allocated values carried over from `old`. */
export function applyUpdateDefaults(r: ApiResource, old: Obj, next: Obj, alloc: ServiceAllocator): void {
  workloadDefaults(r, next);
  if (r.group === '' && r.resource === 'secrets') next.type ??= 'Opaque';
  if (isService(r) && isObj(next.spec)) {
    serviceFieldDefaults(next.spec);
    allocateService(next.spec, alloc, isObj(old.spec) ? old.spec : undefined);
  } else if (isJob(r) && isObj(next.spec)) {
    const spec = next.spec;
    const oldSpec = isObj(old.spec) ? old.spec : {};
    // The generated selector is immutable: an update that leaves it out keeps it.
    if (spec.selector === undefined && oldSpec.selector !== undefined) spec.selector = structuredClone(oldSpec.selector);
    spec.parallelism ??= oldSpec.parallelism ?? 1;
    spec.completions ??= oldSpec.completions;
    spec.backoffLimit ??= 6;
    spec.completionMode ??= 'NonIndexed';
    spec.suspend ??= false;
    if (spec.podFailurePolicy === undefined) spec.podReplacementPolicy ??= 'TerminatingOrFailed';
  }
}
