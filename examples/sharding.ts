/**
 * Sharded controllers (docs/sharding.md): a sharded informer, a shard ring of Leases, a
 * ShardedController over informers of ConfigMaps (owner) and Secrets (owned), and the same
 * controller on the Manager's `sharding` option. With one replica the ring gives it the whole hash
 * space, so every object is reconciled here; start the program several times at once (each with its
 * own identity) and they split the objects. Runs against the cluster of KUBECONFIG (or
 * ~/.kube/config), in the context's namespace; it creates ConfigMaps and Secrets named `shard-*` and
 * deletes them at the end. To try it without a cluster:
 *
 *   npx kubeloom apiserver --write-kubeconfig kubeloom.kubeconfig   # in another terminal
 *   KUBECONFIG=kubeloom.kubeconfig node examples/sharding.ts
 */
import { randomUUID } from 'node:crypto';
import type { ConfigMap, Secret } from 'kubeloom/api/core/v1';
import { controllerManagedBy } from 'kubeloom/builder';
import { kinds } from 'kubeloom/client';
import { loadKubeConfig, namespaceOf, restConfigFrom } from 'kubeloom/clientcmd';
import { newClientset } from 'kubeloom/kubernetes';
import { newManager } from 'kubeloom/manager';
import { controllerShardKey, evenShardSelector, ShardedController, ShardRing, ShardSelector } from 'kubeloom/sharding';
import { newListWatchFromClient, SharedIndexInformer } from 'kubeloom/tools/cache';
import { realClock } from 'kubeloom/util/clock';

const kubeconfig = await loadKubeConfig();
const config = await restConfigFrom(kubeconfig);
const cs = newClientset(config);
const namespace = namespaceOf(kubeconfig);
const podName = `example-${randomUUID().slice(0, 8)}`; // in a Deployment: the pod's name
const names = ['shard-a', 'shard-b', 'shard-c', 'shard-d'];

async function until(what: string, cond: () => boolean): Promise<void> {
  for (let i = 0; i < 1_500 && !cond(); i++) await realClock.sleep(20);
  if (!cond()) throw new Error(`gave up waiting for ${what}`);
}

for (const name of names) {
  const cm = await cs.coreV1().configMaps(namespace).create({ metadata: { name }, data: { n: name } });
  const ref = { apiVersion: 'v1', kind: 'ConfigMap', name, uid: cm.metadata!.uid!, controller: true };
  await cs.coreV1().secrets(namespace).create({ metadata: { name: `${name}-secret`, ownerReferences: [ref] }, stringData: { n: name } });
}

// 1. A sharded informer: only the objects whose uid hashes into one third of the space.
{
  const stop = new AbortController();
  const configMaps = cs.coreV1().configMaps(namespace);
  // #region informer
  const informer = new SharedIndexInformer<ConfigMap>(newListWatchFromClient(configMaps), { shardSelector: evenShardSelector(0, 3) });
  informer.setShardSelector(evenShardSelector(1, 3)); // relists at once; objects that left are notified as deletes
  // #endregion
  const running = informer.run({ signal: stop.signal });
  await until('the informer to sync', () => informer.hasSynced());
  console.log(`informer: ${informer.getStore().list().length} of ${names.length} ConfigMaps in shard 1 of 3`);
  stop.abort();
  await running;
}

// 2. A ShardedController on its own ring: ConfigMaps reconciled, their Secrets owned.
{
  const stop = new AbortController();
  const signal = stop.signal;
  const reconciled = new Set<string>();
  const reconcile = async (key: string): Promise<void> => void reconciled.add(key);
  const lw = newListWatchFromClient(cs.coreV1().configMaps(namespace));
  const secretLw = newListWatchFromClient(cs.coreV1().secrets(namespace));
  // #region ring
  const ring = new ShardRing({ name: 'configmaps', namespace, identity: podName, client: cs.coordinationV1().leases(namespace) });
  // #endregion
  // #region sharded-controller
  const configMaps = new SharedIndexInformer<ConfigMap>(lw, { shardSelector: ShardSelector.none() });
  const secrets = new SharedIndexInformer<Secret>(secretLw, { shardSelector: ShardSelector.none(), shardKey: controllerShardKey });
  const c = new ShardedController({ name: 'configmaps', ring, reconcile, informers: [configMaps, secrets] });
  c.watchFor(configMaps); // For(): keys of the replica's ranges only
  c.watchOwned(secrets, { ownerKind: 'ConfigMap' }); // Owns(): the owner's key, sharded by the owner's uid
  const running = Promise.all([ring.run({ signal }), configMaps.run({ signal }), secrets.run({ signal }), c.run({ signal })]);
  // #endregion
  await until('every ConfigMap to be reconciled', () => names.every((n) => reconciled.has(`${namespace}/${n}`)));
  console.log(`ShardedController: ${reconciled.size} ConfigMaps reconciled, owning ${c.status().activeFraction * 100}% of the hash space`);
  stop.abort();
  await running;
}

// 3. The same controller on a Manager: the `sharding` option replaces leader election.
{
  const stop = new AbortController();
  const signal = stop.signal;
  const reconciled = new Set<string>();
  const identity = podName;
  // #region manager
  const mgr = newManager(config, {
    sharding: { ring: 'configmap-controller', namespace, identity, leaseDurationMs: 15_000, virtualNodes: 100 },
    healthProbeBindAddress: '127.0.0.1:0', // /readyz includes sharding-configmap
  });
  // Sharded by default on a manager with a ring; `.withOptions({ sharded: false })` opts out.
  controllerManagedBy(mgr)
    .for(kinds.coreV1.configMaps)
    .owns(kinds.coreV1.secrets)
    .complete(async ({ namespace, name }) => void reconciled.add(`${namespace}/${name}`));
  const running = mgr.start(signal);
  // #endregion
  await until('every ConfigMap to be reconciled', () => names.every((n) => reconciled.has(`${namespace}/${n}`)));
  const ready = await fetch(`http://${mgr.addresses().healthProbe}/readyz?verbose`);
  console.log(`Manager: ${reconciled.size} ConfigMaps reconciled; /readyz ${ready.status}: ${(await ready.text()).trim().split('\n').join(', ')}`);
  stop.abort();
  await running;
}

for (const name of names) {
  await cs.coreV1().secrets(namespace).delete(`${name}-secret`);
  await cs.coreV1().configMaps(namespace).delete(name);
}
