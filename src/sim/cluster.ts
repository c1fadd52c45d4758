/**
 * The simulated API server: the embedded API server's own request handler (src/apiserver/handler.ts:
 * authentication, admission, defaulting, validation, server-side apply, JSON / merge / strategic merge
 * patches, field and label selectors, pagination, watches with bookmarks and timeouts) over its in-memory
 * {@link Storage} (one global revision, a bounded change history that serves watch resumption and answers
 * 410 Gone once compacted), on the run's virtual clock. Requests reach it in-process
 * (src/apiserver/in-process.ts); when they do, and when their responses and watch events reach the caller,
 * is decided by the scheduler (api.ts, transport.ts).
 *
 * What it adds to the handler is what kube-apiserver gets from elsewhere: CustomResourceDefinitions for the
 * simulation's custom kinds (a schema that keeps unknown fields, the status subresource when the kind has
 * one), and kube-controller-manager's garbage collector in its background policy (a dependent is deleted
 * once none of its owners exists), each collection a scheduled step. Its random choices (generated names,
 * the timeout of a watch that asks for none) come from a generator seeded by the run, its uids from a
 * counter, so a run replays exactly.
 */
import { Buffer } from 'node:buffer';
import type { KubeObject } from '../apimachinery/object.ts';
import { bootstrapSnapshot } from '../apiserver/bootstrap/bootstrap-snapshot.ts';
import { restoreDerivedState } from '../apiserver/bootstrap/restored-state.ts';
import { Faults } from '../apiserver/faults.ts';
import { ApiHandler, formatTime } from '../apiserver/handler.ts';
import { serveInProcess, type InProcessExchange, type InProcessRequest, type ResponseSink } from '../apiserver/in-process.ts';
import { ResourceRegistry, storageKey, type ApiResource } from '../apiserver/resources.ts';
import { Storage } from '../apiserver/storage.ts';
import type { StorageSnapshot } from '../apiserver/storage/interface.ts';
import type { ResourceKind } from '../client/kinds.ts';
import { Prng } from './prng.ts';
import type { Scheduler } from './scheduler.ts';

/** A kind as the simulator needs it: its REST coordinates (any `ResourceKind`, built-in or custom). */
export type SimKind = ResourceKind<KubeObject, unknown>;

/** The storage name of a kind's objects (the API server's: `pods`, `replicasets.apps`). */
export function storeOf(kind: SimKind): string {
  return storageKey(kind.group, kind.resource);
}

/** The storage key `namespace/name` (or `name` for a cluster-scoped kind). */
export function keyOf(kind: SimKind, namespace: string | undefined, name: string): string {
  return kind.namespaced ? `${namespace ?? ''}/${name}` : name;
}

/** The storage key of an object. */
export function objectKey(kind: SimKind, obj: KubeObject): string {
  return keyOf(kind, obj.metadata?.namespace, obj.metadata?.name ?? '');
}

