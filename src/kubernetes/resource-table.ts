/**
 * The single table the typed clientset (and the typed informer factory) is generated from: for each
 * API group/version, its resources with kind, scope and subresources, and — at the type level only —
 * the kubernetes-types interface of their objects.
 *
 * Accessor names follow client-go's typed clientset: the group accessor is `coreV1`, `appsV1`, ...;
 * resource accessors are the camelCased plural (`pods`, `configMaps`, `horizontalPodAutoscalers`).
 */
import type * as admissionregistrationV1 from 'kubernetes-types/admissionregistration/v1.js';
import type * as apiextensionsV1 from 'kubernetes-types/apiextensions/v1.js';
import type * as appsV1 from 'kubernetes-types/apps/v1.js';
import type * as autoscalingV2 from 'kubernetes-types/autoscaling/v2.js';
import type * as batchV1 from 'kubernetes-types/batch/v1.js';
import type * as certificatesV1 from 'kubernetes-types/certificates/v1.js';
import type * as coordinationV1 from 'kubernetes-types/coordination/v1.js';
import type * as coreV1 from 'kubernetes-types/core/v1.js';
import type * as discoveryV1 from 'kubernetes-types/discovery/v1.js';
import type * as eventsV1 from 'kubernetes-types/events/v1.js';
import type * as networkingV1 from 'kubernetes-types/networking/v1.js';
import type * as nodeV1 from 'kubernetes-types/node/v1.js';
import type * as policyV1 from 'kubernetes-types/policy/v1.js';
import type * as rbacV1 from 'kubernetes-types/rbac/v1.js';
import type * as schedulingV1 from 'kubernetes-types/scheduling/v1.js';
import type * as storageV1 from 'kubernetes-types/storage/v1.js';

/**
 * One resource of the table. `T` (the object type) and `N` (namespaced or not) exist for the type
 * system; at run time the entry is plain data.
 */
export interface ResourceSpec<T = unknown, N extends boolean = boolean> {
  /** Plural resource name (URL segment). */
  readonly resource: string;
  /** The kind of its objects, e.g. `Pod`. */
  readonly kind: string;
  /** Whether its objects live in namespaces. */
  readonly namespaced: N;
  /** Subresources the API serves for it (status, scale, log, ...). */
  readonly subresources: readonly string[];
  /** Phantom field carrying the object type; never set. */
  readonly __object?: T;
}

/** One group/version of the table with its resources keyed by accessor name. */
export interface GroupVersionSpec {
  /** API group, '' for the core group. */
  readonly group: string;
  /** API version, e.g. `v1`. */
  readonly version: string;
  /** The group/version's resources by accessor name (`pods`, `configMaps`, ...). */
  readonly resources: Readonly<Record<string, ResourceSpec>>;
}

/** Declares a resource whose objects are `T` (curried so `N` is inferred from the literal). */
function r<T>() {
  return <const N extends boolean>(resource: string, kind: string, namespaced: N, subresources: readonly string[] = []): ResourceSpec<T, N> => ({ resource, kind, namespaced, subresources });
}

const status = ['status'] as const;

