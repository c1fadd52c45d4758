/**
 * The objects kube-apiserver writes into a fresh cluster from its post-start hooks and bootstrap
 * controllers (`pkg/controlplane/instance.go` and `pkg/controlplane/controller/...`), written here once
 * when the embedded server starts, through the same registry code a request goes through:
 *
 * - the namespaces default, kube-system, kube-public and kube-node-lease (`systemnamespaces`, and
 *   `kubernetesservice` for default);
 * - the system PriorityClasses (`pkg/registry/scheduling/rest/storage_scheduling.go`, from
 *   `pkg/apis/scheduling/types.go` SystemPriorityClasses);
 * - `kube-system/extension-apiserver-authentication`, which aggregated servers and components with
 *   delegated authentication (kube-scheduler, kube-controller-manager) read at start
 *   (`clusterauthenticationtrust/cluster_authentication_trust_controller.go`): the client CA when the server
 *   has one; the embedded server has no request-header (front proxy) authentication, so no `requestheader-*`;
 * - `kube-system/kube-apiserver-legacy-service-account-token-tracking` (`legacytokentracking/controller.go`);
 * - one APIService per served built-in group/version, as the aggregator's autoregister controller keeps
 *   them (`pkg/controlplane/apiserver/aggregator.go` apiVersionPriorities), Available with reason Local;
 * - the API Priority and Fairness configuration (bootstrap/flowcontrol.ts), with the FlowSchemas' status;
 * - once the server listens: the `default/kubernetes` Service (the first IP of the service CIDR, port 443 →
 *   the server's port) with its Endpoints and EndpointSlice (`kubernetesservice/controller.go`,
 *   `pkg/controlplane/reconcilers`).
 *
 * Not written (the embedded server has no such loops): the kube-apiserver identity Lease in kube-system
 * (renewed every 10 s upstream), APIServices for CRD groups, and the bootstrap RBAC policy unless the
 * server authorizes with RBAC (see ApiHandler.seedBootstrapPolicy).
 */
import { LoopbackClient } from '../controllers/loopback-client.ts';
import type { RequestScope } from '../handlers/scope.ts';
import type { ApiResource } from '../resources.ts';
import { bootstrapFlowSchemas, bootstrapPriorityLevels, flowSchemaStatus } from './flowcontrol.ts';

type Obj = Record<string, unknown>;

/** The field manager of the server's own writes. */
const manager = 'kube-apiserver';

/** The namespaces every cluster has. */
export const systemNamespaces: readonly string[] = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

