/**
 * Serving the resource of a CustomResourceDefinition, as apiextensions-apiserver's CRD handler builds and
 * replaces its serving info (k8s.io/apiextensions-apiserver/pkg/apiserver/customresource_handler.go,
 * getOrCreateServingInfoFor and removeStorage_locked): the served versions go into the registry and the
 * resource's storage gets a decoder that prunes and defaults objects written under an older schema. A
 * version whose schema did not change keeps its schema object, so the objects written under it are not
 * decoded again after an unrelated CRD change (a printer column, a label).
 */
import { deepEqual } from '../../object-meta.ts';
import { storageKey, type ApiResource, type ResourceRegistry } from '../../resources.ts';
import type { Storage } from '../../storage.ts';
import { customResourceDecoder, type CustomResourceSchema } from './custom-resource-schema.ts';
import { releaseVersionWatchCaches } from './version-watch-cache.ts';

/** Serves (or re-serves, after an update) the entries of a CRD and sets its storage decoder. */
export function serveCustomResource(registry: ResourceRegistry, storage: Storage, crdName: string, entries: readonly ApiResource[]): void {
  const kept = entries.map((e): ApiResource => {
    const prev = registry.lookup(e.group, e.version, e.resource)?.schema;
    return e.schema !== undefined && prev !== undefined && deepEqual(prev.schema, e.schema.schema) ? { ...e, schema: prev } : e;
  });
  const before = registry.removeCustomResource(crdName);
  registry.setCustomResource(crdName, kept);
  const first = kept[0] ?? before[0];
  if (first === undefined) return;
  const schemas = new Map<string, CustomResourceSchema>();
  for (const e of kept) if (e.schema !== undefined) schemas.set(e.version, e.schema);
  const store = storageKey(first.group, first.resource);
  // A custom resource's watch cache starts when it is first served (upstream: its first request).
  storage.watchCache?.startResource(store, storage.revision);
  // Custom resources are unstructured: kube-apiserver writes their keys in Go's map order.
  storage.setUnstructured(store, true);
  storage.setDecoder(store, schemas.size === 0 ? undefined : customResourceDecoder(schemas, schemas.values().next().value));
}

/** Stops serving a CRD's resource and drops its storage decoder; returns the entries it served. */
export function stopServingCustomResource(registry: ResourceRegistry, storage: Storage, crdName: string): ApiResource[] {
  const entries = registry.removeCustomResource(crdName);
  releaseVersionWatchCaches(storage, crdName);
  const first = entries[0];
  if (first !== undefined) {
    storage.setDecoder(storageKey(first.group, first.resource), undefined);
    storage.setUnstructured(storageKey(first.group, first.resource), false);
    storage.watchCache?.stopResource(storageKey(first.group, first.resource));
  }
  return entries;
}
