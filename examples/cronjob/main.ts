/**
 * The CronJob operator's entry point, as kubebuilder's cmd/main.go: a manager with leader election,
 * health probes and metrics, the CronJob CRD installed if missing, the controller and (unless
 * ENABLE_WEBHOOKS=false) the defaulting and validating webhooks registered, and exit codes a Deployment
 * understands. Run: node examples/cronjob/main.ts <kubeconfig>. The webhooks run in development mode:
 * a CA and serving certificate are made in the webhook server's certDir and the cluster is pointed at
 * https://127.0.0.1:9443, so the API server must run on this machine (the embedded one, or a local
 * kube-apiserver); in a cluster, cert-manager and a Service do that instead.
 */
import { loadKubeConfigFile, restConfigFrom } from 'kubeloom/clientcmd';
import { exitCodeFor, newManager, setupSignalHandler } from 'kubeloom/manager';
import { newClientset } from 'kubeloom/kubernetes';
import { installCrds } from 'kubeloom/testing';
import { setupDevWebhooks } from 'kubeloom/webhook';
import { cronJobCrd } from './api.ts';
import { setupCronJobController } from './controller.ts';
import { setupCronJobWebhookWithManager } from './webhook.ts';

const kubeconfig = process.argv[2];
if (kubeconfig === undefined) {
  console.error('usage: node examples/cronjob/main.ts <kubeconfig>');
  process.exit(2);
}
const config = await restConfigFrom(await loadKubeConfigFile(kubeconfig));
await installCrds(config, { crds: [cronJobCrd] });
// #region manager
const mgr = newManager(config, {
  healthProbeBindAddress: '127.0.0.1:8081',
  metricsBindAddress: '127.0.0.1:8080',
  leaderElection: { id: '80807133.tutorial.kubebuilder.io' },
});
mgr.addHealthzCheck('healthz', () => undefined);
mgr.addReadyzCheck('readyz', mgr.cacheSyncedCheck());
setupCronJobController(mgr);
// #endregion
// #region main-webhooks
if (process.env['ENABLE_WEBHOOKS'] !== 'false') {
  const webhooks = setupCronJobWebhookWithManager(mgr);
  mgr.addReadyzCheck('webhook', mgr.getWebhookServer().startedChecker());
  // Development mode: certificates in the server's certDir, the configurations pointing at it.
  await setupDevWebhooks({
    clientset: newClientset(config),
    server: mgr.getWebhookServer(),
    mutating: [{ name: 'cronjob-mutating-webhook-configuration', webhooks: [webhooks.mutatingWebhook()] }],
    validating: [{ name: 'cronjob-validating-webhook-configuration', webhooks: [webhooks.validatingWebhook()] }],
  });
}
// #endregion
// #region manager
const error = await mgr.start(setupSignalHandler()).then(
  () => undefined,
  (err: unknown) => err,
);
if (error !== undefined) console.error('problem running manager:', error);
process.exit(exitCodeFor(error));
// #endregion
