/**
 * Least privilege on the embedded server with RBAC on: the copy operator's rules are learned from its
 * requests (run once as admin, recorded with `recordRequestsTo`), a ServiceAccount bound only to them
 * runs it with a TokenRequest token and it reconciles; with any one learned permission removed, the
 * operator reports the 403 of exactly that permission — except the elector's `watch` on leases (it
 * falls back to polling the Lease) and `list`, which this server's WatchList
 * makes unnecessary (the informers stream their initial list from a watch) and kube-apiserver 1.24
 * needs. test/real-rbac/least-privilege.ts does the same against kube-apiserver.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ConfigMap, Secret } from '../src/api/core/v1.ts';
import { ResourceClient } from '../src/kubernetes/resource-client.ts';
import { learnPolicy, readRequestRecords } from '../src/rbac/learn.ts';
import { atomKey, compactRules, describeAtom, ruleAtoms, type RuleAtom } from '../src/rbac/policy-rules.ts';
import { RestClient } from '../src/rest/client.ts';
import type { RestConfig } from '../src/rest/config.ts';
import { eventually } from '../src/testing/eventually.ts';
import { startApiServer, type ApiServer } from '../src/testing/index.ts';
import { copiedAnnotation, copyLabel, runCopyOperator } from './fixtures/rbac-operator/operator.ts';
import { call } from './apiserver-helpers.ts';

const adminToken = 'admin-token';
const opNs = 'operator-system';
const workNs = 'default';
const headers = { authorization: `Bearer ${adminToken}` };

// Runs the operator on a new labelled ConfigMap (changing its data once the Secret exists) until `until`
// holds for what it reported and whether the change reached the Secret.
async function runUntil(server: ApiServer, config: RestConfig, name: string, until: (errors: string[], copied: boolean) => boolean): Promise<{ errors: string[]; copied: boolean }> {
  const admin = new RestClient({ host: server.url, bearerToken: adminToken, qps: -1 });
  const configMaps = new ResourceClient<ConfigMap>(admin, { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, namespace: workNs });
  const secrets = new ResourceClient<Secret>(admin, { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true, namespace: workNs });
  const errors: string[] = [];
  const note = (m: string, f?: unknown): void => void errors.push(`${m} ${f === undefined ? '' : JSON.stringify(f)}`);
  const originalError = console.error;
  // The informers' reflectors report list and watch failures on stderr.
  console.error = (...args: unknown[]): void => note(args.map(String).join(' '));
  const stop = new AbortController();
  const running = runCopyOperator(config, { namespace: opNs, signal: stop.signal, logger: { debug() {}, info() {}, error: note } }).catch((err: unknown) => note(`manager stopped: ${(err as Error).message}`));
  let copied = false;
  try {
    await configMaps.create({ metadata: { name, labels: { [copyLabel]: 'true' } }, data: { greeting: 'hello' } });
    let changed = false;
    await eventually(
      async () => {
        const secret = await secrets.get(`${name}-copy`).catch(() => undefined);
        const cm = await configMaps.get(name);
        if (secret !== undefined && cm.metadata?.annotations?.[copiedAnnotation] === 'true' && !changed) {
          await configMaps.patch(name, 'application/merge-patch+json', { data: { greeting: 'hi' } });
          changed = true;
        }
        copied = changed && secret?.data?.['greeting'] === Buffer.from('hi').toString('base64');
        return until(errors, copied);
      },
      { timeoutMs: 30_000, intervalMs: 50 },
    );
  } finally {
    stop.abort();
    await running;
    console.error = originalError;
    await call(server, 'DELETE', `/apis/coordination.k8s.io/v1/namespaces/${opNs}/leases/rbac-lane-copy-operator`, { headers });
    await admin.close();
  }
  return { errors, copied };
}

async function bind(server: ApiServer, cluster: RuleAtom[], role: RuleAtom[]): Promise<void> {
  const put = async (p: string, obj: Record<string, unknown>): Promise<void> => {
    const r = await call(server, 'PUT', p, { headers, body: obj });
    assert.ok(r.status === 200 || r.status === 201, JSON.stringify(r.body));
  };
  await put('/apis/rbac.authorization.k8s.io/v1/clusterroles/copy-operator', { metadata: { name: 'copy-operator' }, rules: compactRules(cluster) });
  await put(`/apis/rbac.authorization.k8s.io/v1/namespaces/${opNs}/roles/copy-operator`, { metadata: { name: 'copy-operator', namespace: opNs }, rules: compactRules(role) });
}

test('a ServiceAccount bound only to the learned rules runs the operator; without any one of them the operator reports that permission’s 403 (list excepted: WatchList; the elector’s lease watch excepted: it polls)', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'kubeloom-least-privilege-'));
  const record = path.join(dir, 'requests.jsonl');
  const server = await startApiServer({ rbac: true, token: adminToken, tls: false, recordRequestsTo: record });
  t.after(async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });
  assert.equal((await call(server, 'POST', '/api/v1/namespaces', { headers, body: { metadata: { name: opNs } } })).status, 201);

  // Learn: the operator runs as the admin, its client marked by a User-Agent of its own.
  const learnRun = await runUntil(server, { host: server.url, bearerToken: adminToken, qps: -1, userAgent: 'copy-operator-under-test' }, 'learn', (_e, copied) => copied);
  assert.equal(learnRun.copied, true, learnRun.errors.join('\n'));
  const learned = learnPolicy(await readRequestRecords(record), { select: { userAgentContains: 'copy-operator-under-test' } });
  const cluster = ruleAtoms(learned.clusterRole.rules ?? []);
  const role = ruleAtoms(learned.role?.rules ?? []);
  assert.deepEqual(
    [...cluster, ...role].map(describeAtom),
    ['list configmaps', 'patch configmaps', 'watch configmaps', 'create secrets', 'list secrets', 'update secrets', 'watch secrets', 'create events.k8s.io/events', 'create coordination.k8s.io/leases', 'get coordination.k8s.io/leases', 'update coordination.k8s.io/leases', 'watch coordination.k8s.io/leases'],
  );

  // A ServiceAccount bound only to those rules, with a TokenRequest token.
  assert.equal((await call(server, 'POST', `/api/v1/namespaces/${opNs}/serviceaccounts`, { headers, body: { metadata: { name: 'copy-operator' } } })).status, 201);
  const subjects = [{ kind: 'ServiceAccount', name: 'copy-operator', namespace: opNs }];
  await bind(server, cluster, role);
  await call(server, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', { headers, body: { metadata: { name: 'copy-operator' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'copy-operator' }, subjects } });
  await call(server, 'POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${opNs}/rolebindings`, { headers, body: { metadata: { name: 'copy-operator' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'copy-operator' }, subjects } });
  const token = (await call(server, 'POST', `/api/v1/namespaces/${opNs}/serviceaccounts/copy-operator/token`, { headers, body: { spec: {} } })).body.status.token as string;
  const asOperator: RestConfig = { host: server.url, bearerToken: token, qps: -1 };
  const full = await runUntil(server, asOperator, 'full', (_e, copied) => copied);
  assert.equal(full.copied, true, full.errors.join('\n'));
  assert.deepEqual(full.errors, []);

  // Each permission removed in turn: the operator meets the 403 that names it.
  let i = 0;
  for (const atom of [...cluster, ...role]) {
    const inRole = role.includes(atom);
    await bind(
      server,
      inRole ? cluster : cluster.filter((a) => atomKey(a) !== atomKey(atom)),
      inRole ? role.filter((a) => atomKey(a) !== atomKey(atom)) : role,
    );
    const where = inRole ? `in the namespace "${opNs}"` : atom.verb === 'list' || atom.verb === 'watch' ? 'at the cluster scope' : `in the namespace "${workNs}"`;
    const sentence = `cannot ${atom.verb} resource \\"${atom.resource}\\" in API group \\"${atom.apiGroup}\\" ${where.replaceAll('"', '\\"')}`;
    const plain = sentence.replaceAll('\\"', '"');
    if (atom.verb === 'list') {
      // Learned from a streamed watch (sendInitialEvents): this server serves WatchList, so the informer
      // never lists and the operator works without it; kube-apiserver 1.24 has no WatchList and refuses
      // the informer's list (test/real-rbac, docs/rbac.md).
      const o = await runUntil(server, asOperator, `without-${i++}`, (_e, copied) => copied);
      assert.deepEqual(o.errors, [], describeAtom(atom));
      continue;
    }
    if (atom.verb === 'watch' && atom.resource === 'leases') {
      // The elector watches the Lease while it waits (watchLock) only to wake sooner; refused, it still
      // acquires by polling, so the operator works without it.
      const o = await runUntil(server, asOperator, `without-${i++}`, (_e, copied) => copied);
      assert.equal(o.copied, true, `without ${describeAtom(atom)}: ${o.errors.join('\n')}`);
      continue;
    }
    const o = await runUntil(server, asOperator, `without-${i++}`, (e) => e.some((x) => x.includes(sentence) || x.includes(plain)));
    assert.ok(
      o.errors.some((x) => x.includes(sentence) || x.includes(plain)),
      `without ${describeAtom(atom)}: ${o.errors.join('\n')}`,
    );
  }
  await bind(server, cluster, role);
});
