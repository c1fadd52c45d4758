/**
 * Per-resource registry strategies, as the `strategy.go` of every `pkg/registry/<group>/<resource>`
 * defines them: how a new object is prepared (status cleared, generation, allocations, generated
 * selectors), what an update through the main resource or /status may change, the kind's validation,
 * whether PUT creates, whether DELETE answers with the object. The default deletion propagation is
 * registry/generic/garbage-collection-policy.ts's.
 *
 * {@link strategyFor} gives the strategy of any served resource; resources without an entry of their
 * own (custom resources among them) get the generic one.
 */
import { validateEventCreate, validateEventUpdate } from './events/validation.ts';
import { isObject, str } from '../object-meta.ts';
import type { ApiResource } from '../resources.ts';
import type { FieldError } from './validation/field.ts';
import { nameIsDNSLabel, nameIsDNSSubdomain, nameIsDNS1035Label, namePathSegment, type NameValidator } from './validation/names.ts';
import * as core from './validation/core.ts';
import * as workloads from './validation/workloads.ts';
import * as policy from './validation/policy.ts';
import { validateHorizontalPodAutoscaler, validateHorizontalPodAutoscalerStatusUpdate, validateHorizontalPodAutoscalerUpdate } from './validation/autoscaling.ts';
import { allocateService, checkRequestedClusterIPs, type ServiceAllocator } from './service-allocator.ts';
import { prepareNamespaceForCreate, prepareNamespaceForUpdate } from './core/namespace.ts';
import { validateStorageClass, validateStorageClassUpdate } from './storage/storage-class.ts';
import { validateCsiDriverUpdate } from './storage/csi-driver.ts';
import { validateVolumeAttachment, validateVolumeAttachmentUpdate } from './storage/volume-attachment.ts';
import { validateEndpointSlice, validateEndpointSliceUpdate } from './discovery/endpoint-slice.ts';
import { validateRuntimeClass, validateRuntimeClassUpdate } from './node/runtime-class.ts';
import { validateApiService } from './apiregistration/api-service.ts';
import { validateValidatingAdmissionPolicy, validateValidatingAdmissionPolicyBinding } from './admissionregistration/validating-admission-policy.ts';
import {
  prepareCsrForApprovalUpdate,
  prepareCsrForCreate,
  prepareCsrForStatusUpdate,
  prepareCsrForUpdate,
  validateCsrCreate,
  validateCsrUpdate,
  type CsrRequester,
} from './certificates/certificate-signing-request.ts';

type Obj = Record<string, unknown>;

/** What strategies may use besides the object. */
export interface StrategyContext {
  readonly allocator: ServiceAllocator;
  /** The user the request acts as (CertificateSigningRequests record their requester). */
  readonly user?: CsrRequester;
  /** The clock's current time as a metav1.Time string. */
  now(): string;
  /** A new object's uid (default: a random UUID); see HandlerConfig.newUid. */
  readonly newUid?: (() => string) | undefined;
  /** The source of generated names' characters (default: crypto); see HandlerConfig.random. */
  readonly random?: (() => number) | undefined;
}

/** The update strategy of a subresource other than /status (pods/ephemeralcontainers, certificatesigningrequests/approval). */
export interface SubresourceStrategy {
  /** PrepareForUpdate: the object to store, built from the request's object and the stored one. */
  prepareForUpdate(obj: Obj, old: Obj, ctx: StrategyContext): Obj;
  /** ValidateUpdate (metadata update rules are checked by the caller). */
  validateUpdate(obj: Obj, old: Obj): FieldError[];
}

/** A resource's registry strategy. */
export interface Strategy {
  /** The rule for metadata.name (and generateName). */
  readonly name: NameValidator;
  /** A PUT of a missing object creates it. */
  readonly allowCreateOnUpdate: boolean;
  /** DELETE answers with the deleted object instead of a Status. */
  readonly returnsDeletedObject: boolean;
  /** PrepareForCreate beyond what every resource gets. */
  prepareForCreate?(obj: Obj, ctx: StrategyContext): void;
  /** PrepareForUpdate (main resource) beyond what every resource gets. */
  prepareForUpdate?(obj: Obj, old: Obj, ctx: StrategyContext): void;
  /** PrepareForUpdate of /status beyond keeping the old spec. */
  prepareForStatusUpdate?(obj: Obj, old: Obj, ctx: StrategyContext): void;
  /** The strategies of the other subresources that update the object, by subresource name. */
  readonly subresources?: Readonly<Record<string, SubresourceStrategy>>;
  /** The kind's validation (metadata is validated by the caller). */
  validate?(obj: Obj): FieldError[];
  /** The kind's update validation (metadata update rules are checked by the caller). */
  validateUpdate?(obj: Obj, old: Obj): FieldError[];
  /** Validation of a /status update, when the kind has one. */
  validateStatusUpdate?(obj: Obj, old: Obj): FieldError[];
}

