/**
 * Defaulting of built-in kinds: the SetDefaults_* functions of `pkg/apis/<group>/v1/defaults.go`
 * (core, apps, batch, rbac, scheduling, authentication, storage, discovery, flowcontrol,
 * admissionregistration). kube-apiserver applies them whenever it decodes
 * an object — the request body, and again every stored object it reads — so they run on the decoded
 * body (before managedFields are computed) and once more before the object is stored.
 *
 * The embedded server models Kubernetes 1.32: where defaults changed after 1.24 (Job
 * podReplacementPolicy, StatefulSet persistentVolumeClaimRetentionPolicy) it follows 1.32.
 */
import { hpaV1Defaults, hpaV2Defaults } from './autoscaling/defaults.ts';
import { isObject } from '../object-meta.ts';
import { storageClassDefaults } from './storage/storage-class.ts';
import { csiDriverDefaults } from './storage/csi-driver.ts';
import { endpointSliceDefaults } from './discovery/endpoint-slice.ts';
import { flowSchemaDefaults, priorityLevelConfigurationDefaults } from './flowcontrol/defaults.ts';
import { validatingAdmissionPolicyBindingDefaults, validatingAdmissionPolicyDefaults } from './admissionregistration/validating-admission-policy.ts';
import type { ApiResource } from '../resources.ts';

type Obj = Record<string, unknown>;

/** Go's "is the zero value" for what defaulting checks. */
function unset(v: unknown): boolean {
  return v === undefined || v === null || v === '' || v === 0;
}

function setIfUnset(o: Obj, key: string, value: unknown): void {
  if (o[key] === undefined || o[key] === null || o[key] === '') o[key] = value;
}

