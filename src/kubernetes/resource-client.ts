/**
 * The one generic client behind every typed, dynamic and metadata client (client-go's generated
 * typed clients and dynamic.ResourceInterface share this shape): the verbs of one resource, in one
 * namespace (or cluster-wide), on plain JSON objects of type `T`.
 */
import type { Status } from '../api/meta/v1.ts';
import type { KubeList, KubeObject } from '../apimachinery/object.ts';
import type { ApplyOptions, CreateOptions, DeleteOptions, GetOptions, ListOptions, PatchOptions, PatchTypeValue, RequestOptions, UpdateOptions } from '../apimachinery/options.ts';
import type { RestClient, WatchStream } from '../rest/client.ts';
import { ResponseDecodeError } from '../rest/errors.ts';
import type { ListEnvelope } from '../rest/list-decoder.ts';
import { ListPager } from '../tools/pager/list-pager.ts';
import {
  RequestConstructionError,
  buildApply,
  buildCreate,
  buildDelete,
  buildDeleteCollection,
  buildGet,
  buildList,
  buildPatch,
  buildUpdate,
  buildWatch,
  withRequestTimeout,
  type BuildOptions,
  type ResourceLocation,
  type RestRequest,
} from '../rest/request.ts';

/** What a {@link ResourceClient} addresses. */
export interface ResourceClientOptions {
  /** API group, '' for the core group. */
  group: string;
  /** API version. */
  version: string;
  /** Plural resource name. */
  resource: string;
  /** The kind of the objects (used to complete list items); '' when unknown. */
  kind?: string;
  /** Whether objects live in namespaces. */
  namespaced: boolean;
  /** The namespace; '' (the default) means all namespaces for list/watch/deleteCollection. */
  namespace?: string;
  /** Accept headers for single objects and lists (metadata-only clients use PartialObjectMetadata). */
  accept?: {
    /** Accept header of requests returning one object. */
    object: string;
    /** Accept header of list requests. */
    list: string;
  };
  /**
   * Decode lists as client-go's UnstructuredList does (dynamic clients): items that carry neither
   * apiVersion nor kind get the list's apiVersion and its kind without the `List` suffix. Typed
   * clients (the default, false) hand items out as the server sent them: kube-apiserver leaves
   * TypeMeta out of the items of a built-in resource's list.
   */
  unstructured?: boolean;
}

/** A subresource selector accepted by the verbs that can address one (`status`, `scale`, ...). */
export interface SubresourceOption {
  /** A subresource, e.g. `status` or `scale`. */
  subresource?: string;
}

/**
 * Whatever `T` is, what an apply request may carry: the object's identity plus any subset of fields.
 * (client-go's apply configurations.)
 */
export type ApplyConfiguration<T> = {
  /** `group/version` of the object (required by the server). */
  apiVersion?: string;
  /** Kind of the object (required by the server). */
  kind?: string;
} & { [K in keyof T]?: unknown };

/**
 * Reads, lists, watches and writes one resource. Every method accepts an AbortSignal and a timeout.
 * `A` is what {@link ResourceInterface.apply} accepts: the generated deep apply configuration for
 * built-in and generated custom resources, a shallow {@link ApplyConfiguration} otherwise.
 */
export interface ResourceInterface<T, A = ApplyConfiguration<T>> {
  /** Reads one object (GET). */
  get(name: string, options?: GetOptions & SubresourceOption): Promise<T>;
  /**
   * Lists objects (GET on the collection). Items of built-in resources carry no apiVersion/kind unless
   * the client is unstructured (see {@link ResourceClientOptions.unstructured}). The body is decoded as it
   * arrives (items are parsed while the rest is on the wire), never held whole.
   */
  list(options?: ListOptions): Promise<KubeList<T>>;
  /**
   * One LIST request whose items are handed to `onItems` as they are decoded, a batch per network
   * chunk, instead of being collected (see RestClient.list); resolves with the rest of the list
   * (kind, apiVersion, metadata with the continue token). `onItems` may return a promise to pause
   * reading. Items carry apiVersion and kind only as with {@link ResourceInterface.list}.
   */
  listStream(options: ListOptions, onItems: (items: T[]) => void | PromiseLike<void>): Promise<ListEnvelope>;
  /**
   * Every object of the collection as an async iterable, each yielded as soon as it is decoded.
   * With `limit` set, the pages are requested one after another, following the continue tokens
   * (an expired token fails with the 410 Expired error, as pages already yielded cannot be taken
   * back). Breaking out of the loop abandons the request in flight.
   *
   * @example
   * for await (const pod of clientset.coreV1().pods('').listItems({ limit: 500 })) count++;
   */
  listItems(options?: ListOptions): AsyncIterable<T>;
  /**
   * Watches the collection. Resolves once the server accepted the watch (200), rejects with a
   * StatusError otherwise. ERROR events are yielded as `{ type: 'ERROR', object: Status }` — wrap the
   * stream with `raiseWatchErrors` to get them thrown as StatusErrors.
   */
  watch(options?: ListOptions): Promise<WatchStream<T>>;
  /** Creates an object (POST); a namespaced client without namespace takes the object's. */
  create(obj: T, options?: CreateOptions & SubresourceOption): Promise<T>;
  /** Replaces an object (PUT), named by `obj.metadata.name`. */
  update(obj: T, options?: UpdateOptions & SubresourceOption): Promise<T>;
  /** Replaces an object's status (PUT on /status). */
  updateStatus(obj: T, options?: UpdateOptions): Promise<T>;
  /** Patches an object with a JSON, merge, strategic-merge or apply patch. */
  patch(name: string, patchType: PatchTypeValue, patch: unknown, options?: PatchOptions & SubresourceOption): Promise<T>;
  /** Server-side apply of `obj` (named by `obj.metadata.name`); `fieldManager` is required. */
  apply(obj: A, options: ApplyOptions): Promise<T>;
  /** Server-side apply to the status subresource. */
  applyStatus(obj: A, options: ApplyOptions): Promise<T>;
  /** Deletes an object. Resolves with what the server returned: a Status, or the object while it is being finalized. */
  delete(name: string, options?: DeleteOptions): Promise<Status | T>;
  /** Deletes every object matching `listOptions`. */
  deleteCollection(options?: DeleteOptions, listOptions?: ListOptions): Promise<void>;
}

