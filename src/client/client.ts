/**
 * The manager's client (controller-runtime pkg/client: client.go, typed_client.go, and the delegating
 * client that cluster.New builds): reads come from the shared {@link InformerCache}, writes (create,
 * update, patch, apply, delete, deleteAllOf, status and other subresources) go to the API server. Every
 * method names the kind with a {@link ResourceKind} descriptor (`kinds.appsV1.deployments`, or a
 * `kubeloom generate crd` registration), so objects are typed end to end.
 *
 * Read-your-writes, which controller-runtime lacks (its users hit stale reads right after their own
 * writes): after a write returns an object at resourceVersion R, a cached `get` of that object waits,
 * at most `readYourWritesTimeoutMs`, until the cache holds it at R or newer, and otherwise returns the
 * written object (or NotFound after a delete); a cached `list` waits the same way for the objects this
 * client wrote, then overlays the writes the cache has not caught up with. The Java Operator SDK added
 * the same in 5.3. Reads through `uncached` (client.Reader of `mgr.GetAPIReader()`) go to the server.
 */
import type { DeepReadonly } from './deep-copy.ts';
import type { Status } from '../api/meta/v1.ts';
import { KubeloomError, newNotFound, statusOf } from '../apimachinery/errors.ts';
import { parseSelector } from '../apimachinery/labels.ts';
import type { KubeObject } from '../apimachinery/object.ts';
import type { ApplyOptions, CreateOptions, DeleteOptions, GetOptions, ListOptions, PatchOptions, PatchTypeValue, UpdateOptions } from '../apimachinery/options.ts';
import { ResourceClient } from '../kubernetes/resource-client.ts';
import type { RestClient } from '../rest/client.ts';
import { realClock, type Clock } from '../util/clock/clock.ts';
import { InformerCache, isMetadataKind } from '../cache/cache.ts';
import { compareResourceVersions } from '../cache/resource-version.ts';
import { apiVersionOfKind, kindKey, type ResourceKind } from './kinds.ts';

/** Names one object: namespace ('' or unset for cluster-scoped) and name (client.ObjectKey). */
export interface ObjectKey {
  /** The namespace ('' or unset for a cluster-scoped object). */
  namespace?: string;
  /** The name. */
  name: string;
}

/** Options of {@link Client.get}. */
export interface ClientGetOptions extends GetOptions {
  /** Read from the API server instead of the cache. */
  uncached?: boolean;
}

/** Options of {@link Client.list} (client.ListOptions). */
export interface ClientListOptions extends Omit<ListOptions, 'labelSelector' | 'fieldSelector'> {
  /** Only this namespace ('' or unset: all). */
  namespace?: string;
  /** Label selector, e.g. `app=web`. */
  labelSelector?: string;
  /** Field selector; from the cache only `field=value` on indexed fields (see InformerCache.indexField). */
  fieldSelector?: string;
  /** Read from the API server instead of the cache. */
  uncached?: boolean;
}

/** Options of {@link Client.deleteAllOf} (client.DeleteAllOfOptions). */
export interface DeleteAllOfOptions extends DeleteOptions {
  /** The namespace (required for namespaced kinds; '' for cluster-scoped). */
  namespace?: string;
  /** Only objects matching this label selector. */
  labelSelector?: string;
  /** Only objects matching this field selector. */
  fieldSelector?: string;
}

/** Reports each request sent to the API server (feeds `rest_client_requests_total`). */
export type RequestObserver = (method: string, code: string) => void;