// The table's literal; its type (ResourceTable) drives the typed clientset and informer factory.
const table = {
  coreV1: {
    group: '',
    version: 'v1',
    resources: {
      namespaces: r<coreV1.Namespace>()('namespaces', 'Namespace', false, ['status', 'finalize']),
      pods: r<coreV1.Pod>()('pods', 'Pod', true, ['status', 'log', 'eviction', 'binding', 'ephemeralcontainers', 'resize']),
      services: r<coreV1.Service>()('services', 'Service', true, status),
      configMaps: r<coreV1.ConfigMap>()('configmaps', 'ConfigMap', true),
      secrets: r<coreV1.Secret>()('secrets', 'Secret', true),
      serviceAccounts: r<coreV1.ServiceAccount>()('serviceaccounts', 'ServiceAccount', true, ['token']),
      nodes: r<coreV1.Node>()('nodes', 'Node', false, status),
      events: r<coreV1.Event>()('events', 'Event', true),
      endpoints: r<coreV1.Endpoints>()('endpoints', 'Endpoints', true),
      persistentVolumeClaims: r<coreV1.PersistentVolumeClaim>()('persistentvolumeclaims', 'PersistentVolumeClaim', true, status),
      persistentVolumes: r<coreV1.PersistentVolume>()('persistentvolumes', 'PersistentVolume', false, status),
      replicationControllers: r<coreV1.ReplicationController>()('replicationcontrollers', 'ReplicationController', true, ['status', 'scale']),
      limitRanges: r<coreV1.LimitRange>()('limitranges', 'LimitRange', true),
      resourceQuotas: r<coreV1.ResourceQuota>()('resourcequotas', 'ResourceQuota', true, status),
      podTemplates: r<coreV1.PodTemplate>()('podtemplates', 'PodTemplate', true),
    },
  },
  appsV1: {
    group: 'apps',
    version: 'v1',
    resources: {
      deployments: r<appsV1.Deployment>()('deployments', 'Deployment', true, ['status', 'scale']),
      replicaSets: r<appsV1.ReplicaSet>()('replicasets', 'ReplicaSet', true, ['status', 'scale']),
      statefulSets: r<appsV1.StatefulSet>()('statefulsets', 'StatefulSet', true, ['status', 'scale']),
      daemonSets: r<appsV1.DaemonSet>()('daemonsets', 'DaemonSet', true, status),
      controllerRevisions: r<appsV1.ControllerRevision>()('controllerrevisions', 'ControllerRevision', true),
    },
  },
  batchV1: {
    group: 'batch',
    version: 'v1',
    resources: {
      jobs: r<batchV1.Job>()('jobs', 'Job', true, status),
      cronJobs: r<batchV1.CronJob>()('cronjobs', 'CronJob', true, status),
    },
  },
  coordinationV1: {
    group: 'coordination.k8s.io',
    version: 'v1',
    resources: { leases: r<coordinationV1.Lease>()('leases', 'Lease', true) },
  },
  eventsV1: {
    group: 'events.k8s.io',
    version: 'v1',
    resources: { events: r<eventsV1.Event>()('events', 'Event', true) },
  },
  rbacV1: {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    resources: {
      roles: r<rbacV1.Role>()('roles', 'Role', true),
      roleBindings: r<rbacV1.RoleBinding>()('rolebindings', 'RoleBinding', true),
      clusterRoles: r<rbacV1.ClusterRole>()('clusterroles', 'ClusterRole', false),
      clusterRoleBindings: r<rbacV1.ClusterRoleBinding>()('clusterrolebindings', 'ClusterRoleBinding', false),
    },
  },
  apiextensionsV1: {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    resources: { customResourceDefinitions: r<apiextensionsV1.CustomResourceDefinition>()('customresourcedefinitions', 'CustomResourceDefinition', false, status) },
  },
  networkingV1: {
    group: 'networking.k8s.io',
    version: 'v1',
    resources: {
      ingresses: r<networkingV1.Ingress>()('ingresses', 'Ingress', true, status),
      ingressClasses: r<networkingV1.IngressClass>()('ingressclasses', 'IngressClass', false),
      networkPolicies: r<networkingV1.NetworkPolicy>()('networkpolicies', 'NetworkPolicy', true),
    },
  },
  policyV1: {
    group: 'policy',
    version: 'v1',
    resources: { podDisruptionBudgets: r<policyV1.PodDisruptionBudget>()('poddisruptionbudgets', 'PodDisruptionBudget', true, status) },
  },
  storageV1: {
    group: 'storage.k8s.io',
    version: 'v1',
    resources: {
      storageClasses: r<storageV1.StorageClass>()('storageclasses', 'StorageClass', false),
      csiDrivers: r<storageV1.CSIDriver>()('csidrivers', 'CSIDriver', false),
      csiNodes: r<storageV1.CSINode>()('csinodes', 'CSINode', false),
      csiStorageCapacities: r<storageV1.CSIStorageCapacity>()('csistoragecapacities', 'CSIStorageCapacity', true),
      volumeAttachments: r<storageV1.VolumeAttachment>()('volumeattachments', 'VolumeAttachment', false, status),
    },
  },
  autoscalingV2: {
    group: 'autoscaling',
    version: 'v2',
    resources: { horizontalPodAutoscalers: r<autoscalingV2.HorizontalPodAutoscaler>()('horizontalpodautoscalers', 'HorizontalPodAutoscaler', true, status) },
  },
  discoveryV1: {
    group: 'discovery.k8s.io',
    version: 'v1',
    resources: { endpointSlices: r<discoveryV1.EndpointSlice>()('endpointslices', 'EndpointSlice', true) },
  },
  admissionregistrationV1: {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    resources: {
      mutatingWebhookConfigurations: r<admissionregistrationV1.MutatingWebhookConfiguration>()('mutatingwebhookconfigurations', 'MutatingWebhookConfiguration', false),
      validatingWebhookConfigurations: r<admissionregistrationV1.ValidatingWebhookConfiguration>()('validatingwebhookconfigurations', 'ValidatingWebhookConfiguration', false),
      validatingAdmissionPolicies: r<admissionregistrationV1.ValidatingAdmissionPolicy>()('validatingadmissionpolicies', 'ValidatingAdmissionPolicy', false, status),
      validatingAdmissionPolicyBindings: r<admissionregistrationV1.ValidatingAdmissionPolicyBinding>()('validatingadmissionpolicybindings', 'ValidatingAdmissionPolicyBinding', false),
    },
  },
  certificatesV1: {
    group: 'certificates.k8s.io',
    version: 'v1',
    resources: { certificateSigningRequests: r<certificatesV1.CertificateSigningRequest>()('certificatesigningrequests', 'CertificateSigningRequest', false, ['status', 'approval']) },
  },
  schedulingV1: {
    group: 'scheduling.k8s.io',
    version: 'v1',
    resources: { priorityClasses: r<schedulingV1.PriorityClass>()('priorityclasses', 'PriorityClass', false) },
  },
  nodeV1: {
    group: 'node.k8s.io',
    version: 'v1',
    resources: { runtimeClasses: r<nodeV1.RuntimeClass>()('runtimeclasses', 'RuntimeClass', false) },
  },
} as const satisfies Record<string, GroupVersionSpec>;