function nameOfObject(obj: unknown, verb: string): string {
  const name = (obj as KubeObject | undefined)?.metadata?.name;
  if (name === undefined || name === '') throw new RequestConstructionError(`${verb} needs metadata.name on the object`);
  return name;
}

/**
 * Gives the items of an unstructured list that lack both apiVersion and kind the list's, as
 * unstructuredJSONScheme.decodeToList does (apimachinery `pkg/apis/meta/v1/unstructured/helpers.go`); the
 * item kind is the list's kind without its "List" suffix. Mutates the items; skips anything not an object.
 */
export function completeItems<T>(items: readonly T[], listApiVersion: string | undefined, listKind: string | undefined): void {
  const apiVersion = listApiVersion ?? '';
  const kind = (listKind ?? '').replace(/List$/, '');
  for (let i = 0; i < items.length; i++) {
    const o = items[i] as KubeObject;
    if (o === null || typeof o !== 'object') continue;
    if ((o.kind === undefined || o.kind === '') && (o.apiVersion === undefined || o.apiVersion === '')) {
      o.kind = kind;
      o.apiVersion = apiVersion;
    }
  }
}

/**
 * Checks a decoded list's items: missing or null items mean an empty list; items that are not an array
 * throw {@link ResponseDecodeError}, as decoding fails in client-go (taking them for an empty list would
 * make an informer drop its whole cache). With `unstructured`, items get TypeMeta by
 * {@link completeItems}. Mutates and returns `list`.
 */
export function completeListItems<T>(list: KubeList<T>, unstructured: boolean): KubeList<T> {
  const items: unknown = list.items;
  if (items === undefined || items === null) list.items = [];
  else if (!Array.isArray(items)) throw new ResponseDecodeError(`${list.kind ?? 'object'}: items is ${typeof items}, not an array`);
  if (unstructured) completeItems(list.items, list.apiVersion, list.kind);
  return list;
}

/**
 * The generic {@link ResourceInterface} implementation. The typed clientset hands out instances
 * whose type adds the resource's subresource methods (`getScale`, `createEviction`, `getLog` ...),
 * which are built on the `*Subresource` methods here.
 */
export class ResourceClient<T, A = ApplyConfiguration<T>> implements ResourceInterface<T, A> {
  /** The client requests go through. */
  readonly rest: RestClient;
  /** API group, '' for the core group. */
  readonly group: string;
  /** API version. */
  readonly version: string;
  /** Plural resource name. */
  readonly resource: string;
  /** Kind of the objects. */
  readonly kind: string;
  /** Whether objects live in namespaces. */
  readonly namespaced: boolean;
  /** The namespace requests go to; '' for cluster-scoped clients and all-namespace clients. */
  readonly targetNamespace: string;
  /** Lists are decoded as unstructured lists (see {@link ResourceClientOptions.unstructured}). */
  readonly unstructured: boolean;
  readonly #object: BuildOptions;
  readonly #list: BuildOptions;

  constructor(rest: RestClient, options: ResourceClientOptions) {
    this.rest = rest;
    this.group = options.group;
    this.version = options.version;
    this.resource = options.resource;
    this.kind = options.kind ?? '';
    this.namespaced = options.namespaced;
    this.targetNamespace = options.namespaced ? (options.namespace ?? '') : '';
    this.unstructured = options.unstructured ?? false;
    this.#object = options.accept !== undefined ? { accept: options.accept.object } : {};
    this.#list = options.accept !== undefined ? { accept: options.accept.list } : {};
  }