/** Options of a {@link Client}. */
export interface ClientOptions {
  /** Where writes (and uncached reads) go. */
  rest: RestClient;
  /** Where reads come from; without one, every read goes to the server (client.New without a cache). */
  cache?: InformerCache;
  /** Kinds always read from the server (client.CacheOptions.DisableFor). */
  uncachedKinds?: ReadonlyArray<ResourceKind<unknown, unknown>>;
  /**
   * How long a cached read after this client's own write waits for the cache to catch up before it
   * answers with the written object. Default 5,000 ms; 0 disables read-your-writes (reads are then as
   * stale as controller-runtime's).
   */
  readYourWritesTimeoutMs?: number;
  /** Field manager of writes that do not name one (client.WithFieldOwner). Default: none (the server's). */
  fieldOwner?: string;
  /** Time source of the read-your-writes bound. Default: the real clock. */
  clock?: Clock;
  /** Called after every request to the server with its method and HTTP code. */
  onRequest?: RequestObserver;
  /**
   * Once aborted, read-your-writes waits end at once (pending and later ones), and reads answer with
   * the written object. The Manager aborts it when it starts stopping, so a reconcile finishing during
   * shutdown does not hold the stop for `readYourWritesTimeoutMs`.
   */
  stopSignal?: AbortSignal;
}

/** A write {@link Client} was asked to make is malformed (no name, wrong kind). */
export class ClientRequestError extends KubeloomError {
  constructor(message: string) {
    super('ERR_CLIENT_REQUEST', message);
  }
}

interface Written {
  readonly kind: ResourceKind<unknown, unknown>;
  readonly namespace: string;
  readonly name: string;
  readonly resourceVersion: string;
  /** The object as the server returned it; undefined after a delete that removed it. */
  readonly object: KubeObject | undefined;
}

const objKey = (kind: ResourceKind<unknown, unknown>, namespace: string, name: string): string => `${kindKey(kind)}|${kind.namespaced ? namespace : ''}|${name}`;

function nameOf(obj: KubeObject | ObjectKey): { namespace: string; name: string } {
  if ('metadata' in obj || !('name' in obj)) {
    const meta = (obj as KubeObject).metadata;
    return { namespace: meta?.namespace ?? '', name: meta?.name ?? '' };
  }
  return { namespace: (obj as ObjectKey).namespace ?? '', name: (obj as ObjectKey).name };
}

function codeOf(err: unknown): string {
  const status = statusOf(err);
  return status?.code !== undefined ? String(status.code) : '<error>';
}

/**
 * Reads from the cache, writes to the server (client.Client).
 *
 * @example
 * const deployment = await client.get(kinds.appsV1.deployments, { namespace: 'default', name: 'web' });
 * const copy = structuredClone(deployment);
 * copy.spec!.replicas = 3;
 * await client.update(kinds.appsV1.deployments, copy);
 * // read-your-writes: this sees replicas 3 even if the watch is behind
 * const again = await client.get(kinds.appsV1.deployments, { namespace: 'default', name: 'web' });
 */
export class Client {
  readonly #rest: RestClient;
  readonly #cache: InformerCache | undefined;
  readonly #uncachedKinds: Set<string>;
  readonly #rywMs: number;
  readonly #fieldOwner: string | undefined;
  readonly #clock: Clock;
  readonly #onRequest: RequestObserver | undefined;
  readonly #stopSignal: AbortSignal | undefined;
  // Objects this client wrote whose version the cache has not yet been seen to hold.
  readonly #written = new Map<string, Written>();

  constructor(options: ClientOptions) {
    this.#rest = options.rest;
    this.#cache = options.cache;
    this.#uncachedKinds = new Set((options.uncachedKinds ?? []).map((k) => kindKey(k)));
    this.#rywMs = options.readYourWritesTimeoutMs ?? 5_000;
    this.#fieldOwner = options.fieldOwner;
    this.#clock = options.clock ?? realClock;
    this.#onRequest = options.onRequest;
    this.#stopSignal = options.stopSignal;
  }

  /** The REST client writes go through. */
  get rest(): RestClient {
    return this.#rest;
  }

  /** The cache reads come from (undefined for an uncached client). */
  get cache(): InformerCache | undefined {
    return this.#cache;
  }

  #resource<T>(kind: ResourceKind<T, unknown>, namespace: string): ResourceClient<T, unknown> {
    return new ResourceClient<T, unknown>(this.#rest, { group: kind.group, version: kind.version, resource: kind.resource, kind: kind.kind, namespaced: kind.namespaced, namespace: kind.namespaced ? namespace : '' });
  }

