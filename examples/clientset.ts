/**
 * The typed clientset: configuration from a kubeconfig, CRUD, errors, patches, server-side apply,
 * watches, discovery, paging and conflict retries. Runs against the cluster of KUBECONFIG (or
 * ~/.kube/config); it writes only objects named `example-*`, in the context's namespace, and deletes
 * them again. To try it without a cluster:
 *
 *   npx kubeloom apiserver --write-kubeconfig kubeloom.kubeconfig   # in another terminal
 *   KUBECONFIG=kubeloom.kubeconfig node examples/clientset.ts
 */
// #region config
import { loadKubeConfig, namespaceOf, restConfigFrom } from 'kubeloom/clientcmd';
import { newClientset } from 'kubeloom/kubernetes';
// #endregion
import { isNotFound, PatchType } from 'kubeloom/apimachinery';

// #region config
const kubeconfig = await loadKubeConfig(); // KUBECONFIG merge rules, ~/.kube/config, in-cluster
const clientset = newClientset(await restConfigFrom(kubeconfig)); // one keep-alive connection pool, QPS 5 / burst 10
const namespace = namespaceOf(kubeconfig); // the context's namespace, else 'default'
// #endregion

const configMaps = clientset.coreV1().configMaps(namespace); // ResourceClient<ConfigMap>
await configMaps.create({ metadata: { name: 'example-a', labels: { app: 'example' } }, data: { a: '1' } });
const list = await configMaps.list({ labelSelector: 'app=example', limit: 500 });
try {
  await configMaps.get('example-missing');
} catch (err) {
  if (isNotFound(err)) console.log('example-missing: not found'); // every API error is a StatusError
}
await configMaps.patch('example-a', PatchType.Merge, { data: { b: '2' } });
await configMaps.apply(
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'example-b', namespace }, data: { c: '3' } },
  { fieldManager: 'my-controller' }, // server-side apply
);

// #region watch
const watch = await configMaps.watch({ resourceVersion: list.metadata?.resourceVersion, labelSelector: 'app=example' });
await configMaps.patch('example-b', PatchType.Merge, { metadata: { labels: { app: 'example' } } });
for await (const event of watch) {
  if (event.type === 'ERROR') throw new Error(event.object.message); // a Status, e.g. 410 Expired
  console.log(event.type, event.object.metadata?.name);
  if (event.object.metadata?.name === 'example-b') break; // break frees the connection
}
// #endregion

// #region list-stream
const names = new Set<string>();
for await (const cm of clientset.coreV1().configMaps('').listItems({ labelSelector: 'app=example' })) {
  names.add(cm.metadata?.name ?? ''); // reading pauses while the loop body runs
}
let count = 0;
for await (const cm of configMaps.listItems({ limit: 500 })) if (cm.data !== undefined) count++; // pages, following continue tokens

const { metadata } = await configMaps.listStream({}, (batch) => {
  for (const cm of batch) names.add(cm.metadata?.name ?? '');
});
console.log(`${names.size} names, ${count} with data, at resourceVersion ${metadata?.resourceVersion}`);
// #endregion

// #region crud
import type { Deployment } from 'kubeloom/api/apps/v1';

const deployments = clientset.appsV1().deployments(namespace); // ResourceClient<Deployment>
const web: Deployment = {
  metadata: { name: 'example-web', labels: { app: 'example' } },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'example-web' } },
    template: { metadata: { labels: { app: 'example-web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
  },
};
await deployments.create(web, { dryRun: ['All'] }); // validated and admitted, not stored
const created = await deployments.create(web);
const fetched: Deployment = await deployments.get('example-web');
await deployments.updateStatus({ ...fetched, status: { observedGeneration: fetched.metadata?.generation ?? 1 } });
const nodes = await clientset.coreV1().nodes().list(); // cluster-scoped: no namespace
console.log(`created ${created.metadata?.name}; the cluster has ${nodes.items.length} nodes`);
// #endregion

// #region discovery
import { RestMapper } from 'kubeloom/discovery';

const discovery = clientset.discovery();
const version = await discovery.serverVersion(); // { major, minor, gitVersion, ... }
const groups = await discovery.serverGroups(); // core group first, preferred version first
const apps = await discovery.serverResourcesForGroupVersion('apps/v1'); // cached until discovery.invalidate()
const { resources, error } = await discovery.serverGroupsAndResources(); // every group's resources
if (error !== undefined) console.warn(error.message); // the groups that failed, e.g. metrics.k8s.io/v1beta1: 503
console.log(version.gitVersion, groups.length, apps?.resources.length, resources.length);

const mapper = new RestMapper(discovery);
const mapping = await mapper.restMapping({ group: 'apps', kind: 'Deployment' }); // resource, version, namespaced
const deploy = await mapper.resourceFor({ resource: 'deploy' }); // plural, singular, short name, kind, name.group
console.log(mapping.resource.resource, deploy.groupVersionKind.kind);
// #endregion

// #region pager-retry
import { ListPager } from 'kubeloom/tools/pager';
import { DefaultRetry, retryOnConflict } from 'kubeloom/util/retry';

const all = clientset.coreV1().configMaps('');
// Pages of 100; with a streaming page function each page's items are handed over as they are decoded.
const pager = new ListPager((opts) => all.list(opts), { pageSize: 100, streamPageFn: (opts, onItems) => all.listStream(opts, onItems) });
let seen = 0;
await pager.eachListItem({ labelSelector: 'app=example' }, () => {
  seen++;
});
for await (const cm of pager.items({ labelSelector: 'app=example' })) console.log(cm.metadata?.name);
const everything = await pager.list({ labelSelector: 'app=example' }); // all pages, as one list

await retryOnConflict(DefaultRetry, async () => {
  const d = await deployments.get('example-web'); // read the latest version on every attempt
  d.spec!.replicas = 3;
  await deployments.update(d); // a 409 Conflict retries; anything else is thrown
});
console.log(`${seen} items in pages, ${everything.items.length} in one list`);
// #endregion

// #region cleanup
await deployments.delete('example-web', { propagationPolicy: 'Background' });
await configMaps.deleteCollection({}, { labelSelector: 'app=example' });
await clientset.close(); // releases the pooled connections
// #endregion
