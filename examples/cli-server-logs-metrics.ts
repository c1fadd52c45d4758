/**
 * The embedded API server started from a script rather than `kubeloom apiserver`, to give kubectl
 * pod logs and metrics: no kubelet or metrics-server runs, so the script sets what
 * `kubectl logs` and `kubectl top` show. `node examples/cli-server-logs-metrics.ts` starts it, checks
 * what it serves and stops; a script of your own would leave it running.
 */
import { rm } from 'node:fs/promises';
import { newClientset } from 'kubeloom/kubernetes';

// #region serve
import { startApiServer } from 'kubeloom/testing';

const server = await startApiServer({ controllers: { scheduler: true, kubelet: true } }); // --scheduler --kubelet
await server.writeKubeconfig('kubeloom.kubeconfig'); // then: KUBECONFIG=kubeloom.kubeconfig kubectl logs web
server.setPodLogs('default', 'web', ['starting', 'listening on :8080']); // kubectl logs web
server.setPodMetrics([{ namespace: 'default', name: 'web', containers: [{ name: 'app', usage: { cpu: '250m', memory: '64Mi' } }] }]); // kubectl top pod
server.setNodeMetrics([{ name: 'kubeloom-node', usage: { cpu: '1', memory: '2Gi' } }]); // kubectl top node
// #endregion

const clientset = newClientset({ host: server.url });
try {
  await clientset.coreV1().pods('default').create({ metadata: { name: 'web' }, spec: { containers: [{ name: 'app', image: 'nginx' }] } });
  await clientset.coreV1().pods('default').create({ metadata: { name: 'quiet' }, spec: { containers: [{ name: 'app', image: 'nginx' }] } });
  // A pod whose logs nobody set has an empty log, as the CLI server's pods do.
  if ((await clientset.coreV1().podLogs('default').get('quiet')) !== '') throw new Error('expected an empty log');
  const logs = await clientset.coreV1().podLogs('default').get('web');
  const metrics = await clientset.restClient.json<{ items: unknown[] }>({ verb: 'GET', path: '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods', query: [], headers: { accept: 'application/json' } });
  if (logs !== 'starting\nlistening on :8080\n' || metrics.items.length !== 1) throw new Error(`unexpected: ${JSON.stringify({ logs, metrics })}`);
  console.log(JSON.stringify(logs), metrics.items.length);
} finally {
  await clientset.close();
  await server.stop();
  await rm('kubeloom.kubeconfig', { force: true });
}