  async #call<R>(method: string, fn: () => Promise<R>): Promise<R> {
    try {
      const out = await fn();
      this.#onRequest?.(method, method === 'POST' ? '201' : '200');
      return out;
    } catch (err) {
      this.#onRequest?.(method, codeOf(err));
      throw err;
    }
  }

  #cached(kind: ResourceKind<unknown, unknown>, uncached: boolean | undefined): InformerCache | undefined {
    if (uncached === true || this.#cache === undefined || this.#uncachedKinds.has(kindKey(kind))) return undefined;
    return this.#cache;
  }

  /**
   * Reads one object: from the cache, or the server. A cached object is the cache's own and deeply
   * frozen, so it is typed {@link DeepReadonly}: change a copy (`deepCopy(obj)`), not the object. With
   * `uncached: true` the object is the server's answer, a fresh one, typed mutable.
   */
  get<T extends KubeObject>(kind: ResourceKind<T, unknown>, key: ObjectKey, options: ClientGetOptions & { uncached: true }): Promise<T>;
  get<T extends KubeObject>(kind: ResourceKind<T, unknown>, key: ObjectKey, options?: ClientGetOptions): Promise<DeepReadonly<T>>;
  async get<T extends KubeObject>(kind: ResourceKind<T, unknown>, key: ObjectKey, options: ClientGetOptions = {}): Promise<T | DeepReadonly<T>> {
    const namespace = kind.namespaced ? (key.namespace ?? '') : '';
    const cache = this.#cached(kind, options.uncached);
    if (cache === undefined) {
      const { uncached: _u, ...rest } = options;
      return this.#call('GET', () => this.#resource(kind, namespace).get(key.name, rest));
    }
    const k = objKey(kind, namespace, key.name);
    const written = this.#written.get(k);
    if (written !== undefined) {
      await cache.ensureReadable(kind as ResourceKind<KubeObject, unknown>, options.signal);
      const caughtUp = await this.#catchUp(cache, written, options.signal);
      if (!caughtUp) {
        if (written.object === undefined) throw newNotFound(kind.group, kind.resource, key.name);
        return written.object as T;
      }
    }
    return cache.get(kind, { namespace, name: key.name }, options.signal !== undefined ? { signal: options.signal } : {});
  }

  /**
   * Lists objects: from the cache (frozen objects, typed {@link DeepReadonly}: copy with `deepCopy`
   * before changing one), or, with `uncached: true`, from the server (fresh objects, typed mutable).
   */
  list<T extends KubeObject>(kind: ResourceKind<T, unknown>, options: ClientListOptions & { uncached: true }): Promise<T[]>;
  list<T extends KubeObject>(kind: ResourceKind<T, unknown>, options?: ClientListOptions): Promise<Array<DeepReadonly<T>>>;
  async list<T extends KubeObject>(kind: ResourceKind<T, unknown>, options: ClientListOptions = {}): Promise<T[] | Array<DeepReadonly<T>>> {
    const namespace = kind.namespaced ? (options.namespace ?? '') : '';
    const cache = this.#cached(kind, options.uncached);
    if (cache === undefined) {
      const { uncached: _u, namespace: _n, ...rest } = options;
      const list = await this.#call('GET', () => this.#resource(kind, namespace).list(rest));
      return list.items;
    }
    const kk = kindKey(kind);
    await cache.ensureReadable(kind as ResourceKind<KubeObject, unknown>, options.signal);
    const pending = [...this.#written.values()].filter((w) => kindKey(w.kind) === kk && isMetadataKind(w.kind) === isMetadataKind(kind) && (namespace === '' || w.namespace === namespace));
    const behind: Written[] = [];
    const deadline = this.#clock.now() + this.#rywMs;
    for (const w of pending) if (!(await this.#catchUp(cache, w, options.signal, Math.max(0, deadline - this.#clock.now())))) behind.push(w);
    const listOptions = {
      ...(namespace !== '' ? { namespace } : {}),
      ...(options.labelSelector !== undefined ? { labelSelector: options.labelSelector } : {}),
      ...(options.fieldSelector !== undefined ? { fieldSelector: options.fieldSelector } : {}),
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
    };
    const items = await cache.list(kind, listOptions);
    if (behind.length === 0) return items;
    // Overlay the writes the cache has not caught up with (label selectors are applied to them too).
    const labels = options.labelSelector !== undefined ? parseSelector(options.labelSelector) : undefined;
    const byKey = new Map(items.map((o) => [objKey(kind, o.metadata?.namespace ?? '', o.metadata?.name ?? ''), o] as const));
    for (const w of behind) {
      const k = objKey(kind, w.namespace, w.name);
      if (w.object === undefined || (labels !== undefined && !labels.matches(w.object.metadata?.labels))) byKey.delete(k);
      else byKey.set(k, w.object as T);
    }
    return [...byKey.values()];
  }

  /** Waits for the cache to hold `w` (bounded); forgets `w` once it does. */
  async #catchUp(cache: InformerCache, w: Written, signal?: AbortSignal, timeoutMs = this.#rywMs): Promise<boolean> {
    const k = objKey(w.kind, w.namespace, w.name);
    if (this.#stopSignal !== undefined) {
      if (this.#stopSignal.aborted) timeoutMs = 0;
      else signal = signal === undefined ? this.#stopSignal : AbortSignal.any([signal, this.#stopSignal]);
    }
    const ok = await cache.waitForVersion(w.kind, w.namespace, w.name, w.resourceVersion, { timeoutMs, clock: this.#clock, deleted: w.object === undefined, ...(signal !== undefined ? { signal } : {}) });
    if (ok && this.#written.get(k) === w) this.#written.delete(k);
    return ok;
  }

  #remember(kind: ResourceKind<unknown, unknown>, namespace: string, name: string, result: KubeObject | undefined, deletedRv?: string): void {
    if (this.#rywMs <= 0 || this.#cache === undefined || this.#uncachedKinds.has(kindKey(kind))) return;
    const rv = result?.metadata?.resourceVersion ?? deletedRv ?? '';
    const entry: Written = { kind, namespace: kind.namespaced ? namespace : '', name, resourceVersion: rv, object: deletedRv !== undefined ? undefined : result };
    this.#written.set(objKey(kind, entry.namespace, name), entry);
    // Keep the map small: drop what the cache already holds.
    if (this.#written.size > 1024) {
      for (const [k, w] of this.#written) {
        const cached = this.#cache.peek(w.kind as ResourceKind<KubeObject, unknown>, w.namespace, w.name);
        const cmp = cached === undefined ? undefined : compareResourceVersions(cached.metadata?.resourceVersion ?? '', w.resourceVersion);
        if ((w.object === undefined && cached === undefined) || (w.object !== undefined && cmp !== undefined && cmp >= 0)) this.#written.delete(k);
      }
    }
  }

  #withOwner<O extends { fieldManager?: string }>(options: O): O {
    return this.#fieldOwner !== undefined && options.fieldManager === undefined ? { ...options, fieldManager: this.#fieldOwner } : options;
  }

  /** Creates `obj` (in its own namespace) and returns what the server stored. */
  async create<T extends KubeObject>(kind: ResourceKind<T, unknown>, obj: T, options: CreateOptions = {}): Promise<T> {
    const { namespace } = nameOf(obj);
    const out = await this.#call('POST', () => this.#resource(kind, namespace).create(obj, this.#withOwner(options)));
    this.#remember(kind, out.metadata?.namespace ?? namespace, out.metadata?.name ?? '', out);
    return out;
  }

  /** Replaces `obj` (optimistic concurrency on its resourceVersion). */
  async update<T extends KubeObject>(kind: ResourceKind<T, unknown>, obj: T, options: UpdateOptions = {}): Promise<T> {
    return this.#update(kind, obj, options, undefined);
  }

  async #update<T extends KubeObject>(kind: ResourceKind<T, unknown>, obj: T, options: UpdateOptions, subresource: string | undefined): Promise<T> {
    const { namespace, name } = nameOf(obj);
    const client = this.#resource(kind, namespace);
    const out = await this.#call('PUT', () => client.update(obj, { ...this.#withOwner(options), ...(subresource !== undefined ? { subresource } : {}) }));
    this.#remember(kind, namespace, name, out);
    return out;
  }

  /** Patches the object named by `target` (an object or a key). */
  async patch<T extends KubeObject>(kind: ResourceKind<T, unknown>, target: T | ObjectKey, patchType: PatchTypeValue, patch: unknown, options: PatchOptions & { subresource?: string } = {}): Promise<T> {
    const { namespace, name } = nameOf(target);
    if (name === '') throw new ClientRequestError(`patch of ${kind.kind}: the object has no name`);
    const out = await this.#call('PATCH', () => this.#resource(kind, namespace).patch(name, patchType, patch, this.#withOwner(options)));
    this.#remember(kind, namespace, name, out);
    return out;
  }

  /**
   * Server-side apply of `obj` (client.Apply): an apply configuration, or an object of the kind's own
   * type (a `ConfigMap` variable, whose `apiVersion` is a plain string); a missing `apiVersion` or
   * `kind` is filled in from `kind`. `fieldManager` defaults to the client's field owner.
   */
  async apply<T extends KubeObject, A>(kind: ResourceKind<T, A>, obj: A | T, options: Partial<ApplyOptions> & { subresource?: string } = {}): Promise<T> {
    const given = obj as KubeObject;
    if (given.apiVersion === undefined || given.kind === undefined) obj = { ...given, apiVersion: given.apiVersion ?? apiVersionOfKind(kind), kind: given.kind ?? kind.kind } as A;
    const meta = (obj as KubeObject).metadata;
    const namespace = meta?.namespace ?? '';
    const name = meta?.name ?? '';
    const fieldManager = options.fieldManager ?? this.#fieldOwner;
    if (fieldManager === undefined) throw new ClientRequestError(`apply of ${kind.kind} ${name}: a field manager is required (pass fieldManager or set the client's fieldOwner)`);
    const client = this.#resource(kind, namespace) as unknown as ResourceClient<T, A>;
    const { subresource, ...rest } = options;
    const body = obj as A;
    const out = await this.#call('PATCH', () => (subresource === 'status' ? client.applyStatus(body, { ...rest, fieldManager }) : client.apply(body, { ...rest, fieldManager })));
    this.#remember(kind, namespace, name, out);
    return out;
  }

  /** Deletes the object named by `target`; NotFound is thrown as from the server (see {@link ignoreNotFound}). */
  async delete<T extends KubeObject>(kind: ResourceKind<T, unknown>, target: T | ObjectKey, options: DeleteOptions = {}): Promise<void> {
    const { namespace, name } = nameOf(target);
    const out = await this.#call('DELETE', () => this.#resource(kind, namespace).delete(name, options));
    const asObject = (out as Status).kind === 'Status' ? undefined : (out as KubeObject);
    // An object still there (finalizers, graceful deletion) is an update; one gone is a delete.
    if (asObject !== undefined && asObject.metadata?.deletionTimestamp !== undefined && (asObject.metadata.finalizers?.length ?? 0) > 0) this.#remember(kind, namespace, name, asObject);
    else this.#remember(kind, namespace, name, undefined, asObject?.metadata?.resourceVersion ?? '');
  }

  /** Deletes every object of `kind` in a namespace matching the selectors (client.DeleteAllOf). */
  async deleteAllOf(kind: ResourceKind<unknown, unknown>, options: DeleteAllOfOptions = {}): Promise<void> {
    const { namespace, labelSelector, fieldSelector, ...deleteOptions } = options;
    const listOptions: ListOptions = { ...(labelSelector !== undefined ? { labelSelector } : {}), ...(fieldSelector !== undefined ? { fieldSelector } : {}) };
    await this.#call('DELETE', () => this.#resource(kind, namespace ?? '').deleteCollection(deleteOptions, listOptions));
  }

  /** Replaces the status of `obj` (client.Status().Update). */
  async updateStatus<T extends KubeObject>(kind: ResourceKind<T, unknown>, obj: T, options: UpdateOptions = {}): Promise<T> {
    return this.#update(kind, obj, options, 'status');
  }

  /** Patches the status of the object named by `target` (client.Status().Patch). */
  async patchStatus<T extends KubeObject>(kind: ResourceKind<T, unknown>, target: T | ObjectKey, patchType: PatchTypeValue, patch: unknown, options: PatchOptions = {}): Promise<T> {
    return this.patch(kind, target, patchType, patch, { ...options, subresource: 'status' });
  }

  /** Server-side apply to the status subresource (client.Status().Apply). */
  async applyStatus<T extends KubeObject, A>(kind: ResourceKind<T, A>, obj: A | T, options: Partial<ApplyOptions> = {}): Promise<T> {
    return this.apply(kind, obj, { ...options, subresource: 'status' });
  }

  /**
   * Another subresource of an object (client.SubResource): `get`, `create`, `update` and `patch` on
   * e.g. `scale`, `eviction` or `token`. Always sent to the server.
   */
  subResource<T extends KubeObject>(kind: ResourceKind<T, unknown>, subresource: string): SubResourceClient {
    return {
      get: <S>(key: ObjectKey, options: GetOptions = {}) => this.#call('GET', () => this.#resource(kind, key.namespace ?? '').getSubresource<S>(key.name, subresource, options)),
      create: <S, R = S>(key: ObjectKey, body: S, options: CreateOptions = {}) => this.#call('POST', () => this.#resource(kind, key.namespace ?? '').createSubresource<S, R>(key.name, subresource, body, options)),
      update: <S>(key: ObjectKey, body: S, options: UpdateOptions = {}) => this.#call('PUT', () => this.#resource(kind, key.namespace ?? '').updateSubresource<S>(key.name, subresource, body, options)),
      patch: <S>(key: ObjectKey, patchType: PatchTypeValue, patch: unknown, options: PatchOptions = {}) => this.#call('PATCH', () => this.#resource(kind, key.namespace ?? '').patchSubresource<S>(key.name, subresource, patchType, patch, options)),
    };
  }

  /** A client reading from the server (mgr.GetAPIReader()), sharing this one's writes bookkeeping-free. */
  uncached(): Client {
    return new Client({ rest: this.#rest, readYourWritesTimeoutMs: 0, ...(this.#fieldOwner !== undefined ? { fieldOwner: this.#fieldOwner } : {}), ...(this.#onRequest !== undefined ? { onRequest: this.#onRequest } : {}) });
  }
}

/** The verbs of a subresource (client.SubResourceClient). */
export interface SubResourceClient {
  /** Reads the subresource. */
  get<S>(key: ObjectKey, options?: GetOptions): Promise<S>;
  /** Creates (POSTs) to the subresource, e.g. an Eviction. */
  create<S, R = S>(key: ObjectKey, body: S, options?: CreateOptions): Promise<R>;
  /** Replaces the subresource. */
  update<S>(key: ObjectKey, body: S, options?: UpdateOptions): Promise<S>;
  /** Patches the subresource. */
  patch<S>(key: ObjectKey, patchType: PatchTypeValue, patch: unknown, options?: PatchOptions): Promise<S>;
}

/** Rethrows anything but NotFound (client.IgnoreNotFound). */
export function ignoreNotFound(err: unknown): void {
  if (statusOf(err)?.code === 404 || statusOf(err)?.reason === 'NotFound') return;
  throw err;
}
