/**
 * How the controllers running inside the server reach the API: through the same registry code an HTTP
 * request goes through (NamespaceLifecycle admission, create and update strategies, deletion with its
 * finalizers, managedFields under the controller's manager name), without the network, authentication or
 * webhooks — as kube-apiserver's own post-start hooks use a loopback client. Every call is synchronous, so
 * a read-modify-write cannot conflict.
 *
 * Resolving an apiVersion and kind to a resource is the RESTMapper's job upstream: a version that is not
 * served does not resolve ({@link RestMappingError}), as a NoKindMatchError.
 */
import type { OwnerReference } from '../../api/meta/v1.ts';
import { KubeloomError } from '../../apimachinery/errors.ts';
import { admitNamespaceLifecycle } from '../admission/namespace-lifecycle.ts';
import { createInternal, createTracker } from '../handlers/create.ts';
import { typedObject } from '../handlers/request-body.ts';
import type { RequestScope, Target } from '../handlers/scope.ts';
import { updateInternal } from '../handlers/update.ts';
import { isObject, metaOf } from '../object-meta.ts';
import { apiVersionString, storageKey, type ApiResource, type ServedGroup } from '../resources.ts';
import { deleteObject, deleteStored, type DeleteResult } from '../registry/delete.ts';
import type { DeleteOptions } from '../registry/generic/garbage-collection-policy.ts';

type Obj = Record<string, unknown>;

/** An apiVersion and kind that no served resource has (upstream: a NoKindMatchError from the RESTMapper). */
export class RestMappingError extends KubeloomError {
  constructor(apiVersion: string, kind: string) {
    super('ERR_REST_MAPPING', `unable to get REST mapping for ${kind}.${apiVersion}.`);
  }
}

/**
 * The owner references of an object that name something: kube-apiserver refuses references without
 * apiVersion, kind, name or uid, which this server does not validate, so the controllers skip them.
 */
export function ownerReferencesOf(obj: Obj): OwnerReference[] {
  const refs = metaOf(obj).ownerReferences;
  if (!Array.isArray(refs)) return [];
  const named = (v: unknown): boolean => typeof v === 'string' && v !== '';
  return refs.filter((r): r is OwnerReference => isObject(r) && named(r.apiVersion) && named(r.kind) && named(r.name) && named(r.uid));
}

/** A client of the server's registry for one controller (its writes are recorded under `manager`). */
export class LoopbackClient {
  readonly #scope: RequestScope;
  readonly #manager: string;
  // Store → its preferred entry; every CRD write may change what is served, so it empties the cache.
  readonly #preferred = new Map<string, ApiResource | undefined>();

  constructor(scope: RequestScope, manager: string) {
    this.#scope = scope;
    this.#manager = manager;
    scope.storage.subscribe(storageKey('apiextensions.k8s.io', 'customresourcedefinitions'), () => this.#preferred.clear());
  }

  /** The server's state, for controllers that subscribe to storage changes. */
  get scope(): RequestScope {
    return this.#scope;
  }

  /** The served resource of an apiVersion and kind; throws {@link RestMappingError} when none is. */
  resourceFor(apiVersion: string, kind: string): ApiResource {
    const slash = apiVersion.indexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    for (const r of this.#scope.registry.resources(group, version)) if (r.kind === kind) return r;
    throw new RestMappingError(apiVersion, kind);
  }

  /**
   * The preferred version's entry of a stored resource (what discovery's preferred resources list), or
   * undefined when the store is no longer served (a CRD went away).
   */
  preferredResource(store: string): ApiResource | undefined {
    if (this.#preferred.has(store)) return this.#preferred.get(store);
    const r = this.#findPreferred(store);
    this.#preferred.set(store, r);
    return r;
  }

  #findPreferred(store: string): ApiResource | undefined {
    return this.#choosePreferred(
      this.#scope.registry.all().filter((r) => storageKey(r.group, r.resource) === store),
      () => this.#scope.registry.groups(),
    );
  }

  // The entry of the group's preferred version among the entries of one store.
  #choosePreferred(matching: readonly ApiResource[], groups: () => ServedGroup[]): ApiResource | undefined {
    const first = matching[0];
    if (first === undefined) return undefined;
    if (first.group === '') return first;
    const versions = groups().find((g) => g.name === first.group)?.versions ?? [];
    for (const v of versions) {
      const r = matching.find((m) => m.version === v);
      if (r !== undefined) return r;
    }
    return first;
  }

