/**
 * Leader election on a coordination.k8s.io Lease: only the leader runs the guarded work, which stops
 * when leadership ends. This program leads, works until it has done three rounds, then releases the
 * Lease. Runs against the cluster of KUBECONFIG (or ~/.kube/config), with a Lease named
 * `example-leader` in the context's namespace (released, not deleted, at the end). To try it without
 * a cluster:
 *
 *   npx kubeloom apiserver --write-kubeconfig kubeloom.kubeconfig   # in another terminal
 *   KUBECONFIG=kubeloom.kubeconfig node examples/leader-election.ts
 */
import { loadKubeConfig, namespaceOf, restConfigFrom } from 'kubeloom/clientcmd';
import { newClientset } from 'kubeloom/kubernetes';
import { realClock } from 'kubeloom/util/clock';

const kubeconfig = await loadKubeConfig();
const clientset = newClientset(await restConfigFrom(kubeconfig));
const namespace = namespaceOf(kubeconfig);
const stop = new AbortController();

/** The work only the leader does; it must stop when `signal` aborts. */
async function work(signal: AbortSignal): Promise<void> {
  for (let round = 1; round <= 3 && !signal.aborted; round++) {
    console.log(`leading: round ${round}`);
    await realClock.sleep(200, signal).catch(() => undefined);
  }
  stop.abort(); // done: give up leadership (releaseOnCancel clears the Lease)
}

// #region elector
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { HealthzAdaptor, LeaderElector, LeaseLock } from 'kubeloom/tools/leaderelection';

const lock = new LeaseLock({
  client: clientset.coordinationV1().leases(namespace),
  namespace,
  name: 'example-leader',
  identity: `${hostname()}_${randomUUID()}`,
});
const watchDog = new HealthzAdaptor({ maxTolerableExpiredLeaseMs: 20_000 }); // for a /healthz endpoint
const elector = new LeaderElector({
  lock,
  leaseDurationMs: 15_000, // required, as in client-go: component-base's values (DEFAULT_LEASE_DURATION_MS, ...)
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
  releaseOnCancel: true, // on stop, clear the holder so another candidate takes over at once
  watchDog,
  callbacks: {
    onStartedLeading: (signal) => work(signal), // `signal` aborts when leadership ends
    onStoppedLeading: () => console.log('no longer leading'),
    onNewLeader: (identity) => console.log(`leader is now ${identity}`),
  },
});
await elector.run({ signal: stop.signal }); // resolves when `signal` aborts or leadership is lost
// #endregion

await clientset.close();
