/**
 * The conversions kube-apiserver v1.24's watch caches make for a CRD converted by a webhook: the CR handler
 * builds one storage per served version (customresource_handler.go getOrCreateServingInfoFor, on the first
 * request for the CRD), each with its own cacher decoding etcd's objects into its version, so the cacher of
 * every version but the storage version converts each object once when it starts (its initial list) and each
 * written state once when the event arrives — asynchronously, whether anyone watches or not — and its
 * watchers receive those converted copies without another call. Measured on v1.24: a create through v2
 * makes one v1 → v2 review more than the request itself needs, after the answer.
 *
 * Here one {@link VersionWatchCache} per such version keeps the converted form of each object's latest
 * state (a promise, shared by every watch in that version); a state it no longer holds (an older revision a
 * watch replays) is converted on demand. A failed conversion is kept as a rejected promise: the watches that
 * reach it end, as a v1.24 watch does when its cacher cannot decode an event.
 */
import type { ApiResource } from '../../resources.ts';
import { storageKey } from '../../resources.ts';
import type { Change, Storage, StoredObject } from '../../storage.ts';
import type { ResourceRegistry } from '../../resources.ts';
import { convertsWithWebhook, storedInRequestVersion, type ConversionWebhookConfig, type ConverterContext } from './webhook-converter.ts';

/** How many deleted objects' conversions a cache keeps for watches that have not reached them yet. */
const deletedKept = 1000;

/** The converted latest states of one served version of a webhook-converted custom resource. */
export class VersionWatchCache {
  readonly #r: ApiResource;
  readonly #ctx: ConverterContext;
  /** Per object key: the revision converted and its conversion. */
  readonly #latest = new Map<string, { rv: number; converted: Promise<StoredObject> }>();
  /** Keys of deleted objects, oldest first, whose entries go once more than {@link deletedKept} accumulate. */
  readonly #deleted: string[] = [];

  constructor(r: ApiResource, ctx: ConverterContext) {
    this.#r = r;
    this.#ctx = ctx;
  }

  #convert(s: StoredObject): Promise<StoredObject> {
    const p = storedInRequestVersion(this.#r, s, this.#ctx);
    // Nobody may ask for it: an unobserved failure is not an error of the server.
    p.catch(() => undefined);
    return p;
  }

  /** Converts an object the cache starts with (the cacher's initial list). */
  add(s: StoredObject): void {
    this.#latest.set(s.key, { rv: s.rv, converted: this.#convert(s) });
  }

  /** Converts a written state as its event arrives. */
  onChange(c: Change): void {
    this.#latest.set(c.key, { rv: c.object.rv, converted: this.#convert(c.object) });
    if (c.type !== 'DELETED') return;
    this.#deleted.push(c.key);
    if (this.#deleted.length > deletedKept) {
      const key = this.#deleted.shift()!;
      const e = this.#latest.get(key);
      if (e !== undefined && e.rv <= c.rv) this.#latest.delete(key);
    }
  }

  /** The object in this cache's version: the cached conversion of that state, or a new one. */
  get(s: StoredObject): Promise<StoredObject> {
    const e = this.#latest.get(s.key);
    return e !== undefined && e.rv === s.rv ? e.converted : this.#convert(s);
  }
}

interface Entry {
  readonly config: ConversionWebhookConfig;
  readonly caches: Map<string, VersionWatchCache>;
  readonly unsubscribe: () => void;
}

// The caches of each server (its storage), by CRD.
const servers = new WeakMap<Storage, Map<string, Entry>>();

/**
 * The watch caches of a webhook-converted custom resource, created on the first request for its CRD (and
 * again when the CRD's conversion changes): one per served version other than the storage version, each
 * converting every stored object at once. Returns the cache of `r`'s version, undefined when `r` is in the
 * storage version or converts without a webhook.
 */
export function versionWatchCache(storage: Storage, registry: ResourceRegistry, r: ApiResource, ctx: ConverterContext): VersionWatchCache | undefined {
  if (!convertsWithWebhook(r) || r.storage === undefined) return undefined;
  let crds = servers.get(storage);
  if (crds === undefined) servers.set(storage, (crds = new Map<string, Entry>()));
  const name = r.conversionWebhook.crdName;
  let entry = crds.get(name);
  if (entry !== undefined && entry.config !== r.conversionWebhook) {
    entry.unsubscribe();
    crds.delete(name);
    entry = undefined;
  }
  if (entry === undefined) {
    const store = storageKey(r.group, r.resource);
    const caches = new Map<string, VersionWatchCache>();
    const versions = registry.all().filter((x) => x.custom && x.group === r.group && x.resource === r.resource && x.version !== r.storage!.version);
    const existing = storage.listAt(store, storage.revision);
    for (const v of versions) {
      const cache = new VersionWatchCache(v, ctx);
      for (const s of existing) cache.add(s);
      caches.set(v.version, cache);
    }
    const unsubscribe = storage.subscribe(store, (c) => {
      for (const cache of caches.values()) cache.onChange(c);
    });
    entry = { config: r.conversionWebhook, caches, unsubscribe };
    crds.set(name, entry);
  }
  return entry.caches.get(r.version);
}

/**
 * Drops the watch caches of a CRD and their storage subscription, as kube-apiserver's CRD handler stops
 * the cachers of a CRD's storage when the CRD goes (removeStorage_locked destroys its storage). Called
 * when the CRD stops being served.
 */
export function releaseVersionWatchCaches(storage: Storage, crdName: string): void {
  const crds = servers.get(storage);
  const entry = crds?.get(crdName);
  if (entry === undefined) return;
  entry.unsubscribe();
  crds!.delete(crdName);
}