function list(v: unknown): Obj[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

function child(o: Obj, key: string): Obj {
  if (!isObject(o[key])) o[key] = {};
  return o[key] as Obj;
}

/** SetDefaults_Container: the pull policy follows the image's tag (latest or none → Always). */
export function defaultPullPolicy(image: unknown): string {
  if (typeof image !== 'string') return 'IfNotPresent';
  if (image.includes('@')) return 'IfNotPresent';
  const last = image.slice(image.lastIndexOf('/') + 1);
  const colon = last.lastIndexOf(':');
  return colon < 0 || last.slice(colon + 1) === 'latest' ? 'Always' : 'IfNotPresent';
}

function probeDefaults(p: unknown): void {
  if (!isObject(p)) return;
  setIfUnset(p, 'timeoutSeconds', 1);
  setIfUnset(p, 'periodSeconds', 10);
  setIfUnset(p, 'successThreshold', 1);
  setIfUnset(p, 'failureThreshold', 3);
  httpGetDefaults(p.httpGet);
}

/** SetDefaults_HTTPGetAction: wherever an HTTPGetAction sits (probes and lifecycle handlers). */
function httpGetDefaults(h: unknown): void {
  if (!isObject(h)) return;
  setIfUnset(h, 'path', '/');
  setIfUnset(h, 'scheme', 'HTTP');
}

/** SetDefaults_ObjectFieldSelector for the fieldRef of each item of a downwardAPI volume or projection. */
function downwardApiItemDefaults(source: unknown): void {
  if (!isObject(source)) return;
  for (const item of list(source.items)) if (isObject(item.fieldRef)) setIfUnset(item.fieldRef, 'apiVersion', 'v1');
}

function containerDefaults(c: Obj): void {
  setIfUnset(c, 'terminationMessagePath', '/dev/termination-log');
  setIfUnset(c, 'terminationMessagePolicy', 'File');
  setIfUnset(c, 'imagePullPolicy', defaultPullPolicy(c.image));
  for (const p of list(c.ports)) setIfUnset(p, 'protocol', 'TCP');
  for (const e of list(c.env)) {
    const from = isObject(e.valueFrom) ? e.valueFrom : undefined;
    if (from !== undefined && isObject(from.fieldRef)) setIfUnset(from.fieldRef, 'apiVersion', 'v1');
  }
  probeDefaults(c.livenessProbe);
  probeDefaults(c.readinessProbe);
  probeDefaults(c.startupProbe);
  if (isObject(c.lifecycle)) {
    for (const hook of [c.lifecycle.postStart, c.lifecycle.preStop]) if (isObject(hook)) httpGetDefaults(hook.httpGet);
  }
}

const defaultMode = 420; // 0644

function volumeDefaults(v: Obj): void {
  for (const key of ['secret', 'configMap', 'downwardAPI', 'projected']) {
    const source = v[key];
    if (isObject(source)) setIfUnset(source, 'defaultMode', defaultMode);
  }
  if (isObject(v.hostPath)) setIfUnset(v.hostPath, 'type', '');
  downwardApiItemDefaults(v.downwardAPI);
  if (isObject(v.projected)) for (const source of list(v.projected.sources)) downwardApiItemDefaults(source.downwardAPI);
  // SetDefaults_PersistentVolumeClaimSpec, for a generic ephemeral volume's claim template.
  if (isObject(v.ephemeral) && isObject(v.ephemeral.volumeClaimTemplate) && isObject(v.ephemeral.volumeClaimTemplate.spec)) {
    setIfUnset(v.ephemeral.volumeClaimTemplate.spec, 'volumeMode', 'Filesystem');
  }
  // SetDefaults_ISCSIVolumeSource, SetDefaults_RBDVolumeSource, SetDefaults_AzureDiskVolumeSource,
  // SetDefaults_ScaleIOVolumeSource.
  if (isObject(v.iscsi)) setIfUnset(v.iscsi, 'iscsiInterface', 'default');
  if (isObject(v.rbd)) {
    setIfUnset(v.rbd, 'pool', 'rbd');
    setIfUnset(v.rbd, 'user', 'admin');
    setIfUnset(v.rbd, 'keyring', '/etc/ceph/keyring');
  }
  if (isObject(v.azureDisk)) {
    setIfUnset(v.azureDisk, 'cachingMode', 'ReadWrite');
    setIfUnset(v.azureDisk, 'kind', 'Shared');
    setIfUnset(v.azureDisk, 'fsType', 'ext4');
    if (v.azureDisk.readOnly === undefined || v.azureDisk.readOnly === null) v.azureDisk.readOnly = false;
  }
  if (isObject(v.scaleIO)) {
    setIfUnset(v.scaleIO, 'storageMode', 'ThinProvisioned');
    setIfUnset(v.scaleIO, 'fsType', 'xfs');
  }
}

/** SetDefaults_PodSpec and SetDefaults_Container (and of its volumes). */
export function podSpecDefaults(spec: Obj): void {
  setIfUnset(spec, 'dnsPolicy', 'ClusterFirst');
  setIfUnset(spec, 'restartPolicy', 'Always');
  if (spec.terminationGracePeriodSeconds === undefined || spec.terminationGracePeriodSeconds === null) spec.terminationGracePeriodSeconds = 30;
  if (!isObject(spec.securityContext)) spec.securityContext = {};
  setIfUnset(spec, 'schedulerName', 'default-scheduler');
  for (const c of [...list(spec.initContainers), ...list(spec.containers)]) {
    containerDefaults(c);
    if (spec.hostNetwork === true) for (const p of list(c.ports)) if (unset(p.hostPort)) p.hostPort = p.containerPort;
  }
  // SetDefaults_EphemeralContainer: the container defaults.
  for (const c of list(spec.ephemeralContainers)) containerDefaults(c);
  for (const v of list(spec.volumes)) volumeDefaults(v);
}

function podDefaults(pod: Obj): void {
  const spec = child(pod, 'spec');
  podSpecDefaults(spec);
  if (spec.enableServiceLinks === undefined || spec.enableServiceLinks === null) spec.enableServiceLinks = true;
  // SetDefaults_Pod: requests default to limits.
  for (const c of [...list(spec.initContainers), ...list(spec.containers)]) {
    const res = isObject(c.resources) ? c.resources : undefined;
    if (res === undefined || !isObject(res.limits)) continue;
    const requests = isObject(res.requests) ? res.requests : {};
    const missing = Object.entries(res.limits).filter(([k]) => requests[k] === undefined);
    // Nothing written when nothing is missing: a stored pod's spec (which status writes share) has them all.
    if (missing.length > 0) res.requests = { ...requests, ...Object.fromEntries(missing) };
  }
}

function templateDefaults(spec: Obj): void {
  const template = child(spec, 'template');
  podSpecDefaults(child(template, 'spec'));
}

function serviceDefaults(svc: Obj): void {
  const spec = child(svc, 'spec');
  setIfUnset(spec, 'type', 'ClusterIP');
  setIfUnset(spec, 'sessionAffinity', 'None');
  // The session affinity config only goes with ClientIP affinity.
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP') {
    const config = child(spec, 'sessionAffinityConfig');
    const clientIP = child(config, 'clientIP');
    setIfUnset(clientIP, 'timeoutSeconds', 10800);
  }
  for (const p of list(spec.ports)) {
    setIfUnset(p, 'protocol', 'TCP');
    if (unset(p.targetPort)) p.targetPort = p.port;
  }
  const type = spec.type;
  if (type === 'NodePort' || type === 'LoadBalancer') setIfUnset(spec, 'externalTrafficPolicy', 'Cluster');
  if (type !== 'ExternalName') setIfUnset(spec, 'internalTrafficPolicy', 'Cluster');
  if (type === 'LoadBalancer' && (spec.allocateLoadBalancerNodePorts === undefined || spec.allocateLoadBalancerNodePorts === null)) spec.allocateLoadBalancerNodePorts = true;
}

