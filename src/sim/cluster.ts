/**
 * The simulated API server's write and read semantics over the embedded API server's in-memory
 * {@link Storage} (src/apiserver/storage.ts: one global revision, a bounded change history that serves
 * watch resumption and answers 410 Gone once compacted). The rules kept are kube-apiserver's generic
 * registry (staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go) for the parts controllers
 * depend on: optimistic concurrency on resourceVersion (409 Conflict), AlreadyExists, generateName, uid and
 * creationTimestamp, generation bumped on spec changes, the status subresource (spec and status written
 * separately), graceful deletion with finalizers (deletionTimestamp, removal once the last finalizer goes),
 * and the garbage collector's background deletion of dependents whose owners are all gone.
 *
 * It calls Storage directly rather than going through the HTTP handler (src/apiserver/handler.ts), so it has
 * no admission, schema validation, defaulting, field managers or RBAC; see docs/simulation.md.
 */
import { StatusError, newStatus } from '../apimachinery/errors.ts';
import type { KubeObject } from '../apimachinery/object.ts';
import { Storage } from '../apiserver/storage.ts';
import type { ResourceKind } from '../client/kinds.ts';
import type { Scheduler } from './scheduler.ts';

/** A kind as the simulator needs it: its REST coordinates (any `ResourceKind`, built-in or custom). */
export type SimKind = ResourceKind<KubeObject, unknown>;

/** The storage name of a kind's objects. */
export function storeOf(kind: SimKind): string {
  return `${kind.group === '' ? 'core' : kind.group}/${kind.resource}`;
}

/** The storage key `namespace/name` (or `name` for a cluster-scoped kind). */
export function keyOf(kind: SimKind, namespace: string | undefined, name: string): string {
  return kind.namespaced ? `${namespace ?? ''}/${name}` : name;
}

/** The storage key of an object. */
export function objectKey(kind: SimKind, obj: KubeObject): string {
  return keyOf(kind, obj.metadata?.namespace, obj.metadata?.name ?? '');
}

type Json = Record<string, unknown>;

function clone<T>(obj: T): T {
  return JSON.parse(JSON.stringify(obj)) as T;
}

function statusError(code: number, reason: string, message: string): StatusError {
  return new StatusError(newStatus(code, reason, message));
}