// pkg/apis/scheduling/types.go SystemPriorityClasses: name, value, description.
const systemPriorityClasses: ReadonlyArray<readonly [string, number, string]> = [
  ['system-node-critical', 2000001000, 'Used for system critical pods that must not be moved from their current node.'],
  ['system-cluster-critical', 2000000000, 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.'],
];

/**
 * The APIService priorities of the built-in group/versions (`pkg/controlplane/apiserver/aggregator.go`
 * apiVersionPriorities, v1.32): group → [groupPriorityMinimum, versionPriority per version].
 */
const apiVersionPriorities: Readonly<Record<string, readonly [number, Readonly<Record<string, number>>]>> = {
  '': [18000, { v1: 1 }],
  apps: [17800, { v1: 15 }],
  'events.k8s.io': [17750, { v1: 15 }],
  'authentication.k8s.io': [17700, { v1: 15 }],
  'authorization.k8s.io': [17600, { v1: 15 }],
  autoscaling: [17500, { v1: 15, v2: 30 }],
  batch: [17400, { v1: 15 }],
  'certificates.k8s.io': [17300, { v1: 15 }],
  'networking.k8s.io': [17200, { v1: 15 }],
  policy: [17100, { v1: 15 }],
  'rbac.authorization.k8s.io': [17000, { v1: 15 }],
  'storage.k8s.io': [16800, { v1: 15 }],
  'admissionregistration.k8s.io': [16700, { v1: 15 }],
  'apiextensions.k8s.io': [16700, { v1: 15 }],
  'scheduling.k8s.io': [16600, { v1: 15 }],
  'coordination.k8s.io': [16500, { v1: 15 }],
  'node.k8s.io': [16300, { v1: 15 }],
  'discovery.k8s.io': [16200, { v1: 15 }],
  'flowcontrol.apiserver.k8s.io': [16100, { v1: 21 }],
};

/** The kubernetes Service's cluster IP: the first address of the default service CIDR 10.96.0.0/12. */
export const kubernetesServiceIP = '10.96.0.1';

/** What the start-time objects depend on. */
export interface BootstrapOptions {
  /** The PEM of the CA that signs client certificates, when the server authenticates them. */
  readonly clientCaPem?: string;
}

/** Writes the objects kube-apiserver creates when it starts (all but the kubernetes Service: {@link bootstrapKubernetesService}). */
export function bootstrapObjects(scope: RequestScope, options: BootstrapOptions = {}): void {
  const client = new LoopbackClient(scope, manager);
  const create = (apiVersion: string, kind: string, obj: Obj, namespace = ''): Obj => client.create(client.resourceFor(apiVersion, kind), namespace, { apiVersion, kind, ...obj });
  for (const name of systemNamespaces) create('v1', 'Namespace', { metadata: { name } });
  for (const [name, value, description] of systemPriorityClasses) create('scheduling.k8s.io/v1', 'PriorityClass', { metadata: { name }, value, description });
  create('v1', 'ConfigMap', { metadata: { name: 'extension-apiserver-authentication', namespace: 'kube-system' }, data: options.clientCaPem === undefined ? {} : { 'client-ca-file': options.clientCaPem } }, 'kube-system');
  // legacytokentracking: the day tracking of legacy ServiceAccount token use began (time.DateOnly).
  create('v1', 'ConfigMap', { metadata: { name: 'kube-apiserver-legacy-service-account-token-tracking', namespace: 'kube-system' }, data: { since: scope.now().slice(0, 10) } }, 'kube-system');
  bootstrapApiServices(client, scope.now());
  const levels = bootstrapPriorityLevels();
  for (const plc of levels) create('flowcontrol.apiserver.k8s.io/v1', 'PriorityLevelConfiguration', plc);
  const levelNames = new Set(levels.map((l) => String((l.metadata as Obj).name)));
  const flowSchemas = client.resourceFor('flowcontrol.apiserver.k8s.io/v1', 'FlowSchema');
  for (const fs of bootstrapFlowSchemas()) {
    const created = create('flowcontrol.apiserver.k8s.io/v1', 'FlowSchema', fs);
    const name = String((created.metadata as Obj).name);
    const level = String(((fs.spec as Obj).priorityLevelConfiguration as Obj).name);
    client.update(flowSchemas, '', name, (o) => ({ ...o, status: flowSchemaStatus(o, levelNames.has(level), scope.now()) }), 'status');
  }
}

function bootstrapApiServices(client: LoopbackClient, now: string): void {
  const apiServices = client.resourceFor('apiregistration.k8s.io/v1', 'APIService');
  const served = new Map<string, ApiResource>();
  for (const r of client.scope.registry.all()) if (!r.custom) served.set(`${r.version}.${r.group}`, r);
  for (const [name, r] of served) {
    const priorities = apiVersionPriorities[r.group];
    if (priorities === undefined) continue;
    const [groupPriorityMinimum, versions] = priorities;
    const spec: Obj = { ...(r.group === '' ? {} : { group: r.group }), version: r.version, groupPriorityMinimum, versionPriority: versions[r.version] ?? 15 };
    client.create(apiServices, '', { metadata: { name, labels: { 'kube-aggregator.kubernetes.io/automanaged': 'onstart' } }, spec });
    const status = { conditions: [{ type: 'Available', status: 'True', lastTransitionTime: now, reason: 'Local', message: 'Local APIServices are always available' }] };
    client.update(apiServices, '', name, (o) => ({ ...o, status }), 'status');
  }
}

/**
 * Writes the `default/kubernetes` Service and its Endpoints and EndpointSlice for the address the
 * server listens on (an unspecified host is published as the loopback address).
 */
export function bootstrapKubernetesService(scope: RequestScope, host: string, port: number): void {
  const client = new LoopbackClient(scope, manager);
  const ip = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '::1' : host;
  const services = client.resourceFor('v1', 'Service');
  if (client.get(services, 'default', 'kubernetes') === undefined) {
    client.create(services, 'default', {
      metadata: { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
      spec: { type: 'ClusterIP', clusterIP: kubernetesServiceIP, sessionAffinity: 'None', ports: [{ name: 'https', protocol: 'TCP', port: 443, targetPort: port }] },
    });
  }
  const ports = [{ name: 'https', port, protocol: 'TCP' }];
  const endpoints = client.resourceFor('v1', 'Endpoints');
  const subsets = [{ addresses: [{ ip }], ports }];
  if (client.get(endpoints, 'default', 'kubernetes') === undefined) {
    client.create(endpoints, 'default', { metadata: { name: 'kubernetes', namespace: 'default', labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } }, subsets });
  } else client.update(endpoints, 'default', 'kubernetes', (o) => ({ ...o, subsets }));
  const slices = client.resourceFor('discovery.k8s.io/v1', 'EndpointSlice');
  const slice = { addressType: ip.includes(':') ? 'IPv6' : 'IPv4', endpoints: [{ addresses: [ip], conditions: { ready: true } }], ports };
  if (client.get(slices, 'default', 'kubernetes') === undefined) {
    client.create(slices, 'default', { metadata: { name: 'kubernetes', namespace: 'default', labels: { 'kubernetes.io/service-name': 'kubernetes' } }, ...slice });
  } else client.update(slices, 'default', 'kubernetes', (o) => ({ ...o, ...slice }));
}
