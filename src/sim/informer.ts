/**
 * A simulated shared informer (client-go tools/cache shared_informer.go + reflector.go): LIST, then WATCH
 * from the list's resourceVersion, a local cache updated event by event, and handlers told of every
 * change. Its watch stream is one scheduler lane, so its events keep their order but may be held back
 * (`watchDelay`: a lagging cache) and interleaved with anything else. A `watchDrop` closes the stream; after
 * `watchRetryMs` the informer resumes from its last resourceVersion, or, when the server's history was
 * compacted past it (410 Gone), relists and replaces its cache, telling handlers of objects that changed or
 * vanished meanwhile (DeltaFIFO.Replace).
 */
import type { KubeObject } from '../apimachinery/object.ts';
import { RevisionCompactedError, type Change, type ChangeType } from '../apiserver/storage.ts';
import { objectKey, storeOf, type SimKind } from './cluster.ts';
import type { SimEnv } from './env.ts';

/** A change as an informer's handlers see it; `cause` names it for the trace. */
export type InformerHandler = (type: ChangeType, obj: KubeObject, old: KubeObject | undefined, cause: string) => void;

/** One kind's cache in one simulated process. */
export class SimInformer {
  readonly kind: SimKind;
  /** The cache: storage key → object (shared with readers; never mutated in place). */
  readonly cache = new Map<string, KubeObject>();
  /** True once the first LIST was applied (HasSynced). */
  synced = false;
  readonly #env: SimEnv;
  readonly #lane: string;
  readonly #handlers: InformerHandler[] = [];
  readonly #onSynced: () => void;
  #rv = 0;
  #connection = 0;
  #unsubscribe: (() => void) | undefined;
  #stopped = false;

  constructor(env: SimEnv, process: string, kind: SimKind, onSynced: () => void) {
    this.#env = env;
    this.kind = kind;
    this.#lane = `${process}/informer/${storeOf(kind)}`;
    this.#onSynced = onSynced;
  }

  /** Adds a handler (before start). */
  addHandler(h: InformerHandler): void {
    this.#handlers.push(h);
  }

  /** Starts with a LIST. */
  start(): void {
    this.#env.sched.post(this.#lane, `list ${this.#lane}`, () => this.#list());
  }

  /** Stops watching (a crash): the cache is dropped with the process. */
  stop(): void {
    this.#stopped = true;
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  #list(): void {
    if (this.#stopped) return;
    // The list a reflector's LIST gets: every object at the current revision (shared, never mutated).
    const storage = this.#env.cluster.storage;
    const rv = storage.revision;
    const items = storage.listAt(storeOf(this.kind), rv).map((o) => o.obj as KubeObject);
    this.#env.apiOps++;
    this.#env.sched.log(`INFORMER ${this.#lane} LIST rv=${rv} (${items.length} objects)`);
    const seen = new Set<string>();
    for (const obj of items) {
      const key = objectKey(this.kind, obj);
      seen.add(key);
      const old = this.cache.get(key);
      this.cache.set(key, obj);
      if (old === undefined) this.#notify('ADDED', obj, undefined, `list ${this.kind.resource} ${key}`);
      else if (old.metadata?.resourceVersion !== obj.metadata?.resourceVersion) this.#notify('MODIFIED', obj, old, `relist ${this.kind.resource} ${key}`);
    }
    for (const [key, old] of [...this.cache]) {
      if (seen.has(key)) continue;
      this.cache.delete(key);
      this.#notify('DELETED', old, old, `relist ${this.kind.resource} ${key} (vanished)`);
    }
    this.#rv = rv;
    this.#watch([]);
    if (!this.synced) {
      this.synced = true;
      this.#onSynced();
    }
  }

  #watch(backlog: Change[]): void {
    const conn = ++this.#connection;
    for (const c of backlog) this.#send(c, conn);
    this.#unsubscribe = this.#env.cluster.storage.subscribe(storeOf(this.kind), (c) => this.#send(c, conn));
  }

  #send(change: Change, conn: number): void {
    const { sched, rates, limits } = this.#env;
    const u = sched.decide('watchDelay', rates.watchDelay, (x) => `hold ${this.#lane} for ${Math.round(x * limits.maxWatchDelayMs)}ms`);
    sched.post(this.#lane, `watch ${this.#lane} ${change.type} ${change.key} rv=${change.rv}`, () => this.#deliver(change, conn), u === undefined ? 0 : Math.round(u * limits.maxWatchDelayMs));
  }

  #deliver(change: Change, conn: number): void {
    if (this.#stopped || conn !== this.#connection || change.rv <= this.#rv) return;
    const { sched, rates, limits } = this.#env;
    if (sched.decide('watchDrop', rates.watchDrop, () => `drop the watch of ${this.#lane} at rv=${this.#rv}`) !== undefined) {
      this.#unsubscribe?.();
      this.#unsubscribe = undefined;
      this.#connection++;
      sched.dropLanes(this.#lane);
      sched.post(this.#lane, `rewatch ${this.#lane}`, () => this.#resume(), limits.watchRetryMs);
      return;
    }
    this.#rv = change.rv;
    const obj = change.object.obj as KubeObject;
    const key = change.key;
    const old = this.cache.get(key);
    if (change.type === 'DELETED') this.cache.delete(key);
    else this.cache.set(key, obj);
    this.#notify(change.type, obj, old, `watch ${this.kind.resource} ${change.type} ${key}`);
  }

  #resume(): void {
    if (this.#stopped) return;
    let backlog: Change[];
    try {
      backlog = this.#env.cluster.storage.changesSince(storeOf(this.kind), this.#rv);
    } catch (err) {
      if (!(err instanceof RevisionCompactedError)) throw err;
      this.#env.sched.log(`INFORMER ${this.#lane} WATCH rv=${this.#rv} -> 410 Gone, relisting`);
      this.#list();
      return;
    }
    this.#env.sched.log(`INFORMER ${this.#lane} WATCH rv=${this.#rv} resumed (${backlog.length} events behind)`);
    this.#watch(backlog);
  }

  #notify(type: ChangeType, obj: KubeObject, old: KubeObject | undefined, cause: string): void {
    for (const h of this.#handlers) h(type, obj, old, cause);
  }
}