/** The REST path of a kind's collection, object or subresource. */
export function pathOf(kind: SimKind, namespace: string | undefined, name?: string, subresource?: string): string {
  const base = kind.group === '' ? `/api/${kind.version}` : `/apis/${kind.group}/${kind.version}`;
  const ns = kind.namespaced && namespace !== undefined && namespace !== '' ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${base}${ns}/${kind.resource}${name === undefined ? '' : `/${encodeURIComponent(name)}`}${subresource === undefined ? '' : `/${subresource}`}`;
}

/** A complete (non-watch) response. */
export interface SimResponse {
  /** HTTP status. */
  status: number;
  /** Response headers. */
  headers: Record<string, string | string[]>;
  /** The body as text (JSON). */
  body: string;
}

// kube-apiserver's defaults, as startApiServer() sets them (src/apiserver/server.ts).
const bookmarkIntervalMs = 60_000;
const minRequestTimeoutSeconds = 1800;
const maxRequestBodyBytes = 3 * 1024 * 1024;

/**
 * The state a run starts from (bootstrap objects, then a CRD per custom kind), built once per process for
 * each starting point and restored by later runs: writing the CRDs compiles their schemas, which would
 * otherwise cost more than a small run's own requests. Restoring gives exactly the state building it gives.
 */
interface StartingPoint {
  readonly storage: StorageSnapshot;
  readonly customResources: ReadonlyMap<string, readonly ApiResource[]>;
  /** uids handed out while building it. */
  readonly uids: number;
}

const startingPoints = new Map<string, StartingPoint>();

/** The cluster one simulation runs against: the API server's handler and storage, plus the pieces above. */
export class SimCluster {
  /** @internal The API server's storage. */
  readonly storage: Storage;
  /** @internal The API server's request handler. */
  readonly handler: ApiHandler;
  readonly #sched: Scheduler;
  readonly #kinds = new Map<string, SimKind>();
  #uid = 0;

  /**
   * Created by the simulation run.
   * @param historySize changes the storage keeps before compacting; small values make 410 Gone reachable.
   * @param seed seeds the server's random choices (generated names, default watch timeouts).
   * @param kinds kinds registered from the start, in this order (see {@link SimCluster.register}).
   * @internal
   */
  constructor(sched: Scheduler, historySize: number, seed = 0, kinds: readonly SimKind[] = []) {
    this.#sched = sched;
    this.storage = new Storage(historySize);
    const random = new Prng((seed ^ 0x5e7e) >>> 0);
    const faults: Faults = new Faults({
      closeWatches: (r) => this.handler.closeWatches(r),
      stallWatches: (r) => this.handler.stallWatches(r),
      injectMalformedLine: (r) => this.handler.injectMalformedLine(r),
      compact: (rv) => this.storage.compact(rv),
      restart: () => Promise.resolve(),
    });
    this.handler = new ApiHandler(new ResourceRegistry(), this.storage, faults, {
      token: undefined,
      bookmarkIntervalMs,
      defaultWatchTimeoutSeconds: minRequestTimeoutSeconds,
      maxRequestBodyBytes,
      clock: sched.clock,
      random: () => random.next(),
      newUid: () => {
        const n = (++this.#uid).toString(16).padStart(12, '0');
        return `00000000-0000-4000-8000-${n}`;
      },
    });
    const key = JSON.stringify([historySize, sched.clock.now(), kinds.map((k) => [k.group, k.version, k.resource, k.kind, k.namespaced, k.subresources])]);
    const start = startingPoints.get(key);
    if (start === undefined) {
      this.storage.restore(bootstrapSnapshot(formatTime(sched.clock.now()), { rbac: false }));
      for (const k of kinds) this.register(k);
      startingPoints.set(key, { storage: this.storage.snapshot(), customResources: this.handler.registry.customResources(), uids: this.#uid });
    } else {
      this.storage.restore(start.storage);
      restoreDerivedState(this.handler.internalScope(), { customResources: new Map(start.customResources) });
      this.#uid = start.uids;
      for (const k of kinds) this.#kinds.set(storeOf(k), k);
    }
    this.storage.subscribeAll((c) => {
      const meta = c.object.obj.metadata as KubeObject['metadata'];
      if (c.type === 'ADDED') {
        // The garbage collector also deletes a dependent created after its owners were gone (a controller
        // acting on a cache that still shows its deleted parent): its graph sees an owner that does not exist.
        const owners = meta?.ownerReferences ?? [];
        if (owners.length > 0 && !owners.some((r) => this.#ownerExists(r, meta?.namespace))) {
          sched.post('gc', `gc ${c.store} ${c.key} (no owner exists)`, () => {
            for (const r of owners) this.#collect(r.uid);
          });
        }
        return;
      }
      if (c.type !== 'DELETED') return;
      const uid = meta?.uid;
      if (uid !== undefined) sched.post('gc', `gc dependents of ${c.store} ${c.key}`, () => this.#collect(uid));
    });
  }

  // Whether the object an owner reference names exists with that uid; an owner of a kind the simulation
  // does not serve counts as existing (the collector cannot look it up, so it leaves the dependent alone).
  #ownerExists(ref: { apiVersion: string; kind: string; name: string; uid: string }, namespace: string | undefined): boolean {
    for (const k of this.#kinds.values()) {
      if (k.kind !== ref.kind || (k.group === '' ? k.version : `${k.group}/${k.version}`) !== ref.apiVersion) continue;
      const owner = this.peek(k, keyOf(k, k.namespaced ? namespace : undefined, ref.name));
      return owner?.metadata?.uid === ref.uid;
    }
    return true;
  }

  /**
   * Registers a kind: the garbage collector scans it, and a custom kind not served yet gets a
   * CustomResourceDefinition (any fields kept; the status subresource when the kind lists it).
   */
  register(kind: SimKind): void {
    const store = storeOf(kind);
    if (this.#kinds.has(store)) return;
    this.#kinds.set(store, kind);
    if (this.handler.registry.lookup(kind.group, kind.version, kind.resource) !== undefined) return;
    const subresources: Record<string, unknown> = kind.subresources.includes('status') ? { status: {} } : {};
    this.handler.seed('apiextensions.k8s.io', 'v1', 'customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${kind.resource}.${kind.group}` },
      spec: {
        group: kind.group,
        names: { plural: kind.resource, kind: kind.kind, singular: kind.kind.toLowerCase(), listKind: `${kind.kind}List` },
        scope: kind.namespaced ? 'Namespaced' : 'Cluster',
        versions: [{ name: kind.version, served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }, subresources }],
      },
    });
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

  /** Serves a request through the API server's handler; the response's parts reach `sink` as written. */
  serve(request: InProcessRequest, sink: ResponseSink): InProcessExchange {
    return serveInProcess(this.handler, request, sink);
  }

  /** Serves a request that has a complete answer (not a watch); resolves once the handler answered. */
  request(request: InProcessRequest): Promise<SimResponse> {
    return new Promise<SimResponse>((resolve) => {
      let status = 0;
      let headers: Record<string, string | string[]> = {};
      const chunks: Buffer[] = [];
      this.serve(request, {
        start: (s, h) => {
          status = s;
          headers = h;
        },
        data: (c) => chunks.push(c),
        end: () => resolve({ status, headers, body: chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8') }),
      });
    });
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
        if (o.metadata?.deletionTimestamp !== undefined) continue;
        this.#sched.log(`GC delete ${kind.resource} ${objectKey(kind, o)} (owner ${ownerUid} gone)`);
        // As the garbage collector: a delete with the dependent's uid as precondition, background propagation.
        const body = JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background', preconditions: { uid: o.metadata?.uid } });
        void this.request({ method: 'DELETE', path: pathOf(kind, o.metadata?.namespace, o.metadata?.name), headers: { 'content-type': 'application/json' }, body });
      }
    }
  }
}
