/**
 * Least privilege, proved on a real kube-apiserver: learns the copy operator's rules with
 * `kubeloom rbac learn` (test/fixtures/rbac-operator/suite.ts on the embedded server), binds a
 * ServiceAccount of the real cluster to exactly those rules, gets its token through TokenRequest, and
 * runs the operator out of cluster with that token: it must reconcile. Then it removes each permission
 * in turn and records what breaks (the operator's first error, and which of its effects never came).
 *
 *   node test/real-rbac/least-privilege.ts [KUBECONFIG]     (or npm run test:real:rbac; default $KUBELOOM_TEST_KUBECONFIG, then ~/realk8s/kubeconfig)
 *
 * Works in the namespaces rbac-lane-system (the ServiceAccount and the Lease) and rbac-lane-work (the
 * ConfigMaps), created if missing and kept; everything else it creates it deletes. Prints a Markdown
 * report (docs/rbac.md quotes one).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import type { ConfigMap, Namespace, Secret, ServiceAccount } from '../../src/api/core/v1.ts';
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding } from '../../src/api/rbac/v1.ts';
import { isAlreadyExists, isNotFound } from '../../src/apimachinery/errors.ts';
import { loadKubeConfigFile, restConfigFrom } from '../../src/clientcmd/index.ts';
import { ResourceClient } from '../../src/kubernetes/resource-client.ts';
import { RestClient } from '../../src/rest/client.ts';
import type { RestConfig } from '../../src/rest/config.ts';
import { readPolicyFiles } from '../../src/rbac/policy-file.ts';
import { compactRules, describeAtom, ruleAtoms, atomKey, type RuleAtom } from '../../src/rbac/policy-rules.ts';
import { copiedAnnotation, copyLabel, runCopyOperator } from '../fixtures/rbac-operator/operator.ts';

const systemNs = 'rbac-lane-system';
const workNs = 'rbac-lane-work';
const saName = 'copy-operator';
const roleName = 'rbac-lane-copy-operator';
// How long a run may take to show its three effects before it counts as broken.
const convergeMs = 12_000;

const root = path.resolve(import.meta.dirname, '..', '..');
const kubeconfigPath = process.argv[2] ?? process.env.KUBELOOM_TEST_KUBECONFIG ?? path.join(homedir(), 'realk8s', 'kubeconfig');
const admin = await restConfigFrom(await loadKubeConfigFile(kubeconfigPath));
const rest = new RestClient({ ...admin, qps: -1 });
const client = <T>(group: string, resource: string, kind: string, namespace?: string): ResourceClient<T> =>
  new ResourceClient<T>(rest, { group, version: 'v1', resource, kind, namespaced: namespace !== undefined, ...(namespace === undefined ? {} : { namespace }) });
const namespaces = client<Namespace>('', 'namespaces', 'Namespace');
const serviceAccounts = client<ServiceAccount>('', 'serviceaccounts', 'ServiceAccount', systemNs);
const clusterRoles = client<ClusterRole>('rbac.authorization.k8s.io', 'clusterroles', 'ClusterRole');
const clusterRoleBindings = client<ClusterRoleBinding>('rbac.authorization.k8s.io', 'clusterrolebindings', 'ClusterRoleBinding');
const roles = client<Role>('rbac.authorization.k8s.io', 'roles', 'Role', systemNs);
const roleBindings = client<RoleBinding>('rbac.authorization.k8s.io', 'rolebindings', 'RoleBinding', systemNs);
const configMaps = client<ConfigMap>('', 'configmaps', 'ConfigMap', workNs);
const secrets = client<Secret>('', 'secrets', 'Secret', workNs);
const reviews = client<{ status?: { allowed?: boolean } }>('authorization.k8s.io', 'subjectaccessreviews', 'SubjectAccessReview');
const username = `system:serviceaccount:${systemNs}:${saName}`;

async function ensure<T>(c: ResourceClient<T>, obj: T): Promise<void> {
  try {
    await c.create(obj);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
}

async function apply<T extends { metadata?: { name?: string; resourceVersion?: string } }>(c: ResourceClient<T>, obj: T): Promise<void> {
  try {
    const old = await c.get(obj.metadata!.name!);
    await c.update({ ...obj, metadata: { ...obj.metadata, resourceVersion: old.metadata?.resourceVersion } });
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await c.create(obj);
  }
}

async function sleep(ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
}

// Whether the ServiceAccount may do what the atom says (SubjectAccessReview), in the namespace given.
async function allowed(a: RuleAtom, namespace: string): Promise<boolean> {
  const [resource, subresource] = a.resource.split('/');
  const review = await reviews.create({
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec: { user: username, groups: ['system:serviceaccounts', `system:serviceaccounts:${systemNs}`, 'system:authenticated'], resourceAttributes: { namespace, verb: a.verb, group: a.apiGroup, resource, subresource: subresource ?? '' } },
  } as never);
  return review.status?.allowed === true;
}

/** 1. Learn the rules on the embedded server with the real CLI. */
async function learn(): Promise<{ cluster: RuleAtom[]; role: RuleAtom[]; summary: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rbac-lane-learn-'));
  try {
    const out = path.join(dir, 'learned_role.yaml');
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, [path.join(root, 'bin/kubeloom.js'), 'rbac', 'learn', '--out', out, '--namespace', systemNs, '--', process.execPath, path.join(root, 'test/fixtures/rbac-operator/suite.ts')], (err, so, se) =>
        err === null ? resolve(so) : reject(new Error(`${err.message}\n${se}`)),
      );
    });
    const docs = await readPolicyFiles([out]);
    return { cluster: ruleAtoms(docs.clusterRoles[0]!.rules ?? []), role: ruleAtoms(docs.roles[0]?.rules ?? []), summary: stdout.trim().split('\n').slice(-2).join('\n') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** 2. Bind the ServiceAccount to exactly these rules, and wait until the server's authorizer agrees. */
async function bind(cluster: RuleAtom[], role: RuleAtom[], removed?: RuleAtom): Promise<void> {
  const clusterRules: PolicyRule[] = compactRules(cluster);
  const roleRules: PolicyRule[] = compactRules(role);
  await apply(clusterRoles, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: roleName }, rules: clusterRules });
  await apply(roles, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: roleName, namespace: systemNs }, rules: roleRules });
  const subjects = [{ kind: 'ServiceAccount', name: saName, namespace: systemNs }];
  await apply(clusterRoleBindings, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: roleName }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName }, subjects });
  await apply(roleBindings, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: roleName, namespace: systemNs }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: roleName }, subjects });
  // The RBAC authorizer reads its policy from informers: wait until every permission reads as intended.
  for (let i = 0; i < 100; i++) {
    const checks = await Promise.all([
      ...cluster.map((a) => allowed(a, workNs)),
      ...role.map((a) => allowed(a, systemNs)),
      ...(removed === undefined ? [] : [allowed(removed, [...role].some((r) => atomKey(r) === atomKey(removed)) || removed.resource === 'leases' ? systemNs : workNs).then((x) => !x)]),
    ]);
    if (checks.every(Boolean)) return;
    await sleep(100);
  }
  throw new Error('the RBAC policy did not take effect within 10 s');
}