  /** The same resource in another namespace ('' = all namespaces). */
  inNamespace(namespace: string): ResourceClient<T, A> {
    const opts: ResourceClientOptions = { group: this.group, version: this.version, resource: this.resource, kind: this.kind, namespaced: this.namespaced, namespace, unstructured: this.unstructured };
    if (this.#object.accept !== undefined && this.#list.accept !== undefined) opts.accept = { object: this.#object.accept, list: this.#list.accept };
    return new ResourceClient<T, A>(this.rest, opts);
  }

  #loc(name?: string, subresource?: string, namespace = this.targetNamespace): ResourceLocation {
    const loc: ResourceLocation = { group: this.group, version: this.version, resource: this.resource };
    if (this.namespaced && namespace !== '') loc.namespace = namespace;
    if (name !== undefined) {
      if (this.namespaced && namespace === '') throw new RequestConstructionError(`${this.resource} "${name}": a namespace is required for a namespaced resource`);
      loc.name = name;
    }
    if (subresource !== undefined && subresource !== '') loc.subresource = subresource;
    return loc;
  }

  #nsFor(obj: unknown): string {
    if (!this.namespaced) return '';
    const own = (obj as KubeObject | undefined)?.metadata?.namespace ?? '';
    if (this.targetNamespace !== '' && own !== '' && own !== this.targetNamespace) {
      throw new RequestConstructionError(`the namespace of the object (${own}) does not match the namespace of the client (${this.targetNamespace})`);
    }
    return this.targetNamespace !== '' ? this.targetNamespace : own;
  }

  async get(name: string, options: GetOptions & SubresourceOption = {}): Promise<T> {
    return this.rest.json<T>(buildGet(this.#loc(name, options.subresource), options, this.#object), options);
  }

  /**
   * `req` with the request timeout client-go's clients give it from the ListOptions' `timeoutSeconds`
   * (Request.Timeout, 0 when unset, which replaces the config's timeout as what the server is told):
   * a typed client does so for List, Watch and DeleteCollection (gentype/type.go), the metadata
   * client for Watch only (metadata/metadata.go); the dynamic client never does (dynamic/simple.go),
   * so its requests carry the config's timeout.
   */
  #timeoutFromListOptions(req: RestRequest, options: ListOptions, verb: 'list' | 'watch' | 'deletecollection'): RestRequest {
    if (this.unstructured) return req;
    if (this.#object.accept !== undefined && verb !== 'watch') return req;
    return withRequestTimeout(req, (options.timeoutSeconds ?? 0) * 1000);
  }

  async list(options: ListOptions = {}): Promise<KubeList<T>> {
    const items: T[] = [];
    const envelope = await this.rest.list<T>(
      this.#timeoutFromListOptions(buildList(this.#loc(), options, this.#list), options, 'list'),
      (batch) => {
        for (let i = 0; i < batch.length; i++) items.push(batch[i]!);
      },
      options,
    );
    const list = { ...envelope, items } as KubeList<T>;
    if (this.unstructured) completeItems(items, list.apiVersion, list.kind);
    return list;
  }

  async listStream(options: ListOptions, onItems: (items: T[]) => void | PromiseLike<void>): Promise<ListEnvelope> {
    if (!this.unstructured) return this.rest.list<T>(this.#timeoutFromListOptions(buildList(this.#loc(), options, this.#list), options, 'list'), onItems, options);
    // Unstructured items wait for the list's kind and apiVersion, which an API server writes before them.
    let waiting: T[] = [];
    const envelope = await this.rest.list<T>(
      buildList(this.#loc(), options, this.#list),
      (batch, members) => {
        if (members.kind === undefined || members.apiVersion === undefined) {
          for (const item of batch) waiting.push(item);
          return;
        }
        if (waiting.length > 0) {
          batch = [...waiting, ...batch];
          waiting = [];
        }
        completeItems(batch, members.apiVersion, members.kind);
        return onItems(batch);
      },
      options,
    );
    if (waiting.length > 0) {
      completeItems(waiting, envelope.apiVersion, envelope.kind);
      await onItems(waiting);
    }
    return envelope;
  }

  listItems(options: ListOptions = {}): AsyncIterable<T> {
    // Unpaginated unless the caller sets a limit, as list(): streaming needs no pages to bound memory.
    const pager = new ListPager<T>((o) => this.list(o), { pageSize: 0, streamPageFn: (o, onItems) => this.listStream(o, onItems) });
    return pager.items(options);
  }

  async watch(options: ListOptions = {}): Promise<WatchStream<T>> {
    return this.rest.watch<T>(this.#timeoutFromListOptions(buildWatch(this.#loc(), options, this.#object), options, 'watch'), options);
  }

  async create(obj: T, options: CreateOptions & SubresourceOption = {}): Promise<T> {
    const ns = this.#nsFor(obj);
    if (this.namespaced && ns === '') throw new RequestConstructionError(`creating ${this.resource} needs a namespace`);
    const loc = options.subresource !== undefined ? this.#loc(nameOfObject(obj, 'create'), options.subresource, ns) : this.#loc(undefined, undefined, ns);
    return this.rest.json<T>(buildCreate(loc, obj, options, this.#object), options);
  }

  async update(obj: T, options: UpdateOptions & SubresourceOption = {}): Promise<T> {
    return this.rest.json<T>(buildUpdate(this.#loc(nameOfObject(obj, 'update'), options.subresource, this.#nsFor(obj)), obj, options, this.#object), options);
  }

  async updateStatus(obj: T, options: UpdateOptions = {}): Promise<T> {
    return this.update(obj, { ...options, subresource: 'status' });
  }

  async patch(name: string, patchType: PatchTypeValue, patch: unknown, options: PatchOptions & SubresourceOption = {}): Promise<T> {
    return this.rest.json<T>(buildPatch(this.#loc(name, options.subresource), patchType, patch, options, this.#object), options);
  }

  async apply(obj: A, options: ApplyOptions): Promise<T> {
    return this.#apply(obj, options, undefined);
  }

  async applyStatus(obj: A, options: ApplyOptions): Promise<T> {
    return this.#apply(obj, options, 'status');
  }

  async #apply(obj: unknown, options: ApplyOptions, subresource: string | undefined): Promise<T> {
    const loc = this.#loc(nameOfObject(obj, 'apply'), subresource, this.#nsFor(obj));
    return this.rest.json<T>(buildApply(loc, obj, options, this.#object), options);
  }

  /** Reads a subresource of object `name` (GET .../name/subresource) as JSON of type `S`. */
  async getSubresource<S>(name: string, subresource: string, options: GetOptions = {}): Promise<S> {
    return this.rest.json<S>(buildGet(this.#loc(name, subresource), options, this.#object), options);
  }

  /**
   * Reads a plain-text subresource (pods/log): `query` holds its parameters, sent as given
   * (`undefined` and `false` left out, as client-go's parameter codec does for omitempty fields).
   */
  async getSubresourceText(name: string, subresource: string, query: Record<string, string | number | boolean | undefined> = {}, options: RequestOptions = {}): Promise<string> {
    const req = buildGet(this.#loc(name, subresource), {}, { accept: '*/*' });
    for (const key of Object.keys(query).sort()) {
      const value = query[key];
      if (value === undefined || value === false || value === '') continue;
      req.query.push([key, String(value)]);
    }
    const resp = await this.rest.do(req, options);
    return resp.body.toString('utf8');
  }

  /** Creates `body` in a subresource of object `name` (POST .../name/subresource: eviction, binding, token). */
  async createSubresource<S, R = S>(name: string, subresource: string, body: S, options: CreateOptions = {}): Promise<R> {
    return this.rest.json<R>(buildCreate(this.#loc(name, subresource, this.#nsFor(body)), body, options, this.#object), options);
  }

  /** Replaces a subresource of object `name` with `body` (PUT .../name/subresource). */
  async updateSubresource<S>(name: string, subresource: string, body: S, options: UpdateOptions = {}): Promise<S> {
    return this.rest.json<S>(buildUpdate(this.#loc(name, subresource, this.#nsFor(body)), body, options, this.#object), options);
  }

  /** Patches a subresource of object `name`; the result has the subresource's type `S`. */
  async patchSubresource<S>(name: string, subresource: string, patchType: PatchTypeValue, patch: unknown, options: PatchOptions = {}): Promise<S> {
    return this.rest.json<S>(buildPatch(this.#loc(name, subresource), patchType, patch, options, this.#object), options);
  }

  /** Server-side apply of `body` to a subresource of object `name` (`fieldManager` is required). */
  async applySubresource<S, R = S>(name: string, subresource: string, body: S, options: ApplyOptions): Promise<R> {
    return this.rest.json<R>(buildApply(this.#loc(name, subresource, this.#nsFor(body)), body, options, this.#object), options);
  }

  async delete(name: string, options: DeleteOptions = {}): Promise<Status | T> {
    return this.rest.json<Status | T>(buildDelete(this.#loc(name), options, this.#object), options);
  }

  async deleteCollection(options: DeleteOptions = {}, listOptions: ListOptions = {}): Promise<void> {
    await this.rest.do(this.#timeoutFromListOptions(buildDeleteCollection(this.#loc(), options, listOptions, this.#list), listOptions, 'deletecollection'), { ...listOptions, ...options });
  }
}
