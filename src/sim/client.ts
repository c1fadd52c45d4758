/**
 * The client a simulated controller (or scenario) uses: the shape of kubeloom's controller-runtime client
 * (src/client/client.ts, pkg/client): reads served from the process's informer caches, writes sent to the
 * simulated API server (the embedded API server's handler) as scheduled requests ({@link apiCall}). Reads of a kind the process does not cache,
 * and every read of `uncached()`, go to the server (controller-runtime's APIReader).
 */
import { StatusError, newStatus, type Status } from '../apimachinery/errors.ts';
import { parseSelector } from '../apimachinery/labels.ts';
import type { KubeObject } from '../apimachinery/object.ts';
import type { ObjectKey } from '../client/client.ts';
import type { ResourceKind } from '../client/kinds.ts';
import { apiCall, serveRequest, ServerAnswerError, type Caller } from './api.ts';
import { keyOf, objectKey, pathOf, storeOf, type SimKind } from './cluster.ts';
import type { SimEnv } from './env.ts';
import type { SimInformer } from './informer.ts';

/** Options of {@link SimClient.list}. */
export interface SimListOptions {
  /** Only this namespace ('' or unset: all). */
  namespace?: string;
  /** Label selector, e.g. `app=web`. */
  labelSelector?: string;
  /** Read from the server instead of the cache. */
  uncached?: boolean;
}

function copy<T>(obj: T): T {
  return JSON.parse(JSON.stringify(obj)) as T;
}

function targetKey(kind: SimKind, target: KubeObject | ObjectKey): { namespace: string | undefined; name: string } {
  if ('name' in target && typeof target.name === 'string') return { namespace: (target as ObjectKey).namespace, name: target.name };
  const meta = (target as KubeObject).metadata;
  return { namespace: meta?.namespace, name: meta?.name ?? '' };
}

// The error a caller sees for an answer that is not a success: the server's Status.
function asStatusError(err: unknown): never {
  if (err instanceof ServerAnswerError) {
    let status: Status;
    try {
      status = JSON.parse(err.response.body) as Status;
    } catch {
      status = newStatus(err.response.status, 'InternalError', err.response.body);
    }
    throw new StatusError(status);
  }
  throw err;
}

// The body with the kind's apiVersion and kind, as controller-runtime's client sets them from its scheme.
function typed(kind: SimKind, obj: KubeObject): KubeObject {
  return { ...obj, apiVersion: kind.group === '' ? kind.version : `${kind.group}/${kind.version}`, kind: kind.kind };
}

const jsonHeaders = { 'content-type': 'application/json', accept: 'application/json' };

/** Reads and writes of one simulated process or of the scenario. */
export class SimClient {
  readonly #env: SimEnv;
  readonly #caller: Caller;
  readonly #informers: ReadonlyMap<string, SimInformer> | undefined;

  /**
   * Created by the simulation run ({@link ScenarioContext.client}, and the client of each simulated controller).
   * @param informers the process's caches; undefined makes every read go to the server.
   * @internal
   */
  constructor(env: SimEnv, caller: Caller, informers: ReadonlyMap<string, SimInformer> | undefined) {
    this.#env = env;
    this.#caller = caller;
    this.#informers = informers;
  }

  /** A client of the same caller whose reads all go to the server. */
  uncached(): SimClient {
    return new SimClient(this.#env, this.#caller, undefined);
  }

  #informer(kind: SimKind, uncached: boolean | undefined): SimInformer | undefined {
    if (uncached === true) return undefined;
    const inf = this.#informers?.get(storeOf(kind));
    return inf?.synced === true ? inf : undefined;
  }