interface Outcome {
  reconciled: boolean;
  secretCreated: boolean;
  annotated: boolean;
  secretUpdated: boolean;
  errors: string[];
  ms: number;
}

const leases = client<{ metadata?: { name?: string } }>('coordination.k8s.io', 'leases', 'Lease', systemNs);

/** 3. Run the operator with the ServiceAccount's token; create a ConfigMap, change it, and see what happens. */
async function run(token: string, name: string, ruleRemoved: boolean): Promise<Outcome> {
  // Every run starts without a Lease, as a first deployment does.
  await leases.delete('rbac-lane-copy-operator').catch(() => undefined);
  const config: RestConfig = { host: admin.host, ...(admin.tls?.caData === undefined ? {} : { tls: { caData: admin.tls.caData } }), bearerToken: token, qps: -1 };
  const errors: string[] = [];
  const note = (m: string, f?: unknown): void => {
    const line = `${m}${f === undefined ? '' : ` ${JSON.stringify(f)}`}`;
    if (!errors.includes(line)) errors.push(line);
  };
  const originalError = console.error;
  // Components without the manager's logger (informers, the event broadcaster) write to stderr.
  console.error = (...args: unknown[]): void => note(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
  const stop = new AbortController();
  const started = Date.now();
  const running = runCopyOperator(config, { namespace: systemNs, signal: stop.signal, logger: { debug() {}, info() {}, error: note } }).catch((err: unknown) => note(`manager stopped: ${(err as Error).message}`));
  const outcome: Outcome = { reconciled: false, secretCreated: false, annotated: false, secretUpdated: false, errors, ms: 0 };
  try {
    await configMaps.create({ metadata: { name, labels: { [copyLabel]: 'true' } }, data: { greeting: 'hello' } });
    const secretData = async (): Promise<string | undefined> => {
      try {
        return (await secrets.get(`${name}-copy`)).data?.['greeting'];
      } catch {
        return undefined;
      }
    };
    const deadline = Date.now() + convergeMs;
    let changed = false;
    while (Date.now() < deadline) {
      const data = await secretData();
      outcome.secretCreated ||= data !== undefined;
      outcome.annotated ||= (await configMaps.get(name)).metadata?.annotations?.[copiedAnnotation] === 'true';
      if (outcome.secretCreated && outcome.annotated && !changed) {
        await configMaps.patch(name, 'application/merge-patch+json', { data: { greeting: 'hi' } });
        changed = true;
      }
      if (!outcome.secretUpdated && changed && data === Buffer.from('hi').toString('base64')) {
        outcome.secretUpdated = true;
        outcome.ms = Date.now() - started;
      }
      // Keep watching to the end of the window: a manager may still fail later (a Lease it cannot renew).
      if (outcome.secretUpdated && errors.length === 0 && !ruleRemoved) break;
      await sleep(100);
    }
    outcome.reconciled = outcome.secretCreated && outcome.annotated && outcome.secretUpdated;
  } finally {
    stop.abort();
    await running;
    console.error = originalError;
    await configMaps.delete(name).catch(() => undefined);
    await secrets.delete(`${name}-copy`).catch(() => undefined);
  }
  return outcome;
}

function describeOutcome(o: Outcome): string {
  const stopped = o.errors.find((e) => e.startsWith('manager stopped:'));
  const watchOnly = o.errors.some((e) => e.includes('failed to watch')) && !o.errors.some((e) => e.includes('failed to list'));
  const after = [watchOnly && 'only through relists (the watch is refused, so every change waits for the next list)', stopped !== undefined && `then ${stopped}`].filter(Boolean).join('; ');
  if (o.reconciled) return `reconciles (ConfigMap copied, annotated, change followed) in ${o.ms} ms${after === '' ? '' : `, ${after}`}`;
  const missing = [!o.secretCreated && 'Secret never created', !o.annotated && 'ConfigMap never annotated', o.secretCreated && o.annotated && !o.secretUpdated && 'change never copied'].filter(Boolean);
  return `BROKEN: ${missing.join(', ')}`;
}

const shorten = (e: string): string => (e.length > 400 ? `${e.slice(0, 400)}…` : e);

await ensure(namespaces, { metadata: { name: systemNs } });
await ensure(namespaces, { metadata: { name: workNs } });
await ensure(serviceAccounts, { metadata: { name: saName, namespace: systemNs } });
const learned = await learn();
const token = (await serviceAccounts.createSubresource<{ spec: { expirationSeconds: number } }, { status: { token: string } }>(saName, 'token', { spec: { expirationSeconds: 3600 } })).status.token;
const lines: string[] = [];
const print = (l: string): void => {
  lines.push(l);
  console.log(l);
};
const version = await rest.json<{ gitVersion?: string }>({ verb: 'GET', path: '/version', query: [], headers: { accept: 'application/json' } }).catch(() => undefined);
print(`## kubeloom rbac learn → real kube-apiserver ${version?.gitVersion ?? '(version unknown)'}`);
print('');
print('```');
print(learned.summary);
print('```');
print('');
print(`ServiceAccount ${systemNs}/${saName}, token from TokenRequest (1 h), bound only to ClusterRole and Role \`${roleName}\`:`);
print('');
print(`- ClusterRole: ${learned.cluster.map(describeAtom).join('; ')}`);
print(`- Role (${systemNs}): ${learned.role.map(describeAtom).join('; ')}`);
print('');
try {
  await bind(learned.cluster, learned.role);
  const full = await run(token, 'full-rules', false);
  print(`All learned rules: ${describeOutcome(full)}${full.errors.length > 0 ? `; errors: ${full.errors.map(shorten).join(' | ')}` : ''}`);
  print('');
  print('| permission removed | outcome | first error the operator reported |');
  print('|---|---|---|');
  const all: { atom: RuleAtom; inRole: boolean }[] = [...learned.cluster.map((atom) => ({ atom, inRole: false })), ...learned.role.map((atom) => ({ atom, inRole: true }))];
  let i = 0;
  for (const { atom, inRole } of all) {
    const cluster = inRole ? learned.cluster : learned.cluster.filter((a) => atomKey(a) !== atomKey(atom));
    const role = inRole ? learned.role.filter((a) => atomKey(a) !== atomKey(atom)) : learned.role;
    await bind(cluster, role, atom);
    const o = await run(token, `without-${i++}`, true);
    const first = o.errors.find((e) => e.includes('forbidden')) ?? o.errors[0];
    print(`| ${inRole ? 'Role' : 'ClusterRole'}: ${describeAtom(atom)} | ${describeOutcome(o)} | ${first === undefined ? '(none)' : `\`${shorten(first).replaceAll('|', '\\|')}\``} |`);
  }
} finally {
  await clusterRoleBindings.delete(roleName).catch(() => undefined);
  await clusterRoles.delete(roleName).catch(() => undefined);
  await roleBindings.delete(roleName).catch(() => undefined);
  await roles.delete(roleName).catch(() => undefined);
  await rest.close();
}
