/**
 * What a server rebuilds when it starts on existing data (a data directory, a snapshot) instead of an
 * empty store, as kube-apiserver rebuilds its in-memory state from etcd when it starts: the resources its
 * CRDs serve (apiextensions-apiserver's CRD informer → serving info), the Service allocators' used ranges
 * (upstream keeps them in etcd as RangeAllocation objects; here they are read off the Services), and the
 * client CA in `kube-system/extension-apiserver-authentication` (cluster_authentication_trust_controller.go
 * writes the current one on every start).
 */
import { LoopbackClient } from '../controllers/loopback-client.ts';
import { crdGroupResource, type RequestScope } from '../handlers/scope.ts';
import { customResourcesOf, isObject } from '../object-meta.ts';
import { serveCustomResource, stopServingCustomResource } from '../registry/apiextensions/serving-info.ts';
import type { ApiResource } from '../resources.ts';

/** What {@link restoreDerivedState} needs besides the data. */
export interface RestoredStateOptions {
  /** The CRDs' served resources when known (a snapshot carries them); otherwise they are built from the stored CRDs. */
  readonly customResources?: ReadonlyMap<string, readonly ApiResource[]> | undefined;
  /** The server's client CA, written into extension-apiserver-authentication when it changed. */
  readonly clientCaPem?: string | undefined;
}

/** Rebuilds the state a server derives from its stored objects; see the file comment. */
export function restoreDerivedState(scope: RequestScope, options: RestoredStateOptions = {}): void {
  const { storage, registry } = scope;
  if (options.customResources !== undefined) {
    for (const [name, entries] of options.customResources) serveCustomResource(registry, storage, name, entries);
  } else {
    for (const crd of storage.listAt(crdGroupResource, storage.revision)) {
      // Schemas apply from the CRD's revision: older objects are decoded (pruned, defaulted) on read.
      const { entries, causes } = customResourcesOf(crd.obj, crd.rv);
      if (causes.length === 0) serveCustomResource(registry, storage, crd.key, entries);
    }
  }
  for (const svc of storage.listAt('services', storage.revision)) if (isObject(svc.obj.spec)) scope.allocator.observe(svc.obj.spec);
  const pem = options.clientCaPem;
  if (pem !== undefined) {
    const client = new LoopbackClient(scope, 'kube-apiserver');
    const configMaps = client.resourceFor('v1', 'ConfigMap');
    client.update(configMaps, 'kube-system', 'extension-apiserver-authentication', (o) => {
      const data = isObject(o.data) ? o.data : {};
      return data['client-ca-file'] === pem ? undefined : { ...o, data: { ...data, 'client-ca-file': pem } };
    });
  }
}

/**
 * With a shared backend (etcd), CRDs another server writes are served here too, as apiextensions-apiserver's
 * CRD informer does on every server: a CRD created or changed elsewhere starts (or changes) serving its
 * resource, a CRD removed elsewhere stops it. This server's own CRD writes are served by its handlers.
 * Returns the unsubscription.
 */
export function followSharedCustomResources(scope: RequestScope): () => void {
  const { storage, registry } = scope;
  return storage.subscribe(crdGroupResource, (c) => {
    if (c.remote !== true) return;
    if (c.type === 'DELETED') {
      stopServingCustomResource(registry, storage, c.key);
      return;
    }
    const { entries, causes } = customResourcesOf(c.object.obj, c.rv);
    if (causes.length === 0) serveCustomResource(registry, storage, c.key, entries);
  });
}
