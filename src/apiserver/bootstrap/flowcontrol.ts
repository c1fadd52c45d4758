/**
 * The API Priority and Fairness configuration kube-apiserver writes at start: the mandatory and the
 * suggested PriorityLevelConfigurations and FlowSchemas of
 * `staging/src/k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap/default.go` (v1.32: nominal concurrency
 * shares and lendable percents of KEP-1040's borrowing), each annotated `apf.kubernetes.io/autoupdate-spec`
 * as `pkg/registry/flowcontrol/ensurer` marks the objects it keeps up to date.
 *
 * The embedded server does not limit requests by them: they are published so that clients and
 * components that read them (kubectl, the real controllers) find what a fresh v1.32 cluster has.
 */

type Obj = Record<string, unknown>;

/** The annotation the configuration ensurer sets on the objects it owns (`flowcontrol.AutoUpdateAnnotationKey`). */
export const autoUpdateAnnotation = 'apf.kubernetes.io/autoupdate-spec';

const meta = (name: string): Obj => ({ name, annotations: { [autoUpdateAnnotation]: 'true' } });

function limited(name: string, shares: number, lendablePercent: number, queuing?: { queues: number; handSize: number; queueLengthLimit: number }): Obj {
  const limitResponse = queuing === undefined ? { type: 'Reject' } : { type: 'Queue', queuing };
  return {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'PriorityLevelConfiguration',
    metadata: meta(name),
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: shares, lendablePercent, limitResponse } },
  };
}

/** The bootstrap PriorityLevelConfigurations: mandatory (exempt, catch-all) and suggested. */
export function bootstrapPriorityLevels(): Obj[] {
  return [
    { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: meta('exempt'), spec: { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } } },
    limited('catch-all', 5, 0),
    limited('system', 30, 33, { queues: 64, handSize: 6, queueLengthLimit: 50 }),
    limited('node-high', 40, 25, { queues: 64, handSize: 6, queueLengthLimit: 50 }),
    limited('leader-election', 10, 0, { queues: 16, handSize: 4, queueLengthLimit: 50 }),
    limited('workload-high', 40, 50, { queues: 128, handSize: 6, queueLengthLimit: 50 }),
    limited('workload-low', 100, 90, { queues: 128, handSize: 6, queueLengthLimit: 50 }),
    limited('global-default', 20, 50, { queues: 128, handSize: 6, queueLengthLimit: 50 }),
  ];
}

const group = (name: string): Obj => ({ kind: 'Group', group: { name } });
const user = (name: string): Obj => ({ kind: 'User', user: { name } });
const kubeSystemServiceAccount = (name: string): Obj => ({ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name } });
const resourceRule = (verbs: string[], apiGroups: string[], resources: string[], namespaces: string[], clusterScope = false): Obj => ({ verbs, apiGroups, resources, ...(clusterScope ? { clusterScope } : {}), namespaces });
const everything = { resourceRules: [resourceRule(['*'], ['*'], ['*'], ['*'], true)], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] };

function flowSchema(name: string, level: string, matchingPrecedence: number, distinguisher: string | undefined, rules: Obj[]): Obj {
  return {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'FlowSchema',
    metadata: meta(name),
    spec: { priorityLevelConfiguration: { name: level }, matchingPrecedence, ...(distinguisher === undefined ? {} : { distinguisherMethod: { type: distinguisher } }), rules },
  };
}

const allOf = (subjects: Obj[]): Obj[] => [{ subjects, ...everything }];
const leaderElectionVerbs = ['get', 'create', 'update'];

/** The bootstrap FlowSchemas: mandatory (exempt, catch-all) and suggested. */
export function bootstrapFlowSchemas(): Obj[] {
  const authenticatedOrNot = [group('system:unauthenticated'), group('system:authenticated')];
  return [
    flowSchema('exempt', 'exempt', 1, undefined, allOf([group('system:masters')])),
    flowSchema('probes', 'exempt', 2, undefined, [{ subjects: authenticatedOrNot, nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }] }]),
    flowSchema('system-leader-election', 'leader-election', 100, 'ByUser', [
      {
        subjects: [user('system:kube-controller-manager'), user('system:kube-scheduler'), kubeSystemServiceAccount('*')],
        resourceRules: [resourceRule(leaderElectionVerbs, ['coordination.k8s.io'], ['leases'], ['*'])],
      },
    ]),
    flowSchema('endpoint-controller', 'workload-high', 150, 'ByUser', [
      {
        subjects: [user('system:kube-controller-manager'), kubeSystemServiceAccount('endpoint-controller'), kubeSystemServiceAccount('endpointslicemirroring-controller')],
        resourceRules: [resourceRule(leaderElectionVerbs, [''], ['endpoints'], ['*'])],
      },
    ]),
    flowSchema('workload-leader-election', 'leader-election', 200, 'ByUser', [
      {
        subjects: [kubeSystemServiceAccount('*')],
        resourceRules: [resourceRule(leaderElectionVerbs, [''], ['endpoints', 'configmaps'], ['*']), resourceRule(leaderElectionVerbs, ['coordination.k8s.io'], ['leases'], ['*'])],
      },
    ]),
    flowSchema('system-node-high', 'node-high', 400, 'ByUser', [
      {
        subjects: [group('system:nodes')],
        resourceRules: [resourceRule(['*'], [''], ['nodes', 'nodes/status'], ['*'], true), resourceRule(['*'], ['coordination.k8s.io'], ['leases'], ['*'])],
      },
    ]),
    flowSchema('system-nodes', 'system', 500, 'ByUser', allOf([group('system:nodes')])),
    flowSchema('kube-controller-manager', 'workload-high', 800, 'ByNamespace', allOf([user('system:kube-controller-manager')])),
    flowSchema('kube-scheduler', 'workload-high', 800, 'ByNamespace', allOf([user('system:kube-scheduler')])),
    flowSchema('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', allOf([kubeSystemServiceAccount('*')])),
    flowSchema('service-accounts', 'workload-low', 9000, 'ByUser', allOf([group('system:serviceaccounts')])),
    flowSchema('global-default', 'global-default', 9900, 'ByUser', allOf(authenticatedOrNot)),
    flowSchema('catch-all', 'catch-all', 10000, 'ByUser', allOf(authenticatedOrNot)),
  ];
}

/**
 * The status the configuration consumer writes on a FlowSchema: its Dangling condition
 * (`staging/src/k8s.io/apiserver/pkg/util/flowcontrol/apf_controller.go`).
 */
export function flowSchemaStatus(fs: Obj, levelExists: boolean, now: string): Obj {
  const ref = (fs.spec as Obj | undefined)?.priorityLevelConfiguration as Obj | undefined;
  const level = typeof ref?.name === 'string' ? ref.name : '';
  const condition = levelExists
    ? { type: 'Dangling', status: 'False', lastTransitionTime: now, reason: 'Found', message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(level)} and it exists` }
    : { type: 'Dangling', status: 'True', lastTransitionTime: now, reason: 'NotFound', message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(level)} but there is no such object` };
  return { conditions: [condition] };
}