function deploymentDefaults(d: Obj): void {
  const spec = child(d, 'spec');
  if (spec.replicas === undefined || spec.replicas === null) spec.replicas = 1;
  const strategy = child(spec, 'strategy');
  setIfUnset(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const ru = child(strategy, 'rollingUpdate');
    if (ru.maxUnavailable === undefined || ru.maxUnavailable === null) ru.maxUnavailable = '25%';
    if (ru.maxSurge === undefined || ru.maxSurge === null) ru.maxSurge = '25%';
  }
  if (spec.revisionHistoryLimit === undefined || spec.revisionHistoryLimit === null) spec.revisionHistoryLimit = 10;
  if (spec.progressDeadlineSeconds === undefined || spec.progressDeadlineSeconds === null) spec.progressDeadlineSeconds = 600;
  templateDefaults(spec);
}

function statefulSetDefaults(s: Obj): void {
  const spec = child(s, 'spec');
  setIfUnset(spec, 'podManagementPolicy', 'OrderedReady');
  const strategy = child(spec, 'updateStrategy');
  setIfUnset(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const ru = child(strategy, 'rollingUpdate');
    if (ru.partition === undefined || ru.partition === null) ru.partition = 0;
  }
  // StatefulSetAutoDeletePVC is on by default since 1.27.
  const retention = child(spec, 'persistentVolumeClaimRetentionPolicy');
  setIfUnset(retention, 'whenDeleted', 'Retain');
  setIfUnset(retention, 'whenScaled', 'Retain');
  if (spec.replicas === undefined || spec.replicas === null) spec.replicas = 1;
  if (spec.revisionHistoryLimit === undefined || spec.revisionHistoryLimit === null) spec.revisionHistoryLimit = 10;
  for (const pvc of list(spec.volumeClaimTemplates)) pvcDefaults(pvc);
  templateDefaults(spec);
}

function daemonSetDefaults(d: Obj): void {
  const spec = child(d, 'spec');
  const strategy = child(spec, 'updateStrategy');
  setIfUnset(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const ru = child(strategy, 'rollingUpdate');
    if (ru.maxUnavailable === undefined || ru.maxUnavailable === null) ru.maxUnavailable = 1;
    if (ru.maxSurge === undefined || ru.maxSurge === null) ru.maxSurge = 0;
  }
  if (spec.revisionHistoryLimit === undefined || spec.revisionHistoryLimit === null) spec.revisionHistoryLimit = 10;
  templateDefaults(spec);
}

function replicaSetDefaults(r: Obj): void {
  const spec = child(r, 'spec');
  if (spec.replicas === undefined || spec.replicas === null) spec.replicas = 1;
  templateDefaults(spec);
}

