/**
 * Empties and finalizes test namespaces that stay Terminating because the cluster runs no namespace
 * controller (kube-controller-manager's, pkg/controller/namespace/deletion/namespaced_resources_deleter.go):
 * deletes every namespaced collection found by discovery, clears finalizers that no controller will
 * remove any more, then clears the namespace's own `kubernetes` finalizer through /finalize.
 *
 * `npm run test:real` runs it after the suites on the namespaces they deleted (label
 * kubeloom.dev/e2e=true, phase Terminating); `node test/support/purge-namespaces.ts [names...]` runs it
 * on its own against KUBELOOM_TEST_KUBECONFIG. Tests never wait for it: they must not depend on a
 * namespace's disappearance.
 */
import type { APIResource } from '../../src/api/meta/v1.ts';
import type { Namespace } from '../../src/api/core/v1.ts';
import { isNotFound } from '../../src/apimachinery/errors.ts';
import type { KubeObject } from '../../src/apimachinery/object.ts';
import { PatchType } from '../../src/apimachinery/options.ts';
import { loadKubeConfigFile, restConfigFrom } from '../../src/clientcmd/index.ts';
import { DiscoveryClient } from '../../src/discovery/index.ts';
import { DynamicClient } from '../../src/dynamic/index.ts';
import { newClientset, type Clientset } from '../../src/kubernetes/index.ts';
import { e2eNamespaceLabel, KubeconfigEnvVar } from './backend-env.ts';

interface Collection {
  group: string;
  version: string;
  resource: string;
}

/** Namespaced resources (not subresources) that can be listed and deleted as a collection. */
async function namespacedCollections(cs: Clientset): Promise<Collection[]> {
  // What the namespace controller deletes from (ServerPreferredNamespacedResources); a group version
  // that fails discovery is skipped, as there.
  const { resources: lists } = await new DiscoveryClient(cs.restClient).serverPreferredNamespacedResources();
  const out: Collection[] = [];
  for (const list of lists) {
    const [group, version] = list.groupVersion.includes('/') ? list.groupVersion.split('/') : ['', list.groupVersion];
    for (const r of list.resources as APIResource[]) {
      if (!r.namespaced || r.name.includes('/') || !r.verbs.includes('list') || !r.verbs.includes('deletecollection')) continue;
      out.push({ group: group!, version: version!, resource: r.name });
    }
  }
  return out;
}

/** Empties and finalizes one namespace (already deleted or not). Resolves when the namespace is gone. */
async function purgeOne(cs: Clientset, collections: Collection[], namespace: string): Promise<void> {
  const dynamic = new DynamicClient(cs.restClient);
  for (const c of collections) {
    const client = dynamic.resource(c).namespace(namespace);
    let items: KubeObject[];
    try {
      items = (await client.list()).items;
    } catch (err) {
      if (isNotFound(err)) continue;
      throw err;
    }
    if (items.length === 0) continue;
    // Nothing runs any more to remove these finalizers.
    for (const o of items) {
      if ((o.metadata?.finalizers ?? []).length > 0) await client.patch(o.metadata?.name ?? '', PatchType.Merge, { metadata: { finalizers: null } }).catch(() => undefined);
    }
    await client.deleteCollection({ gracePeriodSeconds: 0 }).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
  }
  const namespaces = cs.coreV1().namespaces();
  let ns: Namespace;
  try {
    ns = await namespaces.get(namespace);
  } catch (err) {
    if (isNotFound(err)) return;
    throw err;
  }
  if (ns.metadata?.deletionTimestamp === undefined) await namespaces.delete(namespace);
  try {
    ns = await namespaces.get(namespace);
    await namespaces.update({ ...ns, spec: { finalizers: [] } }, { subresource: 'finalize' });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

/**
 * Purges `names`, or (by default) every Terminating namespace labelled {@link e2eNamespaceLabel}.
 * Resolves with the namespaces purged.
 */
export async function purgeTestNamespaces(cs: Clientset, names?: readonly string[]): Promise<string[]> {
  const targets =
    names !== undefined && names.length > 0
      ? [...names]
      : (await cs.coreV1().namespaces().list({ labelSelector: e2eNamespaceLabel })).items.filter((n) => n.status?.phase === 'Terminating').map((n) => n.metadata?.name ?? '');
  if (targets.length === 0) return [];
  const collections = await namespacedCollections(cs);
  // A few namespaces at a time: a shared cluster has other users.
  const queue = [...targets];
  const worker = async (): Promise<void> => {
    for (let ns = queue.shift(); ns !== undefined; ns = queue.shift()) await purgeOne(cs, collections, ns);
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return targets;
}

if (import.meta.main) {
  const kubeconfig = process.env[KubeconfigEnvVar];
  if (kubeconfig === undefined || kubeconfig === '') {
    process.stderr.write(`${KubeconfigEnvVar} must name the kubeconfig of the cluster to purge\n`);
    process.exitCode = 2;
  } else {
    const cs = newClientset({ ...(await restConfigFrom(await loadKubeConfigFile(kubeconfig))), qps: -1 });
    try {
      const purged = await purgeTestNamespaces(cs, process.argv.slice(2));
      process.stdout.write(`purged ${purged.length} namespaces\n`);
    } finally {
      await cs.close();
    }
  }
}
