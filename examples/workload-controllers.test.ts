/**
 * kube-controller-manager's workload controllers (kubeloom/controllers): inside the embedded API server as
 * a developer's cluster, and started on their own against a server. Run with
 * `node --test examples/workload-controllers.test.ts`; see docs/controllers.md.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from 'kubeloom/apiserver';
import { startControllers } from 'kubeloom/controllers';
import { newClientset } from 'kubeloom/kubernetes';
import { eventually } from 'kubeloom/testing';

test('a Deployment rolls out on a developer cluster', async () => {
  // #region cluster
  // A developer's cluster: scheduler and kubelet stand-ins, every controller kubeloom has.
  const server = await startApiServer({ controllers: { scheduler: true, kubelet: true, workloads: true } });
  // kubectl create deployment web --image=nginx && kubectl rollout status deployment/web  → works
  // #endregion
  try {
    const cs = newClientset({ host: server.url });
    await cs.appsV1().deployments('default').create({ metadata: { name: 'web' }, spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } } });
    await eventually(async () => assert.equal((await cs.appsV1().deployments('default').get('web')).status?.availableReplicas, 2));
    await cs.close();
  } finally {
    await server.stop();
  }
});

test('the controllers started on their own against a server', async () => {
  const server = await startApiServer({ controllers: { scheduler: true, kubelet: true } });
  const config = { host: server.url };
  try {
    // #region start
    const running = startControllers(config, { controllers: ['*', '-deployment'] });
    // ...
    await running.stop();
    // #endregion
    assert.deepEqual(running.names, ['cronjob', 'daemonset', 'disruption', 'endpoint', 'endpointslice', 'job', 'nodelifecycle', 'podgc', 'replicaset', 'resourcequota', 'root-ca-cert-publisher', 'serviceaccount', 'statefulset', 'ttl-after-finished']);
  } finally {
    await server.stop();
  }
});