/** SetDefaults_JobSpec parts shared by Jobs and CronJobs' job templates. */
function jobSpecDefaults(spec: Obj): void {
  const none = (v: unknown): boolean => v === undefined || v === null;
  if (none(spec.completions) && none(spec.parallelism)) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  if (none(spec.parallelism)) spec.parallelism = 1;
  // With backoffLimitPerIndex the Job-wide limit is MaxInt32 (1.29+), else 6.
  if (none(spec.backoffLimit)) spec.backoffLimit = none(spec.backoffLimitPerIndex) ? 6 : 2_147_483_647;
  setIfUnset(spec, 'completionMode', 'NonIndexed');
  if (none(spec.suspend)) spec.suspend = false;
  // JobPodReplacementPolicy is on by default since 1.29.
  if (none(spec.podFailurePolicy)) setIfUnset(spec, 'podReplacementPolicy', 'TerminatingOrFailed');
  templateDefaults(spec);
}

function jobDefaults(job: Obj): void {
  const spec = child(job, 'spec');
  jobSpecDefaults(spec);
  // A Job without labels takes its template's.
  const template = child(spec, 'template');
  const templateLabels = isObject(template.metadata) ? template.metadata.labels : undefined;
  const meta = child(job, 'metadata');
  if (isObject(templateLabels) && (!isObject(meta.labels) || Object.keys(meta.labels).length === 0)) meta.labels = { ...templateLabels };
}

function cronJobDefaults(cj: Obj): void {
  const spec = child(cj, 'spec');
  setIfUnset(spec, 'concurrencyPolicy', 'Allow');
  if (spec.suspend === undefined || spec.suspend === null) spec.suspend = false;
  if (spec.successfulJobsHistoryLimit === undefined || spec.successfulJobsHistoryLimit === null) spec.successfulJobsHistoryLimit = 3;
  if (spec.failedJobsHistoryLimit === undefined || spec.failedJobsHistoryLimit === null) spec.failedJobsHistoryLimit = 1;
  const jobTemplate = child(spec, 'jobTemplate');
  const jobSpec = child(jobTemplate, 'spec');
  // CronJob templates get only the pod template's defaults here; the Job gets the rest when created.
  templateDefaults(jobSpec);
}

function pvcDefaults(pvc: Obj): void {
  const spec = child(pvc, 'spec');
  setIfUnset(spec, 'volumeMode', 'Filesystem');
  const status = child(pvc, 'status');
  setIfUnset(status, 'phase', 'Pending');
}

function namespaceDefaults(ns: Obj): void {
  const meta = child(ns, 'metadata');
  const name = meta.name;
  if (typeof name === 'string' && name !== '') {
    const labels = isObject(meta.labels) ? meta.labels : {};
    labels['kubernetes.io/metadata.name'] = name;
    meta.labels = labels;
  }
  const status = child(ns, 'status');
  setIfUnset(status, 'phase', 'Active');
}

// The v1 → internal conversion of Secrets merges the write-only stringData into data.
function secretDefaults(secret: Obj): void {
  setIfUnset(secret, 'type', 'Opaque');
  if (!isObject(secret.stringData)) {
    delete secret.stringData;
    return;
  }
  const data = isObject(secret.data) ? secret.data : {};
  for (const [k, v] of Object.entries(secret.stringData)) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
  secret.data = data;
  delete secret.stringData;
}

function nodeDefaults(node: Obj): void {
  const status = child(node, 'status');
  if (!isObject(status.allocatable) && isObject(status.capacity)) status.allocatable = { ...status.capacity };
}

function subjectDefaults(binding: Obj): void {
  for (const s of list(binding.subjects)) {
    if (s.apiGroup !== undefined && s.apiGroup !== '') continue;
    if (s.kind === 'ServiceAccount') s.apiGroup = '';
    else if (s.kind === 'User' || s.kind === 'Group') s.apiGroup = 'rbac.authorization.k8s.io';
  }
}

