/**
 * The manager's webhook server (controller-runtime pkg/manager: Options.WebhookServer,
 * GetWebhookServer, and runnable_group.go's webhooks group). A {@link WebhookServer} runs in the
 * `webhooks` group, on every replica, and counts as ready once it listens, so caches (which may need
 * conversion webhooks to list custom resources) start after it serves. kubeloom waits for the listener
 * where upstream only waits for the goroutine to start: a certificate that cannot be read fails the
 * manager before anything reads the cluster.
 */
import type { WebhookServer } from '../webhook/server.ts';
import { RunnableGroup, type Runnable } from './runnable.ts';

/** A webhook server as a runnable of the `webhooks` group, ready once it listens. */
export function webhookServerRunnable(server: Pick<WebhookServer, 'start' | 'whenStarted'>): Runnable {
  return {
    runnableGroup: RunnableGroup.Webhooks,
    needLeaderElection: () => false,
    start: (signal) => server.start(signal),
    waitReady: (signal) =>
      new Promise<boolean>((resolve) => {
        if (signal.aborted) return resolve(false);
        const onAbort = (): void => resolve(false);
        signal.addEventListener('abort', onAbort, { once: true });
        server.whenStarted().then(
          () => {
            signal.removeEventListener('abort', onAbort);
            resolve(true);
          },
          // start() rejected: the manager stops with that error.
          () => {
            signal.removeEventListener('abort', onAbort);
            resolve(false);
          },
        );
      }),
  };
}
