/**
 * A developer's cluster for the workload controller tests: the embedded server with the scheduler and
 * kubelet stand-ins and kube-controller-manager's workload controllers, a clientset, and a wait on a
 * resource's objects driven by list+watch (no polling, no sleeps).
 */
import type { TestContext } from 'node:test';
import { startApiServer, type ApiServer, type ApiServerOptions } from '../../src/apiserver/index.ts';
import type { ControllerOptions } from '../../src/apiserver/controllers/controller-manager.ts';
import { newClientset, type Clientset } from '../../src/kubernetes/clientset.ts';
import type { KubeObject } from '../../src/apimachinery/object.ts';
import type { ListerWatcher } from '../../src/tools/cache/listwatch.ts';
import { untilWithSync } from '../../src/tools/watch/index.ts';

/** A running cluster and a client for it. */
export interface Cluster {
  server: ApiServer;
  client: Clientset;
}

/**
 * Starts a server with the stand-ins and the workload controllers (or the ones `controllers` selects);
 * stopped when the test ends.
 */
export async function startCluster(t: TestContext, controllers: ControllerOptions = {}, options: ApiServerOptions = {}): Promise<Cluster> {
  // Sync errors are retried by the controllers; the tests judge by the objects, not by stderr.
  const server = await startApiServer({ ...options, controllers: { scheduler: true, kubelet: true, workloads: true, onError: () => undefined, ...controllers } });
  const client = newClientset({ host: server.url, ...(server.caCertPem === undefined ? {} : { tls: { caData: server.caCertPem } }) });
  t.after(async () => {
    await client.close();
    await server.stop();
  });
  return { server, client };
}

/** What {@link waitForItems} lists and watches. */
export interface ListWatchClient<T> {
  list: ListerWatcher<T>['list'];
  watch: ListerWatcher<T>['watch'];
}

/**
 * Resolves with a resource's objects once `ok` holds for them; list+watch, so it sees every change.
 * Fails after 20 s (a generous bound against a wedged controller, never reached when things work).
 */
export async function waitForItems<T extends KubeObject>(client: ListWatchClient<T>, ok: (items: T[]) => boolean, timeoutMs = 20_000): Promise<T[]> {
  const current = new Map<string, T>();
  const key = (o: T): string => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
  let result: T[] = [];
  await untilWithSync(
    { list: (o) => client.list(o), watch: (o) => client.watch(o) },
    (e) => {
      if (e.type === 'DELETED') current.delete(key(e.object));
      else current.set(key(e.object), e.object);
      result = [...current.values()];
      return ok(result);
    },
    {
      timeoutMs,
      precondition: (store) => {
        for (const [k, v] of store) current.set(k, v);
        result = [...store.values()];
        return ok(result);
      },
    },
  );
  return result;
}

/** Waits for one named object to satisfy `ok` (undefined: absent). */
export async function waitForObject<T extends KubeObject>(client: ListWatchClient<T>, name: string, ok: (obj: T | undefined) => boolean): Promise<T | undefined> {
  const items = await waitForItems(client, (all) => ok(all.find((o) => o.metadata?.name === name)));
  return items.find((o) => o.metadata?.name === name);
}
