/**
 * The client a simulated controller (or scenario) uses: the shape of kubeloom's controller-runtime client
 * (src/client/client.ts, pkg/client): reads served from the process's informer caches, writes sent to the
 * simulated API server as scheduled requests ({@link apiCall}). Reads of a kind the process does not cache,
 * and every read of `uncached()`, go to the server (controller-runtime's APIReader).
 */
import { StatusError, newStatus } from '../apimachinery/errors.ts';
import { parseSelector } from '../apimachinery/labels.ts';
import type { KubeObject } from '../apimachinery/object.ts';
import type { ObjectKey } from '../client/client.ts';
import type { ResourceKind } from '../client/kinds.ts';
import { apiCall, type Caller } from './api.ts';
import { keyOf, objectKey, storeOf, type SimKind } from './cluster.ts';
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

// The trace's note for a successful update: an update that removed the last finalizer of a terminating object deleted it.
function written(obj: KubeObject): string {
  const rv = obj.metadata?.resourceVersion;
  return rv === undefined ? '200 (last finalizer removed: deleted)' : `200 rv=${rv}`;
}

function targetKey(kind: SimKind, target: KubeObject | ObjectKey): string {
  return 'name' in target && typeof target.name === 'string' ? keyOf(kind, (target as ObjectKey).namespace, (target as ObjectKey).name) : objectKey(kind, target as KubeObject);
}

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

  /** Reads one object; rejects with a 404 StatusError when it does not exist. */
  async get<T extends KubeObject>(kind: ResourceKind<T, unknown>, key: ObjectKey, options: { uncached?: boolean } = {}): Promise<T> {
    const k = keyOf(kind, key.namespace, key.name);
    const inf = this.#informer(kind, options.uncached);
    if (inf !== undefined) {
      const obj = inf.cache.get(k);
      if (obj === undefined) throw new StatusError(newStatus(404, 'NotFound', `${kind.resource} "${k}" not found`));
      return copy(obj) as T;
    }
    return apiCall(this.#env, this.#caller, `get ${kind.resource} ${k}`, false, () => ({ value: this.#env.cluster.get(kind, k) as T, note: '200' }));
  }

  /** Lists objects, from the cache unless `uncached`. */
  async list<T extends KubeObject>(kind: ResourceKind<T, unknown>, options: SimListOptions = {}): Promise<T[]> {
    const selector = options.labelSelector === undefined || options.labelSelector === '' ? undefined : parseSelector(options.labelSelector);
    const ns = options.namespace ?? '';
    const keep = (o: KubeObject): boolean => (ns === '' || o.metadata?.namespace === ns) && (selector === undefined || selector.matches(o.metadata?.labels));
    const inf = this.#informer(kind, options.uncached);
    if (inf !== undefined) return [...inf.cache.values()].filter(keep).map((o) => copy(o) as T);
    return apiCall(this.#env, this.#caller, `list ${kind.resource}${ns === '' ? '' : ` -n ${ns}`}`, false, () => {
      const items = this.#env.cluster.list(kind, ns).items.filter(keep) as T[];
      return { value: items, note: `200 (${items.length} items)` };
    });
  }

  /** Creates an object (generateName allowed); resolves to the created object. */
  async create<T extends KubeObject>(kind: ResourceKind<T, unknown>, obj: T): Promise<T> {
    const name = obj.metadata?.name ?? `${obj.metadata?.generateName ?? ''}*`;
    return apiCall(this.#env, this.#caller, `create ${kind.resource} ${keyOf(kind, obj.metadata?.namespace ?? 'default', name)}`, true, () => {
      const created = this.#env.cluster.create(kind, obj) as T;
      return { value: created, note: `201 ${objectKey(kind, created)} rv=${created.metadata?.resourceVersion}` };
    });
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
    return apiCall(this.#env, this.#caller, `update${sub === undefined ? '' : 'Status'} ${kind.resource} ${k} rv=${obj.metadata?.resourceVersion ?? '*'}`, true, () => {
      const updated = this.#env.cluster.update(kind, obj, sub) as T;
      return { value: updated, note: written(updated) };
    });
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
    const k = targetKey(kind, target);
    return apiCall(this.#env, this.#caller, `patch${sub === undefined ? '' : 'Status'} ${kind.resource} ${k} ${JSON.stringify(patch)}`, true, () => {
      const updated = this.#env.cluster.patch(kind, k, patch, sub) as T;
      return { value: updated, note: written(updated) };
    });
  }

  /** Deletes an object (graceful while it has finalizers). */
  async delete<T extends KubeObject>(kind: ResourceKind<T, unknown>, target: T | ObjectKey): Promise<void> {
    const k = targetKey(kind, target);
    return apiCall(this.#env, this.#caller, `delete ${kind.resource} ${k}`, true, () => {
      this.#env.cluster.delete(kind, k);
      return { value: undefined, note: '200' };
    });
  }
}