  // One request to the API server's handler, as a scheduled call; the answer's body parsed.
  async #call<R>(kind: SimKind, label: string, write: boolean, method: string, path: string, body: unknown, contentType = 'application/json'): Promise<R> {
    this.#env.cluster.register(kind);
    const request = { method, path, headers: { ...jsonHeaders, 'content-type': contentType }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) };
    const r = await apiCall(this.#env, this.#caller, label, write, () => serveRequest(this.#env, request)).catch(asStatusError);
    return JSON.parse(r.body) as R;
  }

  /** Reads one object; rejects with a 404 StatusError when it does not exist. */
  async get<T extends KubeObject>(kind: ResourceKind<T, unknown>, key: ObjectKey, options: { uncached?: boolean } = {}): Promise<T> {
    const k = keyOf(kind, key.namespace, key.name);
    const inf = this.#informer(kind, options.uncached);
    if (inf !== undefined) {
      const obj = inf.cache.get(k);
      if (obj === undefined) throw new StatusError(newStatus(404, 'NotFound', `${kind.resource} "${k}" not found`));
      return copy(obj) as T;
    }
    return this.#call<T>(kind, `get ${kind.resource} ${k}`, false, 'GET', pathOf(kind, key.namespace, key.name), undefined);
  }

  /** Lists objects, from the cache unless `uncached`. */
  async list<T extends KubeObject>(kind: ResourceKind<T, unknown>, options: SimListOptions = {}): Promise<T[]> {
    const selector = options.labelSelector === undefined || options.labelSelector === '' ? undefined : parseSelector(options.labelSelector);
    const ns = options.namespace ?? '';
    const keep = (o: KubeObject): boolean => (ns === '' || o.metadata?.namespace === ns) && (selector === undefined || selector.matches(o.metadata?.labels));
    const inf = this.#informer(kind, options.uncached);
    if (inf !== undefined) return [...inf.cache.values()].filter(keep).map((o) => copy(o) as T);
    const query = options.labelSelector === undefined || options.labelSelector === '' ? '' : `?labelSelector=${encodeURIComponent(options.labelSelector)}`;
    const list = await this.#call<{ items?: T[] }>(kind, `list ${kind.resource}${ns === '' ? '' : ` -n ${ns}`}`, false, 'GET', `${pathOf(kind, ns)}${query}`, undefined);
    return list.items ?? [];
  }

  /** Creates an object (generateName allowed); resolves to the created object. */
  async create<T extends KubeObject>(kind: ResourceKind<T, unknown>, obj: T): Promise<T> {
    const name = obj.metadata?.name ?? `${obj.metadata?.generateName ?? ''}*`;
    const namespace = kind.namespaced ? obj.metadata?.namespace || 'default' : undefined;
    return this.#call<T>(kind, `create ${kind.resource} ${keyOf(kind, namespace, name)}`, true, 'POST', pathOf(kind, namespace), typed(kind, obj));
  }

  /** Replaces an object (conditional on its resourceVersion when set). */
  async update<T extends KubeObject>(kind: ResourceKind<T, unknown>, obj: T): Promise<T> {
    return this.#update(kind, obj, undefined);
  }

  /** Replaces an object's status. */
  async updateStatus<T extends KubeObject>(kind: ResourceKind<T, unknown>, obj: T): Promise<T> {
    return this.#update(kind, obj, 'status');
  }

  async #update<T extends KubeObject>(kind: ResourceKind<T, unknown>, obj: T, sub: 'status' | undefined): Promise<T> {
    const k = objectKey(kind, obj);
    const label = `update${sub === undefined ? '' : 'Status'} ${kind.resource} ${k} rv=${obj.metadata?.resourceVersion ?? '*'}`;
    return this.#call<T>(kind, label, true, 'PUT', pathOf(kind, obj.metadata?.namespace, obj.metadata?.name ?? '', sub), typed(kind, obj));
  }

  /** Applies a JSON merge patch (RFC 7386) to an object. */
  async patch<T extends KubeObject>(kind: ResourceKind<T, unknown>, target: T | ObjectKey, patch: unknown): Promise<T> {
    return this.#patch(kind, target, patch, undefined);
  }

  /** Applies a JSON merge patch (RFC 7386) to an object's status. */
  async patchStatus<T extends KubeObject>(kind: ResourceKind<T, unknown>, target: T | ObjectKey, patch: unknown): Promise<T> {
    return this.#patch(kind, target, patch, 'status');
  }

  async #patch<T extends KubeObject>(kind: ResourceKind<T, unknown>, target: T | ObjectKey, patch: unknown, sub: 'status' | undefined): Promise<T> {
    const { namespace, name } = targetKey(kind, target);
    const label = `patch${sub === undefined ? '' : 'Status'} ${kind.resource} ${keyOf(kind, namespace, name)} ${JSON.stringify(patch)}`;
    return this.#call<T>(kind, label, true, 'PATCH', pathOf(kind, namespace, name, sub), patch, 'application/merge-patch+json');
  }

  /** Deletes an object (graceful while it has finalizers). */
  async delete<T extends KubeObject>(kind: ResourceKind<T, unknown>, target: T | ObjectKey): Promise<void> {
    const { namespace, name } = targetKey(kind, target);
    await this.#call<unknown>(kind, `delete ${kind.resource} ${keyOf(kind, namespace, name)}`, true, 'DELETE', pathOf(kind, namespace, name), undefined);
  }
}
