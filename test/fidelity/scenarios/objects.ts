/**
 * Object builders shared by the scenarios: small, valid objects of the kinds the corpus uses.
 */

type Obj = Record<string, unknown>;

/** metadata with a name and optional labels/annotations/finalizers. */
export function meta(name: string, extra: Obj = {}): Obj {
  return { name, ...extra };
}

export function configMap(name: string, data: Record<string, string> = { a: '1' }, extra: Obj = {}): Obj {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(name, extra), data };
}

export function secret(name: string, data: Record<string, string> = { k: 'dmFsdWU=' }, type?: string): Obj {
  return { apiVersion: 'v1', kind: 'Secret', metadata: meta(name), ...(type === undefined ? {} : { type }), data };
}

export function container(name = 'app', image = 'nginx:1.25', extra: Obj = {}): Obj {
  return { name, image, ...extra };
}

export function podSpec(extra: Obj = {}): Obj {
  return { containers: [container()], ...extra };
}

export function pod(name: string, extra: { labels?: Record<string, string>; spec?: Obj; finalizers?: string[] } = {}): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: meta(name, { ...(extra.labels === undefined ? {} : { labels: extra.labels }), ...(extra.finalizers === undefined ? {} : { finalizers: extra.finalizers }) }),
    spec: extra.spec ?? podSpec(),
  };
}

export function template(labels: Record<string, string>, spec: Obj = podSpec()): Obj {
  return { metadata: { labels }, spec };
}

export function deployment(name: string, replicas = 2, extra: Obj = {}): Obj {
  const labels = { app: name };
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta(name), spec: { replicas, selector: { matchLabels: labels }, template: template(labels), ...extra } };
}

export function replicaSet(name: string, replicas = 1): Obj {
  const labels = { app: name };
  return { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: meta(name), spec: { replicas, selector: { matchLabels: labels }, template: template(labels) } };
}

export function statefulSet(name: string, replicas = 1): Obj {
  const labels = { app: name };
  return { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: meta(name), spec: { replicas, serviceName: name, selector: { matchLabels: labels }, template: template(labels) } };
}

export function daemonSet(name: string): Obj {
  const labels = { app: name };
  return { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: meta(name), spec: { selector: { matchLabels: labels }, template: template(labels) } };
}

export function job(name: string, extra: Obj = {}): Obj {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: meta(name),
    spec: { template: { spec: podSpec({ restartPolicy: 'Never' }) }, ...extra },
  };
}

export function cronJob(name: string, schedule = '*/5 * * * *'): Obj {
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: meta(name),
    spec: { schedule, jobTemplate: { spec: { template: { spec: podSpec({ restartPolicy: 'OnFailure' }) } } } },
  };
}

export function service(name: string, spec: Obj = {}): Obj {
  return { apiVersion: 'v1', kind: 'Service', metadata: meta(name), spec: { selector: { app: name }, ports: [{ port: 80 }], ...spec } };
}

export function role(name: string, rules: unknown[] = [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }]): Obj {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: meta(name), rules };
}

export function clusterRole(name: string): Obj {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: meta(name), rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] };
}

export function roleBinding(name: string, roleName: string, kind = 'Role'): Obj {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: meta(name),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: roleName },
    subjects: [{ kind: 'ServiceAccount', name: 'robot', namespace: '{{ns}}' }],
  };
}

/** A CustomResourceDefinition `widgets.<token>.fidelity.kubeloom.test` whose spec keeps unknown fields. */
export function widgetCrd(extra: { scope?: 'Namespaced' | 'Cluster'; status?: boolean; scale?: boolean; columns?: unknown[]; plural?: string; kind?: string } = {}): Obj {
  const plural = extra.plural ?? 'widgets';
  const kind = extra.kind ?? 'Widget';
  const subresources: Obj = {};
  if (extra.status === true) subresources.status = {};
  if (extra.scale === true) subresources.scale = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.{{r}}.fidelity.kubeloom.test` },
    spec: {
      group: '{{r}}.fidelity.kubeloom.test',
      scope: extra.scope ?? 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List`, shortNames: [`${kind.toLowerCase().slice(0, 2)}{{r}}`] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          ...(Object.keys(subresources).length > 0 ? { subresources } : {}),
          ...(extra.columns === undefined ? {} : { additionalPrinterColumns: extra.columns }),
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: 'A widget of the fidelity corpus.',
              properties: {
                spec: {
                  type: 'object',
                  description: 'What the widget should be.',
                  properties: { size: { type: 'integer', description: 'How big.' }, color: { type: 'string' }, replicas: { type: 'integer' } },
                  'x-kubernetes-preserve-unknown-fields': true,
                },
                status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              },
            },
          },
        },
      ],
    },
  };
}

/** The path of the widgets collection of a namespaced widget CRD. */
export const widgets = '/apis/{{r}}.fidelity.kubeloom.test/v1/namespaces/{{ns}}/widgets';

export function widget(name: string, spec: Obj = { size: 3 }, extra: Obj = {}): Obj {
  return { apiVersion: '{{r}}.fidelity.kubeloom.test/v1', kind: 'Widget', metadata: meta(name, extra), spec };
}