const byResource: Readonly<Record<string, (o: Obj) => void>> = {
  pods: podDefaults,
  services: serviceDefaults,
  namespaces: namespaceDefaults,
  nodes: nodeDefaults,
  persistentvolumeclaims: pvcDefaults,
  secrets: secretDefaults,
  endpoints: (o) => {
    for (const subset of list(o.subsets)) for (const p of list(subset.ports)) setIfUnset(p, 'protocol', 'TCP');
  },
  podtemplates: (o) => podSpecDefaults(child(child(o, 'template'), 'spec')),
  replicationcontrollers: (o) => {
    const spec = child(o, 'spec');
    if (spec.replicas === undefined || spec.replicas === null) spec.replicas = 1;
    templateDefaults(spec);
  },
  'deployments.apps': deploymentDefaults,
  'replicasets.apps': replicaSetDefaults,
  'statefulsets.apps': statefulSetDefaults,
  'daemonsets.apps': daemonSetDefaults,
  'jobs.batch': jobDefaults,
  'cronjobs.batch': cronJobDefaults,
  'rolebindings.rbac.authorization.k8s.io': subjectDefaults,
  'clusterrolebindings.rbac.authorization.k8s.io': subjectDefaults,
  'customresourcedefinitions.apiextensions.k8s.io': (crd) => {
    // SetDefaults_CustomResourceDefinitionSpec (apiextensions-apiserver pkg/apis/apiextensions/v1/defaults.go).
    const spec = child(crd, 'spec');
    const names = child(spec, 'names');
    const kind = typeof names.kind === 'string' ? names.kind : '';
    if (typeof names.singular !== 'string' || names.singular === '') names.singular = kind.toLowerCase();
    if ((typeof names.listKind !== 'string' || names.listKind === '') && kind !== '') names.listKind = `${kind}List`;
    if (!isObject(spec.conversion)) spec.conversion = { strategy: 'None' };
    // SetDefaults_ServiceReference: a conversion webhook's Service port is 443.
    const conversionWebhook = isObject(spec.conversion) ? spec.conversion.webhook : undefined;
    const conversionClient = isObject(conversionWebhook) ? conversionWebhook.clientConfig : undefined;
    if (isObject(conversionClient) && isObject(conversionClient.service)) conversionClient.service.port ??= 443;
    for (const v of list(spec.versions)) dropEmptyRuleStrings(v.schema);
  },
  'priorityclasses.scheduling.k8s.io': (o) => setIfUnset(o, 'preemptionPolicy', 'PreemptLowerPriority'),
  'storageclasses.storage.k8s.io': storageClassDefaults,
  'csidrivers.storage.k8s.io': csiDriverDefaults,
  'endpointslices.discovery.k8s.io': endpointSliceDefaults,
  'flowschemas.flowcontrol.apiserver.k8s.io': flowSchemaDefaults,
  'prioritylevelconfigurations.flowcontrol.apiserver.k8s.io': priorityLevelConfigurationDefaults,
  'validatingadmissionpolicies.admissionregistration.k8s.io': validatingAdmissionPolicyDefaults,
  'validatingadmissionpolicybindings.admissionregistration.k8s.io': validatingAdmissionPolicyBindingDefaults,
};

/**
 * The string fields of a ValidationRule are `omitempty` in Go: an empty message, messageExpression or
 * fieldPath is the same as none and is not stored (apiextensions-apiserver pkg/apis/apiextensions/v1/types_jsonschema.go).
 */
function dropEmptyRuleStrings(schema: unknown): void {
  if (Array.isArray(schema)) {
    for (const x of schema) dropEmptyRuleStrings(x);
    return;
  }
  if (!isObject(schema)) return;
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'x-kubernetes-validations' && Array.isArray(v)) {
      for (const rule of v) {
        if (!isObject(rule)) continue;
        for (const f of ['message', 'messageExpression', 'fieldPath']) if (rule[f] === '') delete rule[f];
      }
    } else if (k !== 'default' && k !== 'enum' && k !== 'example') dropEmptyRuleStrings(v);
  }
}

/** Applies the defaults of a built-in resource to an object (in place). Custom resources have none here. */
export function setDefaults(r: ApiResource, obj: Obj): void {
  if (r.custom) return;
  if (r.group === 'autoscaling' && r.resource === 'horizontalpodautoscalers') {
    if (r.version === 'v1') hpaV1Defaults(obj);
    else hpaV2Defaults(obj);
    return;
  }
  byResource[r.group === '' ? r.resource : `${r.resource}.${r.group}`]?.(obj);
}

/** SetDefaults_TokenRequestSpec. */
export function tokenRequestDefaults(tr: Obj): void {
  const spec = child(tr, 'spec');
  if (spec.expirationSeconds === undefined || spec.expirationSeconds === null) spec.expirationSeconds = 3600;
}
