/**
 * Authentication and RBAC in the embedded API server, checked over HTTP (and with kubectl): 403
 * bodies as kube-apiserver words them, bindings taking effect, reviews, TokenRequest tokens,
 * impersonation, escalation checks, aggregation and client certificates. The expected strings were
 * compared with a kube-apiserver v1.24 running with --authorization-mode=RBAC.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startApiServer, type ApiServer } from '../src/testing/index.ts';
import { call, type Json } from './apiserver-helpers.ts';
import { findKubectl } from './support/kubectl.ts';

const run = promisify(execFile);
// These tests need kubectl: without one they fail (they do not skip).
const kubectlBin = (await findKubectl()) ?? 'kubectl';
const admin = 'admin-token';
const users = [
  { name: 'alice', token: 'alice-token', groups: ['dev'] },
  { name: 'bob', token: 'bob-token' },
];
const as = (token: string, extra: Record<string, string> = {}): { headers: Record<string, string> } => ({ headers: { authorization: `Bearer ${token}`, ...extra } });

// kubectl sends credentials only over TLS (clientcmd ignores them for http:// servers).
async function rbacServer(t: { after: (fn: () => Promise<void>) => void }, tls = false): Promise<ApiServer> {
  const s = await startApiServer({ rbac: true, token: admin, users, tls });
  t.after(() => s.stop());
  if (!tls) await call(s, 'POST', '/api/v1/namespaces', { ...as(admin), body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } } });
  return s;
}

const rbacPath = '/apis/rbac.authorization.k8s.io/v1';

test('RBAC on: anonymous and unbound users get upstream 403 Statuses; bindings grant exactly their rules', async (t) => {
  const s = await rbacServer(t);
  const anon = await call(s, 'GET', '/api');
  assert.equal(anon.status, 403);
  assert.deepEqual(anon.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'forbidden: User "system:anonymous" cannot get path "/api"', reason: 'Forbidden', details: {}, code: 403 });
  assert.equal((await call(s, 'GET', '/version')).status, 200, 'system:public-info-viewer');
  assert.equal((await call(s, 'GET', '/api', as('alice-token'))).status, 200, 'system:discovery');
  assert.equal((await call(s, 'GET', '/api', as('wrong'))).status, 401);
  const denied = await call(s, 'GET', '/api/v1/namespaces/ns/pods', as('alice-token'));
  assert.deepEqual(denied.body, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "ns"',
    reason: 'Forbidden',
    details: { kind: 'pods' },
    code: 403,
  });
  // Unserved resources are 403 too: authorization comes before routing.
  const unserved = await call(s, 'GET', '/apis/nothing.io/v1/namespaces/ns/bars/b', as('alice-token'));
  assert.equal(unserved.body.message, 'bars.nothing.io "b" is forbidden: User "alice" cannot get resource "bars" in API group "nothing.io" in the namespace "ns"');
  assert.deepEqual(unserved.body.details, { name: 'b', group: 'nothing.io', kind: 'bars' });
  await call(s, 'POST', `${rbacPath}/namespaces/ns/roles`, { ...as(admin), body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'pod-reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] } });
  await call(s, 'POST', `${rbacPath}/namespaces/ns/rolebindings`, {
    ...as(admin),
    body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'devs' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' }, subjects: [{ kind: 'Group', name: 'dev' }] },
  });
  assert.equal((await call(s, 'GET', '/api/v1/namespaces/ns/pods', as('alice-token'))).status, 200);
  assert.equal((await call(s, 'GET', '/api/v1/namespaces/ns/pods', as('bob-token'))).status, 403);
  assert.equal((await call(s, 'GET', '/api/v1/namespaces/default/pods', as('alice-token'))).status, 403);
  const watchDenied = await call(s, 'GET', '/api/v1/namespaces/ns/pods?watch=true', as('alice-token'));
  assert.equal(watchDenied.body.message, 'pods is forbidden: User "alice" cannot watch resource "pods" in API group "" in the namespace "ns"');
  await call(s, 'POST', `${rbacPath}/namespaces/ns/rolebindings`, {
    ...as(admin),
    body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'dangling' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'gone' }, subjects: [{ kind: 'User', name: 'bob' }] },
  });
  assert.equal(
    (await call(s, 'GET', '/api/v1/namespaces/ns/pods', as('bob-token'))).body.message,
    'pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "ns": RBAC: role.rbac.authorization.k8s.io "gone" not found',
  );
});

test('reviews answer for the caller or a named subject; TokenRequest tokens act as the ServiceAccount', async (t) => {
  const s = await rbacServer(t);
  const ssar = (token: string, attrs: Json): Promise<Json> =>
    call(s, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { ...as(token), body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: attrs } } });
  const mine = await ssar(admin, { verb: 'list', resource: 'pods', namespace: 'ns' });
  assert.equal(mine.status, 201);
  // The create handler records the request's fields under its field manager (the User-Agent's product here).
  const { managedFields, ...meta } = mine.body.metadata;
  assert.deepEqual({ ...mine.body, metadata: meta }, { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', metadata: { creationTimestamp: null }, spec: { resourceAttributes: { verb: 'list', resource: 'pods', namespace: 'ns' } }, status: { allowed: true } });
  assert.deepEqual(
    managedFields.map((m: Json) => [m.operation, Object.keys(m.fieldsV1['f:spec']['f:resourceAttributes']).sort()]),
    [['Update', ['.', 'f:namespace', 'f:resource', 'f:verb']]],
  );
  assert.deepEqual((await ssar('bob-token', { verb: 'list', resource: 'pods', namespace: 'ns' })).body.status, { allowed: false });
  const sar = await call(s, 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
    ...as(admin),
    body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'bob', groups: ['system:authenticated'], nonResourceAttributes: { verb: 'get', path: '/api' } } },
  });
  assert.deepEqual(sar.body.status, { allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"' });
  const badSar = await call(s, 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', { ...as(admin), body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'bob' } } });
  assert.equal(badSar.status, 422);
  const ssrr = await call(s, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { ...as('bob-token'), body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'ns' } } });
  assert.deepEqual(ssrr.body.status.resourceRules, [{ verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] }]);
  assert.deepEqual(
    ssrr.body.status.nonResourceRules.map((r: Json) => r.nonResourceURLs.length),
    [11, 5],
  );
  // A ServiceAccount, a token for it, and the token used as a credential.
  await call(s, 'POST', '/api/v1/namespaces/ns/serviceaccounts', { ...as(admin), body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'bot' } } });
  const tr = await call(s, 'POST', '/api/v1/namespaces/ns/serviceaccounts/bot/token', { ...as(admin), body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} } });
  assert.equal(tr.status, 201);
  // boundObjectRef is a pointer without omitempty in the Go type: kube-apiserver answers it as null.
  assert.deepEqual(tr.body.spec, { audiences: ['https://kubernetes.default.svc'], expirationSeconds: 3600, boundObjectRef: null });
  const token: string = tr.body.status.token;
  const who = await ssar(token, { verb: 'get', resource: 'pods', namespace: 'ns' });
  assert.equal(who.status, 201);
  const denied = await call(s, 'GET', '/api/v1/namespaces/ns/pods', as(token));
  assert.equal(denied.body.message, 'pods is forbidden: User "system:serviceaccount:ns:bot" cannot list resource "pods" in API group "" in the namespace "ns"');
  const review = await call(s, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', { ...as(admin), body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } } });
  assert.deepEqual(review.body.status.user.groups, ['system:serviceaccounts', 'system:serviceaccounts:ns', 'system:authenticated']);
  const short = await call(s, 'POST', '/api/v1/namespaces/ns/serviceaccounts/bot/token', { ...as(admin), body: { spec: { expirationSeconds: 60 } } });
  assert.equal(short.body.message, 'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes');
  const missing = await call(s, 'POST', '/api/v1/namespaces/ns/serviceaccounts/nobody/token', { ...as(admin), body: { spec: {} } });
  assert.equal(missing.body.message, 'serviceaccounts "nobody" not found');
  // Deleting the ServiceAccount invalidates its tokens.
  await call(s, 'DELETE', '/api/v1/namespaces/ns/serviceaccounts/bot', as(admin));
  assert.equal((await ssar(token, { verb: 'get', resource: 'pods' })).status, 401);
});

test('impersonation needs the impersonate verb; the impersonated user is then authorized; bad headers get 500', async (t) => {
  const s = await rbacServer(t);
  const asAlice = await call(s, 'GET', '/api/v1/namespaces/ns/pods', as(admin, { 'impersonate-user': 'alice' }));
  assert.equal(asAlice.body.message, 'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "ns"');
  const bobAsAlice = await call(s, 'GET', '/api/v1/namespaces/ns/pods', as('bob-token', { 'impersonate-user': 'alice' }));
  assert.deepEqual([bobAsAlice.status, bobAsAlice.body.message, bobAsAlice.body.details], [403, 'users "alice" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope', { name: 'alice', kind: 'users' }]);
  const saImp = await call(s, 'GET', '/api', as('bob-token', { 'impersonate-user': 'system:serviceaccount:ns:bot' }));
  assert.equal(saImp.body.message, 'serviceaccounts "bot" is forbidden: User "bob" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns"');
  const groupsOnly = await call(s, 'GET', '/api', as(admin, { 'impersonate-group': 'g1' }));
  assert.deepEqual([groupsOnly.status, groupsOnly.text], [500, 'Internal Server Error: "/api": requested [{Group  g1    }] without impersonating a user\n']);
  const ssar = await call(s, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { ...as(admin, { 'impersonate-user': 'system:serviceaccount:ns:bot' }), body: { spec: { namespace: 'ns' } } });
  assert.equal(ssar.status, 201);
});

test('role and binding writes cannot grant what the writer lacks, unless it may escalate or bind', async (t) => {
  const s = await rbacServer(t);
  const post = (token: string, path: string, body: Json): Promise<Json> => call(s, 'POST', `${rbacPath}${path}`, { ...as(token), body });
  await post(admin, '/namespaces/ns/roles', { kind: 'Role', apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { name: 'rbac-writer' }, rules: [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['create', 'update', 'get'] }] });
  await post(admin, '/namespaces/ns/rolebindings', { kind: 'RoleBinding', apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { name: 'alice-writer' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'rbac-writer' }, subjects: [{ kind: 'User', name: 'alice' }] });
  const grab = await post('alice-token', '/namespaces/ns/roles', { kind: 'Role', apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { name: 'grab' }, rules: [{ apiGroups: [''], resources: ['secrets', 'pods'], verbs: ['get', 'create'] }] });
  assert.equal(grab.status, 403);
  assert.equal(
    grab.body.message,
    'roles.rbac.authorization.k8s.io "grab" is forbidden: user "alice" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["get" "create"]}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "create"]}',
  );
  // Granting what alice holds is fine.
  assert.equal((await post('alice-token', '/namespaces/ns/roles', { kind: 'Role', apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { name: 'mine' }, rules: [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], verbs: ['get'] }] })).status, 201);
  const bindAdmin = await post('alice-token', '/namespaces/ns/rolebindings', { kind: 'RoleBinding', apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { name: 'x' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' }, subjects: [{ kind: 'User', name: 'alice' }] });
  assert.equal(bindAdmin.status, 403);
  assert.match(bindAdmin.body.message, /^rolebindings\.rbac\.authorization\.k8s\.io "x" is forbidden: user "alice" .* is attempting to grant RBAC permissions not currently held:\n/);
  const bindMissing = await post('alice-token', '/namespaces/ns/rolebindings', { kind: 'RoleBinding', apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { name: 'y' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'nonexistent' }, subjects: [{ kind: 'User', name: 'alice' }] });
  assert.deepEqual([bindMissing.status, bindMissing.body.message], [404, 'clusterroles.rbac.authorization.k8s.io "nonexistent" not found']);
  // With `bind` on the admin ClusterRole the binding is allowed.
  await post(admin, '/clusterroles', { kind: 'ClusterRole', apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { name: 'bind-admin' }, rules: [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['bind'], resourceNames: ['admin'] }] });
  await post(admin, '/namespaces/ns/rolebindings', { kind: 'RoleBinding', apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { name: 'alice-bind' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'bind-admin' }, subjects: [{ kind: 'User', name: 'alice' }] });
  assert.equal((await post('alice-token', '/namespaces/ns/rolebindings', { kind: 'RoleBinding', apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { name: 'x' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' }, subjects: [{ kind: 'User', name: 'alice' }] })).status, 201);
  // Now alice is admin of ns and may read its pods.
  assert.equal((await call(s, 'GET', '/api/v1/namespaces/ns/pods', as('alice-token'))).status, 200);
});

test('aggregated ClusterRoles gather the rules of the roles their labels select', async (t) => {
  const s = await rbacServer(t);
  const view = await call(s, 'GET', `${rbacPath}/clusterroles/view`, as(admin));
  assert.ok(view.body.rules.length > 5, 'view is filled from system:aggregate-to-view');
  assert.ok(!view.body.rules.some((r: Json) => (r.resources ?? []).includes('widgets')));
  await call(s, 'POST', `${rbacPath}/clusterroles`, {
    ...as(admin),
    body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'widget-viewer', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }, rules: [{ apiGroups: ['demo.io'], resources: ['widgets'], verbs: ['get', 'list', 'watch'] }] },
  });
  for (const name of ['view', 'edit', 'admin']) {
    const role = await call(s, 'GET', `${rbacPath}/clusterroles/${name}`, as(admin));
    assert.ok(role.body.rules.some((r: Json) => (r.resources ?? []).includes('widgets')), `${name} aggregates widget-viewer`);
  }
  const managers = (await call(s, 'GET', `${rbacPath}/clusterroles/view`, as(admin))).body.metadata.managedFields.map((m: Json) => m.manager);
  assert.ok(managers.includes('clusterrole-aggregation-controller'));
  await call(s, 'DELETE', `${rbacPath}/clusterroles/widget-viewer`, as(admin));
  await Promise.resolve();
  const after = await call(s, 'GET', `${rbacPath}/clusterroles/admin`, as(admin));
  assert.ok(!after.body.rules.some((r: Json) => (r.resources ?? []).includes('widgets')));
});

test('client certificates from the client CA authenticate CN as the user and O as groups; others get 401', async (t) => {
  const s = await startApiServer({ tls: true, rbac: true, users });
  t.after(() => s.stop());
  const cert = await s.issueClientCertificate({ name: 'carol', groups: ['dev', 'ops'] });
  const get = (path: string, o: { cert?: string; key?: string }): Promise<{ status: number; body: Json }> =>
    new Promise((resolve, reject) => {
      const req = request(`${s.url}${path}`, { ca: s.caCertPem, ...(o.cert === undefined ? {} : { cert: o.cert, key: o.key }) }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      });
      req.on('error', reject);
      req.end();
    });
  const r = await get('/api/v1/namespaces/default/pods', { cert: cert.certPem, key: cert.keyPem });
  assert.equal(r.body.message, 'pods is forbidden: User "carol" cannot list resource "pods" in API group "" in the namespace "default"');
  const other = await startApiServer({ tls: true });
  t.after(() => other.stop());
  const foreign = await other.issueClientCertificate({ name: 'mallory', groups: ['system:masters'] });
  assert.equal((await get('/api', { cert: foreign.certPem, key: foreign.keyPem })).status, 401);
  // kubectl with a client-certificate kubeconfig.
  const dir = await mkdtemp(join(tmpdir(), 'kubeloom-rbac-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const kc = join(dir, 'carol');
  await writeFile(kc, s.userKubeconfig({ certificate: cert }));
  const out = await run(kubectlBin, ['--kubeconfig', kc, 'auth', 'can-i', 'list', 'pods']).catch((e: { stdout: string; code: number }) => e);
  assert.equal(out.stdout.trim(), 'no');
});

test('kubectl auth can-i, can-i --list, can-i --as and create token work against the embedded server', async (t) => {
  const s = await rbacServer(t, true);
  const dir = await mkdtemp(join(tmpdir(), 'kubeloom-rbac-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const kc = join(dir, 'admin');
  await s.writeKubeconfig(kc);
  const kubectl = async (...args: string[]): Promise<string> => {
    const r = await run(kubectlBin, ['--kubeconfig', kc, ...args]).catch((e: { stdout: string; stderr: string }) => e);
    return (r.stdout.trim() === '' ? r.stderr : r.stdout).trim();
  };
  await kubectl('create', 'namespace', 'ns');
  assert.equal(await kubectl('auth', 'can-i', 'delete', 'nodes'), 'yes');
  assert.equal(await kubectl('auth', 'can-i', 'list', 'pods', '-n', 'ns', '--as', 'alice'), 'no');
  assert.equal(await kubectl('auth', 'can-i', 'list', 'pods', '-n', 'ns', '--as', 'alice', '--as-group', 'system:masters'), 'yes');
  const list = await kubectl('auth', 'can-i', '--list', '-n', 'ns', '--as', 'bob');
  assert.match(list, /selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]/);
  assert.match(list, /\[\/api\/\*\]\s+\[\]\s+\[get\]/);
  await kubectl('create', 'serviceaccount', 'bot', '-n', 'ns');
  const token = await kubectl('create', 'token', 'bot', '-n', 'ns', '--duration', '20m');
  assert.match(token, /^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
  const kcBot = join(dir, 'bot');
  await writeFile(kcBot, s.userKubeconfig({ token }));
  const r = await run(kubectlBin, ['--kubeconfig', kcBot, 'get', 'pods', '-n', 'ns']).catch((e: { stderr: string }) => e);
  assert.match(r.stderr, /pods is forbidden: User "system:serviceaccount:ns:bot" cannot list resource "pods" in API group "" in the namespace "ns"/);
});
