/**
 * A user's own {@link SharedInformerFactory} run by the Manager (controller-runtime runnable_group.go:
 * a runnable that has a cache goes to the caches group, started before the controllers and waited for
 * until synced). `mgr.add(factory)` starts the factory's informers with the manager's caches, waits
 * for them to sync before controllers start, and shuts the factory down when the manager stops.
 */
import type { SharedInformerFactory } from '../tools/cache/shared-informer-factory.ts';
import { RunnableGroup, type Runnable } from './runnable.ts';

/** `factory` as a runnable of the caches group, ready once every informer started so far synced. */
export function informerFactoryRunnable(factory: SharedInformerFactory): Runnable {
  return {
    runnableGroup: RunnableGroup.Caches,
    needLeaderElection: () => false,
    start: async (signal) => {
      factory.start({ signal });
      if (!signal.aborted) await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
      await factory.shutdown();
    },
    waitReady: async (signal) => {
      const synced = await factory.waitForCacheSync({ signal });
      return !signal.aborted && [...synced.values()].every(Boolean);
    },
  };
}