/** qos.GetPodQOS: BestEffort without requests or limits, Guaranteed when every container limits cpu and memory to its requests. */
export function podQOSClass(spec: unknown): string {
  const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObject) : []);
  const containers = isObject(spec) ? [...list(spec.containers), ...list(spec.initContainers)] : [];
  let any = false;
  let guaranteed = true;
  for (const c of containers) {
    const res = isObject(c.resources) ? c.resources : {};
    const limits = isObject(res.limits) ? res.limits : {};
    const requests = isObject(res.requests) ? res.requests : {};
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

function child(o: Obj, key: string): Obj {
  if (!isObject(o[key])) o[key] = {};
  return o[key] as Obj;
}

/** The job strategy's generateSelector: the controller-uid selector and template labels (v1.32 sets both label forms). */
function generateJobSelector(job: Obj): void {
  const spec = child(job, 'spec');
  if (spec.manualSelector === true) return;
  const meta = child(job, 'metadata');
  const uid = str(meta.uid);
  const name = str(meta.name);
  const template = child(spec, 'template');
  const tmeta = child(template, 'metadata');
  const labels = isObject(tmeta.labels) ? tmeta.labels : {};
  labels['batch.kubernetes.io/controller-uid'] ??= uid;
  labels['batch.kubernetes.io/job-name'] ??= name;
  labels['controller-uid'] ??= uid;
  labels['job-name'] ??= name;
  tmeta.labels = labels;
  const selector = child(spec, 'selector');
  const matchLabels = isObject(selector.matchLabels) ? selector.matchLabels : {};
  matchLabels['batch.kubernetes.io/controller-uid'] ??= uid;
  selector.matchLabels = matchLabels;
}

const generic: Strategy = { name: nameIsDNSSubdomain, allowCreateOnUpdate: false, returnsDeletedObject: false };

function strategy(s: Partial<Strategy>): Strategy {
  return { ...generic, ...s };
}

const rbacNames: Partial<Strategy> = { name: namePathSegment, allowCreateOnUpdate: true };

const strategies: Readonly<Record<string, Strategy>> = {
  pods: strategy({
    returnsDeletedObject: true,
    prepareForCreate: (pod) => {
      pod.status = { phase: 'Pending', qosClass: podQOSClass(pod.spec) };
    },
    prepareForStatusUpdate: (pod, old) => {
      const meta = child(pod, 'metadata');
      const oldMeta = child(old, 'metadata');
      // The pods/status endpoint may not touch owner references or the deletion timestamp.
      if (oldMeta.ownerReferences === undefined) delete meta.ownerReferences;
      else meta.ownerReferences = oldMeta.ownerReferences;
    },
    validate: core.validatePod,
    validateUpdate: core.validatePodUpdate,
    subresources: {
      ephemeralcontainers: {
        // dropNonEphemeralContainerUpdates: the stored pod with the request's ephemeral containers.
        prepareForUpdate: (pod, old) => {
          const next = structuredClone(old);
          const meta = child(next, 'metadata');
          const given = child(pod, 'metadata');
          for (const k of ['name', 'namespace', 'resourceVersion', 'uid']) {
            if (given[k] === undefined) delete meta[k];
            else meta[k] = given[k];
          }
          const spec = child(next, 'spec');
          const ephemeral = isObject(pod.spec) ? pod.spec.ephemeralContainers : undefined;
          if (ephemeral === undefined || ephemeral === null) delete spec.ephemeralContainers;
          else spec.ephemeralContainers = ephemeral;
          return next;
        },
        validateUpdate: core.validatePodEphemeralContainersUpdate,
      },
    },
  }),
  services: strategy({
    name: nameIsDNS1035Label,
    returnsDeletedObject: true,
    prepareForCreate: (svc, ctx) => {
      svc.status = { loadBalancer: {} };
      checkRequestedClusterIPs(child(svc, 'spec'), str(isObject(svc.metadata) ? svc.metadata.name : undefined));
      allocateService(child(svc, 'spec'), ctx.allocator, undefined);
    },
    prepareForUpdate: (svc, old, ctx) => {
      allocateService(child(svc, 'spec'), ctx.allocator, isObject(old.spec) ? old.spec : undefined);
    },
    validate: core.validateService,
    validateUpdate: core.validateServiceUpdate,
  }),
  configmaps: strategy({ validate: core.validateConfigMap, validateUpdate: core.validateConfigMapUpdate }),
  secrets: strategy({
    validate: core.validateSecret,
    validateUpdate: core.validateSecretUpdate,
  }),
  serviceaccounts: strategy({ returnsDeletedObject: true }),
  namespaces: strategy({
    name: nameIsDNSLabel,
    returnsDeletedObject: true,
    // The namespace registry (registry/core/namespace.ts) prepares and validates namespaces.
    prepareForCreate: (ns) => prepareNamespaceForCreate(ns),
    prepareForUpdate: (ns, old) => prepareNamespaceForUpdate(undefined, old, ns),
  }),
  nodes: strategy({
    // Nodes register with their status.
    prepareForCreate: () => {},
  }),
  persistentvolumeclaims: strategy({
    returnsDeletedObject: true,
    prepareForCreate: (pvc) => {
      pvc.status = { phase: 'Pending' };
    },
    validate: core.validatePersistentVolumeClaim,
  }),
  endpoints: strategy({ allowCreateOnUpdate: true }),
  events: strategy({ allowCreateOnUpdate: true, validate: (e) => validateEventCreate(e, false), validateUpdate: (e, old) => validateEventUpdate(e, old, false) }),
  'events.events.k8s.io': strategy({ allowCreateOnUpdate: true, validate: (e) => validateEventCreate(e, true), validateUpdate: (e, old) => validateEventUpdate(e, old, true) }),
  'leases.coordination.k8s.io': strategy({ allowCreateOnUpdate: true, validate: policy.validateLease }),
  resourcequotas: strategy({
    prepareForCreate: (q) => {
      q.status = {};
    },
    validate: policy.validateResourceQuota,
  }),
  'deployments.apps': strategy({ validate: workloads.validateDeployment, validateUpdate: workloads.validateDeploymentUpdate, prepareForStatusUpdate: keepOldLabels }),
  'replicasets.apps': strategy({ validate: workloads.validateReplicaSet, validateUpdate: workloads.validateReplicaSetUpdate }),
  'statefulsets.apps': strategy({ validate: workloads.validateStatefulSet, validateUpdate: workloads.validateStatefulSetUpdate }),
  'daemonsets.apps': strategy({ validate: workloads.validateDaemonSet, validateUpdate: workloads.validateDaemonSetUpdate }),
  'jobs.batch': strategy({
    validate: (job) => {
      generateJobSelector(job);
      return workloads.validateJob(job);
    },
    validateUpdate: workloads.validateJobUpdate,
  }),
  'cronjobs.batch': strategy({ validate: workloads.validateCronJob, validateUpdate: (cj) => workloads.validateCronJob(cj) }),
  'roles.rbac.authorization.k8s.io': strategy({ ...rbacNames, validate: (r) => policy.validateRole(r, true), validateUpdate: (r) => policy.validateRole(r, true) }),
  'clusterroles.rbac.authorization.k8s.io': strategy({ ...rbacNames, validate: (r) => policy.validateRole(r, false), validateUpdate: (r) => policy.validateRole(r, false) }),
  'rolebindings.rbac.authorization.k8s.io': strategy({ ...rbacNames, validate: (b) => policy.validateRoleBinding(b, true), validateUpdate: (b, old) => policy.validateRoleBindingUpdate(b, old, true) }),
  'clusterrolebindings.rbac.authorization.k8s.io': strategy({ ...rbacNames, validate: (b) => policy.validateRoleBinding(b, false), validateUpdate: (b, old) => policy.validateRoleBindingUpdate(b, old, false) }),
  'priorityclasses.scheduling.k8s.io': strategy({ validate: policy.validatePriorityClass, validateUpdate: policy.validatePriorityClassUpdate }),
  'certificatesigningrequests.certificates.k8s.io': strategy({
    name: () => [],
    prepareForCreate: (csr, ctx) => prepareCsrForCreate(csr, ctx.user),
    prepareForUpdate: prepareCsrForUpdate,
    prepareForStatusUpdate: (csr, old, ctx) => prepareCsrForStatusUpdate(csr, old, ctx.now()),
    validate: validateCsrCreate,
    validateUpdate: (csr, old) => validateCsrUpdate(csr, old, 'main'),
    validateStatusUpdate: (csr, old) => validateCsrUpdate(csr, old, 'status'),
    subresources: {
      approval: {
        prepareForUpdate: (csr, old, ctx) => {
          prepareCsrForApprovalUpdate(csr, old, ctx.now());
          return csr;
        },
        validateUpdate: (csr, old) => validateCsrUpdate(csr, old, 'approval'),
      },
    },
  }),
  'horizontalpodautoscalers.autoscaling': strategy({
    validate: validateHorizontalPodAutoscaler,
    validateUpdate: validateHorizontalPodAutoscalerUpdate,
    validateStatusUpdate: validateHorizontalPodAutoscalerStatusUpdate,
  }),
  'poddisruptionbudgets.policy': strategy({ validate: policy.validatePodDisruptionBudget, validateUpdate: policy.validatePodDisruptionBudget }),
  'ingresses.networking.k8s.io': strategy({ validate: policy.validateIngress, validateUpdate: policy.validateIngress }),
  // The resources of the whole built-in API whose upstream strategy has logic of its own; the others get the generic strategy.
  'storageclasses.storage.k8s.io': strategy({ validate: validateStorageClass, validateUpdate: validateStorageClassUpdate }),
  'csidrivers.storage.k8s.io': strategy({ validateUpdate: validateCsiDriverUpdate }),
  'volumeattachments.storage.k8s.io': strategy({ validate: validateVolumeAttachment, validateUpdate: validateVolumeAttachmentUpdate }),
  'endpointslices.discovery.k8s.io': strategy({ validate: validateEndpointSlice, validateUpdate: (s, old) => [...validateEndpointSlice(s), ...validateEndpointSliceUpdate(s, old)] }),
  'validatingadmissionpolicies.admissionregistration.k8s.io': strategy({ validate: validateValidatingAdmissionPolicy }),
  'validatingadmissionpolicybindings.admissionregistration.k8s.io': strategy({ validate: validateValidatingAdmissionPolicyBinding }),
  'apiservices.apiregistration.k8s.io': strategy({ name: namePathSegment, validate: validateApiService }),
  'runtimeclasses.node.k8s.io': strategy({ name: nameIsDNSSubdomain, validate: validateRuntimeClass, validateUpdate: validateRuntimeClassUpdate }),
  'customresourcedefinitions.apiextensions.k8s.io': strategy({
    returnsDeletedObject: true,
    // Status starts empty but for the storage version; the naming controller fills the rest.
    prepareForCreate: (crd) => {
      const spec = isObject(crd.spec) ? crd.spec : {};
      const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObject) : [];
      const storage = versions.find((v) => v.storage === true)?.name;
      crd.status = { acceptedNames: { plural: '', kind: '' }, conditions: null, storedVersions: typeof storage === 'string' ? [storage] : null };
    },
  }),
};

function keepOldLabels(obj: Obj, old: Obj): void {
  const meta = child(obj, 'metadata');
  const oldMeta = child(old, 'metadata');
  if (oldMeta.labels === undefined) delete meta.labels;
  else meta.labels = structuredClone(oldMeta.labels);
}

/** The storage key of a resource's strategy entry. */
function keyOf(r: ApiResource): string {
  return r.group === '' ? r.resource : `${r.resource}.${r.group}`;
}

/** The strategy of a served resource. */
export function strategyFor(r: ApiResource): Strategy {
  if (r.custom) return generic;
  return strategies[keyOf(r)] ?? generic;
}
