/**
 * Listers (client-go tools/cache listers.go): read-only, typed views over an informer's indexer,
 * the way controllers should read cached state.
 */
import { newNotFound } from '../../apimachinery/errors.ts';
import { everything, parseSelector, type LabelSelector } from '../../apimachinery/labels.ts';
import type { KubeObject } from '../../apimachinery/object.ts';
import type { Indexer } from './indexer.ts';
import { NamespaceIndex } from './key-functions.ts';

/** Identifies a resource for NotFound errors (schema.GroupResource). */
export interface GroupResource {
  /** API group, '' for the core group. */
  group: string;
  /** Plural resource name. */
  resource: string;
}

function toSelector(selector: LabelSelector | string | undefined): LabelSelector {
  if (selector === undefined) return everything();
  return typeof selector === 'string' ? parseSelector(selector) : selector;
}

/** Appends the objects of `items` matching `selector` (cache.ListAll's filter). */
function filtered<T extends KubeObject>(items: readonly T[], selector: LabelSelector): T[] {
  if (selector.empty()) return items.slice();
  const out: T[] = [];
  for (const item of items) if (selector.matches(item.metadata?.labels)) out.push(item);
  return out;
}

/**
 * Every cached object matching `selector` (cache.ListAll). Objects are the cache's own (frozen).
 */
export function listAll<T extends KubeObject>(indexer: Indexer<T>, selector?: LabelSelector | string): T[] {
  return filtered(indexer.list(), toSelector(selector));
}

/**
 * Cached objects of `namespace` matching `selector` (cache.ListAllByNamespace): through the
 * namespace index when there is one, by scanning otherwise; '' means all namespaces.
 */
export function listAllByNamespace<T extends KubeObject>(indexer: Indexer<T>, namespace: string, selector?: LabelSelector | string): T[] {
  const sel = toSelector(selector);
  if (namespace === '') return filtered(indexer.list(), sel);
  if (Object.hasOwn(indexer.getIndexers(), NamespaceIndex)) return filtered(indexer.byIndex(NamespaceIndex, namespace), sel);
  return filtered(
    indexer.list().filter((o) => (o.metadata?.namespace ?? '') === namespace),
    sel,
  );
}

/** Reads one namespace of a resource (cache.GenericNamespaceLister). */
export class NamespaceLister<T extends KubeObject> {
  readonly #indexer: Indexer<T>;
  readonly #resource: GroupResource;
  readonly #namespace: string;
  constructor(indexer: Indexer<T>, resource: GroupResource, namespace: string) {
    this.#indexer = indexer;
    this.#resource = resource;
    this.#namespace = namespace;
  }

  /** Objects of this namespace matching `selector` (a LabelSelector or its string form; default all). */
  list(selector?: LabelSelector | string): T[] {
    return listAllByNamespace(this.#indexer, this.#namespace, selector);
  }

  /** The object `name` of this namespace; throws a NotFound StatusError when it is not cached. */
  get(name: string): T {
    const obj = this.#indexer.getByKey(this.#namespace === '' ? name : `${this.#namespace}/${name}`);
    if (obj === undefined) throw newNotFound(this.#resource.group, this.#resource.resource, name);
    return obj;
  }
}

/**
 * Reads a resource from an informer's cache (cache.GenericLister).
 *
 * @example
 * const pods = new Lister<Pod>(informer.getIndexer(), { group: '', resource: 'pods' });
 * const web = pods.namespace('default').list('app=web');
 */
export class Lister<T extends KubeObject> {
  readonly #indexer: Indexer<T>;
  readonly #resource: GroupResource;
  constructor(indexer: Indexer<T>, resource: GroupResource) {
    this.#indexer = indexer;
    this.#resource = resource;
  }

  /** Every cached object matching `selector` (default all), across namespaces. */
  list(selector?: LabelSelector | string): T[] {
    return listAll(this.#indexer, selector);
  }

  /** A cluster-scoped object by name; throws a NotFound StatusError when it is not cached. */
  get(name: string): T {
    const obj = this.#indexer.getByKey(name);
    if (obj === undefined) throw newNotFound(this.#resource.group, this.#resource.resource, name);
    return obj;
  }

  /** A lister for one namespace. */
  namespace(namespace: string): NamespaceLister<T> {
    return new NamespaceLister<T>(this.#indexer, this.#resource, namespace);
  }
}