function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Json = target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Json) } : {};
  for (const [k, v] of Object.entries(patch as Json)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** The cluster state one simulation runs against: Storage plus the registry rules above. */
export class SimCluster {
  /** @internal The API server's storage the cluster keeps its objects in. */
  readonly storage: Storage;
  readonly #sched: Scheduler;
  readonly #kinds = new Map<string, SimKind>();
  #uid = 0;
  #names = 0;

  /**
   * Created by the simulation run.
   * @param historySize changes the storage keeps before compacting; small values make 410 Gone reachable.
   * @internal
   */
  constructor(sched: Scheduler, historySize: number) {
    this.#sched = sched;
    this.storage = new Storage(historySize);
  }

  /** Registers a kind so the garbage collector scans it. */
  register(kind: SimKind): void {
    this.#kinds.set(storeOf(kind), kind);
  }

  /** Every registered kind. */
  kinds(): SimKind[] {
    return [...this.#kinds.values()];
  }

  /** The stored object, or undefined. The result is shared: never mutate it. */
  peek(kind: SimKind, key: string): KubeObject | undefined {
    return this.storage.get(storeOf(kind), key)?.obj as KubeObject | undefined;
  }

  /** Every stored object of a kind (optionally of one namespace), in key order. Shared: never mutate. */
  peekAll(kind: SimKind, namespace?: string): KubeObject[] {
    return this.storage.listAt(storeOf(kind), this.storage.revision, namespace === undefined || namespace === '' ? {} : { namespace }).map((s) => s.obj as KubeObject);
  }

  /** GET: a copy of the object, or 404. */
  get(kind: SimKind, key: string): KubeObject {
    const s = this.storage.get(storeOf(kind), key);
    if (s === undefined) throw statusError(404, 'NotFound', `${kind.resource} "${key}" not found`);
    return JSON.parse(s.json) as KubeObject;
  }

  /** LIST: copies of every object and the list's resourceVersion. */
  list(kind: SimKind, namespace?: string): {
    /** Copies of the objects. */
    items: KubeObject[];
    /** The revision the list was read at. */
    rv: number;
  } {
    const rv = this.storage.revision;
    const items = this.storage.listAt(storeOf(kind), rv, namespace === undefined || namespace === '' ? {} : { namespace }).map((s) => JSON.parse(s.json) as KubeObject);
    return { items, rv };
  }

  /** POST. */
  create(kind: SimKind, input: KubeObject): KubeObject {
    this.register(kind);
    const obj = clone(input) as KubeObject & Json;
    const meta = (obj.metadata ??= {});
    if ((meta.name ?? '') === '') {
      if ((meta.generateName ?? '') === '') throw statusError(422, 'Invalid', 'metadata.name or metadata.generateName is required');
      // kube-apiserver appends 5 random alphanumerics (names.SimpleNameGenerator); a counter keeps runs replayable.
      meta.name = `${meta.generateName}${(++this.#names).toString(36).padStart(5, '0')}`;
    }
    if (kind.namespaced && (meta.namespace ?? '') === '') meta.namespace = 'default';
    const key = objectKey(kind, obj);
    if (this.storage.get(storeOf(kind), key) !== undefined) throw statusError(409, 'AlreadyExists', `${kind.resource} "${meta.name}" already exists`);
    meta.uid = `uid-${String(++this.#uid).padStart(6, '0')}`;
    meta.creationTimestamp = rfc3339(this.#sched.clock.now());
    meta.generation = 1;
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    obj.apiVersion = kind.group === '' ? kind.version : `${kind.group}/${kind.version}`;
    obj.kind = kind.kind;
    const created = JSON.parse(this.storage.write(storeOf(kind), key, 'ADDED', obj).json) as KubeObject;
    // The garbage collector also deletes a dependent created after its owners were gone (a controller
    // acting on a cache that still shows its deleted parent): its graph sees an owner that does not exist.
    const owners = meta.ownerReferences ?? [];
    if (owners.length > 0 && !owners.some((r) => this.#ownerExists(r, meta.namespace))) {
      this.#sched.post('gc', `gc ${kind.resource} ${key} (no owner exists)`, () => {
        for (const r of owners) this.#collect(r.uid);
      });
    }
    return created;
  }

  // Whether the object an owner reference names exists with that uid (kinds never seen count as absent).
  #ownerExists(ref: { apiVersion: string; kind: string; name: string; uid: string }, namespace: string | undefined): boolean {
    for (const k of this.#kinds.values()) {
      if (k.kind !== ref.kind || (k.group === '' ? k.version : `${k.group}/${k.version}`) !== ref.apiVersion) continue;
      return this.peek(k, keyOf(k, namespace, ref.name))?.metadata?.uid === ref.uid;
    }
    return false;
  }

  /** PUT on the object (`subresource` undefined) or its status. */
  update(kind: SimKind, input: KubeObject, subresource?: 'status'): KubeObject {
    const key = objectKey(kind, input);
    const stored = this.storage.get(storeOf(kind), key);
    if (stored === undefined) throw statusError(404, 'NotFound', `${kind.resource} "${key}" not found`);
    const rv = input.metadata?.resourceVersion;
    // An update without resourceVersion is unconditional (rest.Update's AllowUnconditionalUpdate).
    if (rv !== undefined && rv !== '' && rv !== String(stored.rv)) {
      throw statusError(409, 'Conflict', `Operation cannot be fulfilled on ${kind.resource} "${key}": the object has been modified; please apply your changes to the latest version and try again`);
    }
    const old = stored.obj as Json & KubeObject;
    const next = clone(input) as Json & KubeObject;
    const hasStatus = kind.subresources.includes('status');
    if (subresource === 'status') {
      // The status strategy keeps everything but status (and ignores metadata changes).
      const merged = clone(old) as Json;
      merged.status = next.status;
      return this.#commit(kind, key, old, merged as KubeObject & Json);
    }
    if (hasStatus) next.status = old.status;
    const meta = (next.metadata ??= {});
    meta.uid = old.metadata?.uid;
    meta.creationTimestamp = old.metadata?.creationTimestamp;
    meta.deletionTimestamp = old.metadata?.deletionTimestamp;
    if (meta.deletionTimestamp === undefined) delete meta.deletionTimestamp;
    const specOf = (o: Json): string => JSON.stringify({ ...o, metadata: undefined, status: hasStatus ? undefined : o.status });
    meta.generation = (old.metadata?.generation ?? 1) + (specOf(next) !== specOf(old) ? 1 : 0);
    return this.#commit(kind, key, old, next);
  }

  /** PATCH with a JSON merge patch (RFC 7386), on the object or its status. */
  patch(kind: SimKind, key: string, patch: unknown, subresource?: 'status'): KubeObject {
    const stored = this.storage.get(storeOf(kind), key);
    if (stored === undefined) throw statusError(404, 'NotFound', `${kind.resource} "${key}" not found`);
    const patched = mergePatch(JSON.parse(stored.json), patch) as KubeObject;
    return this.update(kind, patched, subresource);
  }

  #commit(kind: SimKind, key: string, old: KubeObject, next: KubeObject & Json): KubeObject {
    delete next.metadata!.resourceVersion;
    const terminating = next.metadata?.deletionTimestamp !== undefined;
    if (terminating && (next.metadata?.finalizers ?? []).length === 0) {
      this.#remove(kind, key, next);
      return clone(next);
    }
    if (JSON.stringify({ ...next, metadata: { ...next.metadata, resourceVersion: undefined } }) === JSON.stringify({ ...old, metadata: { ...old.metadata, resourceVersion: undefined } })) {
      // A no-op update writes nothing and keeps the resourceVersion (etcd3 store GuaranteedUpdate).
      return clone(old);
    }
    return JSON.parse(this.storage.write(storeOf(kind), key, 'MODIFIED', next).json) as KubeObject;
  }

  /** DELETE: graceful while finalizers remain (deletionTimestamp set), else removal. */
  delete(kind: SimKind, key: string): void {
    const stored = this.storage.get(storeOf(kind), key);
    if (stored === undefined) throw statusError(404, 'NotFound', `${kind.resource} "${key}" not found`);
    const obj = clone(stored.obj) as KubeObject & Json;
    if ((obj.metadata?.finalizers ?? []).length > 0) {
      if (obj.metadata!.deletionTimestamp !== undefined) return;
      obj.metadata!.deletionTimestamp = rfc3339(this.#sched.clock.now());
      delete obj.metadata!.resourceVersion;
      this.storage.write(storeOf(kind), key, 'MODIFIED', obj);
      return;
    }
    this.#remove(kind, key, obj);
  }

  #remove(kind: SimKind, key: string, finalState: KubeObject & Json): void {
    this.storage.write(storeOf(kind), key, 'DELETED', finalState);
    const uid = finalState.metadata?.uid;
    if (uid !== undefined) this.#sched.post('gc', `gc dependents of ${kind.resource} ${key}`, () => this.#collect(uid));
  }

  // The garbage collector's background policy: a dependent goes once none of its owners exists.
  #collect(ownerUid: string): void {
    const live = new Set<string>();
    for (const kind of this.#kinds.values()) for (const o of this.peekAll(kind)) if (o.metadata?.uid !== undefined) live.add(o.metadata.uid);
    for (const kind of this.#kinds.values()) {
      for (const o of this.peekAll(kind)) {
        const refs = o.metadata?.ownerReferences ?? [];
        if (!refs.some((r) => r.uid === ownerUid)) continue;
        if (refs.some((r) => live.has(r.uid))) continue;
        const key = objectKey(kind, o);
        this.#sched.log(`GC delete ${kind.resource} ${key} (owner ${ownerUid} gone)`);
        this.delete(kind, key);
      }
    }
  }
}