/**
 * The type of {@link resourceTable}: for each group accessor (`coreV1`, `appsV1`, ...), a
 * {@link GroupVersionSpec} whose `resources` map resource accessors (`pods`, `deployments`, ...) to
 * {@link ResourceSpec}s carrying the object type.
 */
export type ResourceTable = typeof table;

/**
 * The typed API surface: every group/version and resource kubeloom generates clients for, keyed by
 * group accessor, then resource accessor (`resourceTable.appsV1.resources.deployments`). Read it as
 * rows with {@link resourceTableRows}.
 */
export const resourceTable: ResourceTable = table;

/** Accessor names of the groups (`coreV1`, `appsV1`, ...). */
export type GroupAccessor = keyof ResourceTable;

/** The object type of a table entry. */
export type ObjectOf<S> = S extends ResourceSpec<infer T, boolean> ? T : never;

/** A flattened row of the table, for code that iterates over every resource (informer factories, tests). */
export interface ResourceTableRow {
  /** Group accessor name, e.g. `appsV1`. */
  groupAccessor: string;
  /** Resource accessor name, e.g. `replicaSets`. */
  resourceAccessor: string;
  /** API group, '' for the core group. */
  group: string;
  /** API version. */
  version: string;
  /** Plural resource name. */
  resource: string;
  /** Kind of its objects. */
  kind: string;
  /** Whether its objects live in namespaces. */
  namespaced: boolean;
  /** Subresources the API serves for it. */
  subresources: readonly string[];
}

/** Every resource of the table as rows, in table order. */
export function resourceTableRows(): ResourceTableRow[] {
  const rows: ResourceTableRow[] = [];
  for (const [groupAccessor, gv] of Object.entries(resourceTable) as Array<[string, GroupVersionSpec]>) {
    for (const [resourceAccessor, spec] of Object.entries(gv.resources)) {
      rows.push({ groupAccessor, resourceAccessor, group: gv.group, version: gv.version, resource: spec.resource, kind: spec.kind, namespaced: spec.namespaced, subresources: spec.subresources });
    }
  }
  return rows;
}
