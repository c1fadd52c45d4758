/**
 * The dynamic client (dynamic.DynamicClient): any resource, built-in or custom, addressed by
 * group/version/resource, on unstructured JSON objects.
 */
import type { GroupVersionResource, Unstructured } from '../apimachinery/object.ts';
import type { RestConfig } from '../rest/config.ts';
import { RestClient, type RestClientOptions } from '../rest/client.ts';
import { ResourceClient, type ResourceClientOptions } from '../kubernetes/resource-client.ts';

/**
 * A resource client without namespace (cluster-scoped resources, or all namespaces for list and
 * watch) that can be narrowed to one namespace (dynamic.NamespaceableResourceInterface).
 */
export class NamespaceableResourceClient<T = Unstructured> extends ResourceClient<T> {
  readonly #options: ResourceClientOptions;

  constructor(rest: RestClient, options: ResourceClientOptions) {
    super(rest, options);
    this.#options = options;
  }

  /** The resource within `namespace`. */
  namespace(namespace: string): ResourceClient<T> {
    return new ResourceClient<T>(this.rest, { ...this.#options, namespaced: true, namespace });
  }
}

/**
 * Clients for arbitrary resources.
 *
 * @example
 * const dyn = new DynamicClient(config);
 * const widgets = dyn.resource({ group: 'example.com', version: 'v1', resource: 'widgets' }).namespace('default');
 * const w = await widgets.get('w1');
 */
export class DynamicClient {
  /** The client requests go through. */
  readonly rest: RestClient;

  constructor(config: RestConfig | RestClient, options?: RestClientOptions) {
    this.rest = config instanceof RestClient ? config : new RestClient(config, options);
  }

  /** The client of one resource (cluster-wide until `.namespace(ns)` is called). */
  resource(gvr: GroupVersionResource): NamespaceableResourceClient {
    return new NamespaceableResourceClient<Unstructured>(this.rest, { group: gvr.group, version: gvr.version, resource: gvr.resource, namespaced: false });
  }
}
