/**
 * The embedded API server (kubeloom/testing): an in-process Kubernetes API server on loopback,
 * with TLS and token authentication if asked, kubectl-compatible, with fault injection for tests.
 * Needs no cluster: `node examples/embedded-apiserver.ts`.
 */
// #region server
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer } from 'kubeloom/testing';
import { newClientset } from 'kubeloom/kubernetes';

const server = await startApiServer({ tls: true, token: 's3cret' }); // https://127.0.0.1:<free port>
const clientset = newClientset({ host: server.url, bearerToken: 's3cret', tls: { caData: server.caCertPem } });
await server.writeKubeconfig(join(tmpdir(), 'kubeloom.kubeconfig')); // for kubectl: KUBECONFIG=/tmp/kubeloom.kubeconfig kubectl get ns

server.faults.failNext({ verb: 'list', resource: 'configmaps', status: 429, retryAfterSeconds: 1 });
const list = await clientset.coreV1().configMaps('default').list(); // retried after the 429's Retry-After
server.faults.compact(); // older resourceVersions now answer 410 Expired
await server.faults.restart(); // same port, same data
console.log(list.items.length, server.revision()); // the current resourceVersion

await clientset.close();
await server.stop();
// #endregion

// #region raw
// Plain HTTP works too: the server speaks kube-apiserver's REST API.
const plain = await startApiServer(); // http://127.0.0.1:<free port>, no authentication
try {
  const res = await fetch(`${plain.url}/api/v1/namespaces/default/configmaps`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'demo' }, data: { a: '1' } }),
  });
  console.log(res.status, plain.revision()); // 201, the current resourceVersion
} finally {
  await plain.stop();
}
// #endregion

// #region logs
// No kubelet runs here: tests provide the log lines GET .../pods/{name}/log serves.
const logServer = await startApiServer();
const cs = newClientset({ host: logServer.url });
await cs.coreV1().pods('default').create({ metadata: { name: 'web-0' }, spec: { containers: [{ name: 'app', image: 'nginx' }] } });
logServer.setPodLogs('default', 'web-0', ['starting', 'listening on :8080'], 'app');

const logs = cs.coreV1().podLogs('default');
const text = await logs.get('web-0', { container: 'app', tailLines: 100 }); // 'starting\nlistening on :8080\n'
const following = await logs.follow('web-0', { container: 'app' }); // lines as they are written
logServer.appendPodLogs('default', 'web-0', ['GET /healthz 200'], 'app');
for await (const line of following) {
  console.log(line);
  if (line.startsWith('GET')) break; // break closes the stream (aborting its signal rejects instead)
}
console.log(JSON.stringify(text));
await cs.close();
await logServer.stop();
// #endregion
