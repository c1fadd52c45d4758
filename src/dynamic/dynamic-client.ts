/**
 * The dynamic client (dynamic.DynamicClient): any resource, built-in or custom, addressed by
 * group/version/resource, on unstructured JSON objects.
 */
import type { GroupVersionResource, Unstructured } from '../apimachinery/object.ts';
import type { RestConfig } from '../rest/config.ts';
import { RestClient, type RestClientOptions } from '../rest/client.ts';
import type { ApplyOptions } from '../apimachinery/options.ts';
import { RequestConstructionError } from '../rest/request.ts';
import { ResourceClient, type ApplyConfiguration, type ResourceClientOptions } from '../kubernetes/resource-client.ts';

/**
 * dynamic.Apply's refusal, word for word (dynamic/simple.go, a Go raw string: the line break and
 * the two tabs before "Use" are part of it, and so is the misspelt extractor name).
 */
export const applyWithManagedFieldsMessage =
  'cannot apply an object with managed fields already set.\n\t\tUse the client-go/applyconfigurations "UnstructructuredExtractor" to obtain the unstructured ApplyConfiguration for the given field manager that you can use/modify here to apply';

/**
 * An apply refused because the object carries `metadata.managedFields`. Its message is upstream's
 * exactly ({@link applyWithManagedFieldsMessage}), without the "request construction error" prefix
 * of the other RequestConstructionErrors: dynamic.Apply returns it as a plain error.
 */
export class ApplyWithManagedFieldsError extends RequestConstructionError {
  constructor() {
    super(applyWithManagedFieldsMessage);
    this.message = applyWithManagedFieldsMessage;
  }
}

/**
 * Refuses to apply an object that carries `metadata.managedFields` (dynamic.Apply): such an object
 * was read from the server, and applying it would claim every field it lists for this manager. To
 * apply what was read, drop `metadata.managedFields` and keep only the fields this manager owns.
 */
export function checkNoManagedFields(obj: unknown): void {
  const managed = (obj as { metadata?: { managedFields?: unknown } } | undefined)?.metadata?.managedFields;
  if (Array.isArray(managed) && managed.length > 0) throw new ApplyWithManagedFieldsError();
}

/** One resource of the dynamic client, in one namespace or none (dynamic.ResourceInterface). */
export class DynamicResourceClient<T = Unstructured> extends ResourceClient<T> {
  /** Server-side apply; refused before sending when the object carries managedFields. */
  override async apply(obj: ApplyConfiguration<T>, options: ApplyOptions): Promise<T> {
    checkNoManagedFields(obj);
    return super.apply(obj, options);
  }

  /** Server-side apply to the status subresource; refused when the object carries managedFields. */
  override async applyStatus(obj: ApplyConfiguration<T>, options: ApplyOptions): Promise<T> {
    checkNoManagedFields(obj);
    return super.applyStatus(obj, options);
  }
}

/**
 * A resource client without namespace (cluster-scoped resources, or all namespaces for list and
 * watch) that can be narrowed to one namespace (dynamic.NamespaceableResourceInterface).
 */
export class NamespaceableResourceClient<T = Unstructured> extends DynamicResourceClient<T> {
  readonly #options: ResourceClientOptions;

  constructor(rest: RestClient, options: ResourceClientOptions) {
    super(rest, options);
    this.#options = options;
  }

  /**
   * The resource within `namespace`. As upstream builds its paths, `''` addresses the paths without
   * a namespace (the cluster-scoped path for one object, every namespace for a collection).
   */
  namespace(namespace: string): DynamicResourceClient<T> {
    if (namespace === '') return new DynamicResourceClient<T>(this.rest, { ...this.#options, namespaced: false, namespace: '' });
    return new DynamicResourceClient<T>(this.rest, { ...this.#options, namespaced: true, namespace });
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
    return new NamespaceableResourceClient<Unstructured>(this.rest, { group: gvr.group, version: gvr.version, resource: gvr.resource, namespaced: false, unstructured: true });
  }
}
