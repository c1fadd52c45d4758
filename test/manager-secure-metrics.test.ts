/**
 * The manager's secure metrics server against the embedded API server with RBAC on
 * (controller-runtime pkg/metrics/filters/filters.go): HTTPS with an in-memory self-signed certificate,
 * every scrape authenticated by a TokenReview and authorized by a SubjectAccessReview sent with the
 * manager's own ServiceAccount, which holds only kubebuilder's metrics-auth rules.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { newManager } from '../src/manager/manager.ts';
import { withAuthenticationAndAuthorization } from '../src/manager/metrics-auth.ts';
import { eventually } from '../src/testing/eventually.ts';
import { startApiServer, type ApiServer } from '../src/testing/index.ts';
import { call } from './apiserver-helpers.ts';

const adminToken = 'admin-token';
const headers = { authorization: `Bearer ${adminToken}` };
const ns = 'framework-metrics';

async function put(server: ApiServer, path: string, body: Record<string, unknown>): Promise<void> {
  const r = await call(server, 'POST', path, { headers, body });
  assert.equal(r.status, 201, r.text);
}

async function serviceAccountToken(server: ApiServer, name: string): Promise<string> {
  await put(server, `/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name } });
  const r = await call(server, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`, { headers, body: { spec: {} } });
  return r.body.status.token as string;
}

async function bindClusterRole(server: ApiServer, name: string, rules: unknown[], serviceAccount: string): Promise<void> {
  await put(server, '/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name }, rules });
  await put(server, '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
    subjects: [{ kind: 'ServiceAccount', name: serviceAccount, namespace: ns }],
  });
}

// GET over HTTPS trusting any certificate (the server's is self-signed), with the certificate's names.
function scrape(address: string, token: string | undefined, path = '/metrics'): Promise<{ status: number; body: string; subject: string; altNames: string }> {
  const url = new URL(`https://${address}${path}`);
  return new Promise((resolve, reject) => {
    const req = request(url, { rejectUnauthorized: false, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } }, (res) => {
      const cert = (res.socket as TLSSocket).getPeerCertificate();
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, subject: String(cert.subject?.CN), altNames: cert.subjectaltname ?? '' }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('secure metrics: HTTPS with a self-signed certificate; no token 401, a ServiceAccount without nonResourceURLs /metrics get 403, with it 200', async (t) => {
  const server = await startApiServer({ rbac: true, token: adminToken, tls: false });
  t.after(() => server.stop());
  await put(server, '/api/v1/namespaces', { metadata: { name: ns } });
  // The manager's identity: kubebuilder's metrics_auth_role.yaml and nothing else.
  const managerToken = await serviceAccountToken(server, 'manager');
  await bindClusterRole(
    server,
    'framework-metrics-auth',
    [
      { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
      { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
    ],
    'manager',
  );
  // The scraper: metrics_reader_role.yaml.
  const readerToken = await serviceAccountToken(server, 'prometheus');
  await bindClusterRole(server, 'framework-metrics-reader', [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }], 'prometheus');
  const strangerToken = await serviceAccountToken(server, 'stranger');

  const mgr = newManager(
    { host: server.url, bearerToken: managerToken, qps: -1 },
    { logger: { debug() {}, info() {}, error() {} }, stalledWatchDetection: false, metricsBindAddress: '127.0.0.1:0', metricsServer: { secureServing: true, filterProvider: withAuthenticationAndAuthorization } },
  );
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  t.after(async () => {
    stop.abort();
    await running;
  });
  const address = (await eventually(() => mgr.addresses().metrics ?? null, { timeoutMs: 10_000 }))!;

  const anonymous = await scrape(address, undefined);
  assert.deepEqual([anonymous.status, anonymous.body], [401, 'Unauthorized\n']);
  assert.equal(anonymous.subject, 'localhost');
  assert.match(anonymous.altNames, /DNS:localhost/);
  assert.match(anonymous.altNames, /IP Address:127\.0\.0\.1/);
  assert.deepEqual(Object.values(await scrape(address, 'not-a-token')).slice(0, 2), [401, 'Unauthorized\n']);

  const stranger = await scrape(address, strangerToken);
  assert.deepEqual([stranger.status, stranger.body], [403, `Authorization denied for user system:serviceaccount:${ns}:stranger\n`]);
  // The reader may get /metrics only: its rule names no other path.
  const otherPath = await scrape(address, readerToken, '/debug');
  assert.equal(otherPath.status, 403);

  const reader = await scrape(address, readerToken);
  assert.equal(reader.status, 200, reader.body);
  assert.match(reader.body, /^# HELP rest_client_requests_total /m);
  // The manager's own reviews are counted: it sent them as the "manager" ServiceAccount.
  assert.match(reader.body, /rest_client_requests_total\{code="201",method="POST",host="[^"]+"\} [1-9]/);
});