  /** Every served resource once, in its preferred version. */
  preferredResources(): ApiResource[] {
    // One pass over the registry for every store, rather than one per store.
    const byStore = new Map<string, ApiResource[]>();
    for (const r of this.#scope.registry.all()) {
      const store = storageKey(r.group, r.resource);
      const list = byStore.get(store);
      if (list === undefined) byStore.set(store, [r]);
      else list.push(r);
    }
    let groups: ServedGroup[] | undefined;
    const servedGroups = (): ServedGroup[] => (groups ??= this.#scope.registry.groups());
    const out: ApiResource[] = [];
    for (const [store, matching] of byStore) {
      let preferred: ApiResource | undefined;
      if (this.#preferred.has(store)) preferred = this.#preferred.get(store);
      else {
        preferred = this.#choosePreferred(matching, servedGroups);
        this.#preferred.set(store, preferred);
      }
      if (preferred !== undefined) out.push(preferred);
    }
    return out;
  }

  /** The stored object, or undefined. */
  get(r: ApiResource, namespace: string, name: string): Obj | undefined {
    return this.#scope.storage.get(storageKey(r.group, r.resource), r.namespaced ? `${namespace}/${name}` : name)?.obj;
  }

  /** The objects of a resource (in one namespace, or all). */
  list(r: ApiResource, namespace = ''): Obj[] {
    const storage = this.#scope.storage;
    return storage.listAt(storageKey(r.group, r.resource), storage.revision, { namespace }).map((s) => s.obj);
  }

  /** DELETE of one object; throws the Status an HTTP client would get (404, 409, ...). */
  delete(r: ApiResource, namespace: string, name: string, options: DeleteOptions): DeleteResult {
    admitNamespaceLifecycle(this.#scope.storage, { operation: 'DELETE', group: r.group, resource: r.resource, namespace, name });
    return deleteObject(this.#scope, r, r.namespaced ? namespace : '', name, options, false);
  }

  /** DELETE of every object of a resource in a namespace; returns how many were there. */
  deleteCollection(r: ApiResource, namespace: string, options: DeleteOptions): number {
    const storage = this.#scope.storage;
    const items = storage.listAt(storageKey(r.group, r.resource), storage.revision, { namespace });
    for (const s of items) deleteStored(this.#scope, r, s, options, false);
    return items.length;
  }

  /**
   * Read-modify-write of one object (or its `status` / `finalize` subresource): `mutate` gets a copy and
   * returns the object to write, or undefined to write nothing. Returns the result, undefined when the
   * object does not exist or nothing was written.
   */
  update(r: ApiResource, namespace: string, name: string, mutate: (obj: Obj) => Obj | undefined, subresource?: 'status' | 'finalize'): Obj | undefined {
    const ns = r.namespaced ? namespace : '';
    const existing = this.#scope.storage.get(storageKey(r.group, r.resource), ns === '' ? name : `${ns}/${name}`);
    if (existing === undefined) return undefined;
    const candidate = mutate(structuredClone(existing.obj));
    if (candidate === undefined) return undefined;
    const t: Target = { r, namespace: ns, name, subresource, watchPath: false };
    return JSON.parse(updateInternal(this.#scope, t, existing, candidate, this.#manager)) as Obj;
  }

  /**
   * Read-modify-write as {@link update}, for the hot paths of the stand-ins (a pod's status, a node's
   * Lease): `next` gets the stored object itself, which it must not change, and returns a new object
   * that shares the parts it keeps (`{ ...o, status }`), or undefined to write nothing. No copy is made
   * and the result is not decoded: managedFields then compare only the replaced parts (unchanged
   * subtrees are the same objects). Custom resources are copied first, as their schema's decoding
   * rewrites the candidate in place. Returns whether the object existed and was written (or was a no-op).
   */
  modify(r: ApiResource, namespace: string, name: string, next: (obj: Readonly<Obj>) => Obj | undefined, subresource?: 'status' | 'finalize'): boolean {
    const ns = r.namespaced ? namespace : '';
    const existing = this.#scope.storage.get(storageKey(r.group, r.resource), ns === '' ? name : `${ns}/${name}`);
    if (existing === undefined) return false;
    const candidate = next(r.schema === undefined ? existing.obj : structuredClone(existing.obj));
    if (candidate === undefined) return false;
    updateInternal(this.#scope, { r, namespace: ns, name, subresource, watchPath: false }, existing, candidate, this.#manager);
    return true;
  }

  /** CREATE of one object, as a POST of it would. */
  create(r: ApiResource, namespace: string, obj: Obj): Obj {
    const ns = r.namespaced ? namespace : '';
    const body: Obj = { ...structuredClone(obj), apiVersion: apiVersionString(r.group, r.version), kind: r.kind };
    const t: Target = { r, namespace: ns, name: undefined, subresource: undefined, watchPath: false };
    return JSON.parse(createInternal(this.#scope, t, typedObject(t, body), createTracker(this.#scope, t, this.#manager))) as Obj;
  }
}
