/**
 * The typed clientset (kubernetes.Clientset), generated at run time from {@link resourceTable}:
 * `clientset.coreV1().pods('ns')` is a `ResourceClient<Pod>`, `clientset.appsV1().deployments()` a
 * `ResourceClient<Deployment>` over all namespaces, `clientset.coreV1().nodes()` a cluster-scoped
 * `ResourceClient<Node>`. All share one {@link RestClient} (one connection pool, one rate limiter).
 */
import type { RestConfig } from '../rest/config.ts';
import { RestClient, type RestClientOptions } from '../rest/client.ts';
import { DiscoveryClient } from '../discovery/discovery-client.ts';
import { PodLogsClient } from './pod-logs.ts';
import { ResourceClient } from './resource-client.ts';
import { resourceTable, type GroupVersionSpec, type ResourceSpec, type ResourceTable } from './resource-table.ts';

/** The accessor of one resource: namespaced ones take a namespace ('' or omitted = all namespaces). */
export type ResourceAccessor<S> =
  S extends ResourceSpec<infer T, true> ? (namespace?: string) => ResourceClient<T> : S extends ResourceSpec<infer T, false> ? () => ResourceClient<T> : never;

/** The client of one group/version: one accessor per resource of the table. */
export type GroupClient<G extends GroupVersionSpec> = { readonly [K in keyof G['resources']]: ResourceAccessor<G['resources'][K]> };

/** The core/v1 group client, which also reads pod logs. */
export type CoreV1Client = GroupClient<ResourceTable['coreV1']> & {
  /** Pod logs in a namespace. */
  podLogs(namespace: string): PodLogsClient;
};

/** The typed clientset: one accessor per group/version of the table. */
export type Clientset = { readonly [K in keyof ResourceTable]: () => K extends 'coreV1' ? CoreV1Client : GroupClient<ResourceTable[K]> } & {
  /** The REST client every typed client uses. */
  readonly restClient: RestClient;
  /** Discovery (server version, groups, resources) over the same connection. */
  discovery(): DiscoveryClient;
  /** Closes the pooled connections. */
  close(): Promise<void>;
};

function groupClient(rest: RestClient, gv: GroupVersionSpec): Record<string, (namespace?: string) => ResourceClient<unknown>> {
  const out: Record<string, (namespace?: string) => ResourceClient<unknown>> = {};
  for (const [accessor, spec] of Object.entries(gv.resources)) {
    out[accessor] = (namespace?: string) =>
      new ResourceClient<unknown>(rest, { group: gv.group, version: gv.version, resource: spec.resource, kind: spec.kind, namespaced: spec.namespaced, namespace: namespace ?? '' });
  }
  return out;
}

/**
 * Builds a clientset from a RestConfig (a new connection pool) or an existing RestClient (shared).
 *
 * @example
 * const clientset = newClientset(restConfigFrom(await loadKubeConfig()));
 * const pods = await clientset.coreV1().pods('default').list({ labelSelector: 'app=web' });
 * await clientset.appsV1().deployments('default').patch('web', PatchType.Merge, { spec: { replicas: 3 } });
 */
export function newClientset(config: RestConfig | RestClient, options?: RestClientOptions): Clientset {
  const rest = config instanceof RestClient ? config : new RestClient(config, options);
  const clientset: Record<string, unknown> = {
    restClient: rest,
    discovery: (() => {
      let d: DiscoveryClient | undefined;
      return () => (d ??= new DiscoveryClient(rest));
    })(),
    close: () => rest.close(),
  };
  for (const [accessor, gv] of Object.entries(resourceTable) as Array<[string, GroupVersionSpec]>) {
    const client = groupClient(rest, gv);
    if (accessor === 'coreV1') client['podLogs'] = (namespace?: string) => new PodLogsClient(rest, namespace ?? '') as never;
    clientset[accessor] = () => client;
  }
  return clientset as Clientset;
}
