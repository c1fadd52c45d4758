/**
 * Loading a kubeconfig the way kubectl does, with overrides, and falling back to the embedded API
 * server when nothing is configured. Reads KUBECONFIG (or ~/.kube/config); writes nothing.
 */
// #region load
import { loadKubeConfig, namespaceOf, NoConfigurationError, restConfigFrom } from 'kubeloom/clientcmd';

try {
  const kubeconfig = await loadKubeConfig({ overrides: { namespace: 'team-a' } }); // also: context, path, ...
  const config = await restConfigFrom(kubeconfig); // host, TLS, token/exec/cert, impersonation
  const namespace = namespaceOf(kubeconfig); // 'team-a'
  console.log(`context ${kubeconfig.currentContext}: ${config.host}, namespace ${namespace}`);
} catch (err) {
  if (err instanceof NoConfigurationError) {
    // nothing configured anywhere: e.g. start the embedded API server instead
    console.log('no kubeconfig found');
  } else throw err;
}
// #endregion
