/**
 * The CronJob operator's entry point, as kubebuilder's cmd/main.go: a manager with leader election,
 * health probes and metrics, the CronJob CRD installed if missing, the controller registered, and exit
 * codes a Deployment understands. Run: node examples/cronjob/main.ts <kubeconfig>
 */
import { loadKubeConfigFile, restConfigFrom } from 'kubeloom/clientcmd';
import { exitCodeFor, newManager, setupSignalHandler } from 'kubeloom/manager';
import { installCrds } from 'kubeloom/testing';
import { cronJobCrd } from './api.ts';
import { setupCronJobController } from './controller.ts';

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
const error = await mgr.start(setupSignalHandler()).then(
  () => undefined,
  (err: unknown) => err,
);
if (error !== undefined) console.error('problem running manager:', error);
process.exit(exitCodeFor(error));
// #endregion
