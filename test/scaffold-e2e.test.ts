/**
 * From a fresh `npm pack` to deployable manifests, as a new user goes: `kubeloom init` a project that
 * depends on the packed tarball, install it offline from npm's cache (test/support/pack.ts), `npx
 * kubeloom create api --webhook` a kind, then `create api --conversion` a second version of it, and
 * the project's own `npm test` passes untouched (type check with the pinned TypeScript, then its
 * tests on the embedded API server); the generated code also type-checks with the newest TypeScript
 * when installed; `npm run manifests` writes config/ byte-identically twice, with the CRD (both
 * versions, the conversion stanza), RBAC and webhook configurations the registrations imply; and
 * kubectl's kustomize (when installed) builds config/default and config/certmanager.
 *
 * With KUBELOOM_TEST_KUBECONFIG set (the real-cluster lane) it also runs `kubectl apply
 * --dry-run=server -k config/default` against that cluster, in the namespace it creates first.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { loadKubeConfigFile, restConfigFrom } from '../src/clientcmd/index.ts';
import { newClientset } from '../src/kubernetes/index.ts';
import { KubeconfigEnvVar } from './support/backend-env.ts';
import { purgeTestNamespaces } from './support/purge-namespaces.ts';
import { kubeloomLockEntry, newestTsc, nodeFirstPath, npm, npx, offlineEnv, packKubeloom, pinned, pkg, repoLockPackages, root, type LockEntry } from './support/pack.ts';

const execFileAsync = promisify(execFile);
const name = 'ship-e2e-op';

let work: string;
let project: string;

/** Runs a command in the project with this Node.js first on PATH; fails the test with its output. */
async function run(file: string, args: string[], env: NodeJS.ProcessEnv = offlineEnv()): Promise<string> {
  try {
    const { stdout } = await execFileAsync(file, args, { cwd: project, env: { ...env, PATH: nodeFirstPath() }, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    assert.fail(`${path.basename(file)} ${args.join(' ')} failed:\n${e.stdout ?? ''}\n${e.stderr ?? String(err)}`);
  }
}

async function tree(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) out.set(path.relative(dir, path.join(e.parentPath, e.name)), await readFile(path.join(e.parentPath, e.name), 'utf8'));
  }
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : 1)));
}

before(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'kubeloom-scaffold-'));
  const packed = await packKubeloom(work);
  project = path.join(work, name);
  // The repository's CLI (its sources: a stale dist/ must not matter) writes the project; the
  // project's own (packed) CLI does everything after.
  await execFileAsync(process.execPath, [path.join(root, 'src', 'cli', 'main.ts'), 'init', project, '--domain', 'ship.kubeloom.io', '--kubeloom', `file:../${packed.filename}`]);
  // Offline install: npm's cache holds tarballs, not registry metadata, so the project gets a lockfile
  // pinning what the repository's lockfile pins (as test/pack.test.ts does). The `node`
  // devDependency is left out: its install script downloads a Node.js binary, and this test already
  // runs on Node.js 24 (it is asserted in package.json below).
  const manifest = JSON.parse(await readFile(path.join(project, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
  const { node: _node, ...devDependencies } = manifest.devDependencies;
  const lock = await repoLockPackages();
  const versionOf = (n: string): string => lock[`node_modules/${n}`]!.version!;
  const installed = { ...manifest, devDependencies: Object.fromEntries(Object.keys(devDependencies).map((n) => [n, versionOf(n)])) };
  installed.dependencies = { ...manifest.dependencies, 'prom-client': versionOf('prom-client') };
  await writeFile(path.join(project, 'package.json'), `${JSON.stringify(installed, null, 2)}\n`);
  const packages: Record<string, LockEntry> = {
    '': { name, dependencies: installed.dependencies, devDependencies: installed.devDependencies },
    'node_modules/kubeloom': await kubeloomLockEntry(packed, `file:../${packed.filename}`),
    ...pinned(lock, [...Object.keys(pkg.dependencies), ...Object.keys(pkg.optionalDependencies ?? {}), 'prom-client', ...Object.keys(devDependencies)]),
  };
  await writeFile(path.join(project, 'package-lock.json'), JSON.stringify({ name, lockfileVersion: 3, requires: true, packages }, null, 2));
  await npm(['ci', '--offline', '--ignore-scripts'], project, offlineEnv());
});

after(async () => {
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

test('kubeloom init writes a project on Node.js 24 with the scripts, a strict nodenext tsconfig and a non-root Dockerfile', async () => {
  const written = JSON.parse(await readFile(path.join(project, 'package.json'), 'utf8')) as { scripts: Record<string, string>; allowScripts?: unknown };
  assert.deepEqual(Object.keys(written.scripts).sort(), ['build', 'deploy', 'docker-build', 'lint', 'lint-fix', 'manifests', 'start', 'test', 'typecheck', 'undeploy']);
  assert.equal(written.scripts['lint'], 'eslint .');
  assert.equal(written.scripts['deploy'], 'kubectl apply -k config/default');
  const tsconfig = JSON.parse(await readFile(path.join(project, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
  assert.equal(tsconfig.compilerOptions['strict'], true);
  assert.equal(tsconfig.compilerOptions['module'], 'nodenext');
  const dockerfile = await readFile(path.join(project, 'Dockerfile'), 'utf8');
  assert.match(dockerfile, /^FROM node:24-slim AS deps$/m);
  assert.match(dockerfile, /^USER 1000:1000$/m);
  // The scaffold as written (before this test dropped `node` for the offline install).
  const { stdout } = await execFileAsync(process.execPath, [path.join(root, 'src', 'cli', 'main.ts'), 'init', path.join(work, 'fresh')]);
  assert.match(stdout, /wrote 11 files/);
  const fresh = JSON.parse(await readFile(path.join(work, 'fresh', 'package.json'), 'utf8')) as { devDependencies: Record<string, string>; allowScripts: Record<string, boolean>; dependencies: Record<string, string> };
  assert.equal(fresh.devDependencies['node'], '^24.9.0');
  assert.deepEqual(fresh.allowScripts, { node: true });
  assert.equal(fresh.dependencies['kubeloom'], `^${pkg.version}`);
});

test('init → create api --webhook → create api --conversion: npm test passes, TypeScript 5.9 and 7 accept the code, manifests are stable', async (t) => {
  await npx(['--no', 'kubeloom', '--', 'create', 'api', '--group', 'apps', '--version', 'v1', '--kind', 'Widget', '--webhook'], project);
  await npx(['--no', 'kubeloom', '--', 'create', 'api', '--group', 'apps', '--version', 'v2', '--kind', 'Widget', '--conversion'], project);
  const files = await tree(path.join(project, 'src'));
  assert.deepEqual([...files.keys()], [
    'api/widget/index.ts',
    'api/widget/v1.ts',
    'api/widget/v2.ts',
    'controller/widget-controller.test.ts',
    'controller/widget-controller.ts',
    'main.ts',
    'setup.test.ts',
    'setup.ts',
    'webhook/widget-conversion.ts',
    'webhook/widget-v2-conversion.test.ts',
    'webhook/widget-v2-conversion.ts',
    'webhook/widget-webhook.test.ts',
    'webhook/widget-webhook.ts',
  ]);

  // The project's own test script: tsc (the pinned 5.9), then node --test.
  // Without NODE_TEST_CONTEXT, which would make the project's node --test report to this runner.
  const { NODE_TEST_CONTEXT: _context, ...outer } = offlineEnv();
  const npmEnv = { ...outer, PATH: nodeFirstPath() };
  const testRun = await npm(['test'], project, npmEnv).catch((err: { stdout?: string; stderr?: string }) => assert.fail(`npm test failed:\n${err.stdout ?? ''}\n${err.stderr ?? ''}`));
  assert.match(testRun.stdout, /^ℹ pass 5$/m);
  assert.match(testRun.stdout, /^ℹ fail 0$/m);
  // The project's lint (kubebuilder's `make lint`) is clean on what init and create api wrote, and its
  // rules are type-aware: a floating promise in a new file fails it.
  await npm(['run', 'lint'], project, npmEnv).catch((err: { stdout?: string; stderr?: string }) => assert.fail(`npm run lint failed:\n${err.stdout ?? ''}\n${err.stderr ?? ''}`));
  await writeFile(path.join(project, 'src', 'floating.ts'), 'export async function f(): Promise<void> {}\nf();\n');
  await assert.rejects(npx(['--no', 'eslint', '--', 'src/floating.ts'], project), (err: { stdout?: string }) => /no-floating-promises/.test(err.stdout ?? ''));
  await rm(path.join(project, 'src', 'floating.ts'));
  const pinnedTsc = await run(process.execPath, [path.join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '--version']);
  assert.match(pinnedTsc, /^Version 5\.9\./);
  const newest = newestTsc();
  if (newest === undefined) t.diagnostic('newest TypeScript not installed (KUBELOOM_TSC_LATEST, or `npm run tools`): only 5.9 checked the project');
  else {
    const version = await run(process.execPath, [newest, '--version']);
    t.diagnostic(`also type-checked with ${version.trim()}`);
    await run(process.execPath, [newest, '-p', 'tsconfig.json']);
  }

  // Manifests: twice, byte-identical.
  await npm(['run', 'manifests'], project, npmEnv);
  const first = await tree(path.join(project, 'config'));
  await npm(['run', 'manifests'], project, npmEnv);
  const second = await tree(path.join(project, 'config'));
  assert.deepEqual([...second.entries()], [...first.entries()]);
  // --check: nothing to do now; a hand edit makes it fail.
  await npx(['--no', 'kubeloom', '--', 'manifests', '--check'], project);
  await writeFile(path.join(project, 'config', 'rbac', 'role.yaml'), `${first.get('rbac/role.yaml')!}# edited\n`);
  await assert.rejects(npx(['--no', 'kubeloom', '--', 'manifests', '--check'], project), (err: { code?: number; stderr?: string }) => err.code === 1 && /rbac\/role\.yaml/.test(err.stderr ?? ''));
  await writeFile(path.join(project, 'config', 'rbac', 'role.yaml'), first.get('rbac/role.yaml')!);
  for (const [file, text] of first) assert.doesNotMatch(text, /[&*][a-z0-9]+\s*$/m, `${file} has no YAML anchors or aliases`);
  // Least privilege: what the operator used in its own tests (the test's requests, made with a client of
  // its own, are not counted) is all granted by the declared rules.
  const learned = path.join(project, 'learned_role.yaml');
  const kubeloomBin = path.join(project, 'node_modules', 'kubeloom', 'bin', 'kubeloom.js');
  const learn = await run(process.execPath, [kubeloomBin, 'rbac', 'learn', '--out', learned, '--', 'npm', 'test'], npmEnv);
  assert.match(learn, /wrote .*learned_role\.yaml: ClusterRole manager-role \([1-9]\d* permissions/);
  await run(process.execPath, [kubeloomBin, 'rbac', 'check', '--missing-only', '--learned', learned], npmEnv);
  assert.deepEqual([...first.keys()], [
    'certmanager/certificate.yaml',
    'certmanager/kustomization.yaml',
    'crd/bases/apps.ship.kubeloom.io_widgets.yaml',
    'crd/kustomization.yaml',
    'crd/kustomizeconfig.yaml',
    'default/kustomization.yaml',
    'default/metrics_service.yaml',
    'manager/kustomization.yaml',
    'manager/manager.yaml',
    'rbac/kustomization.yaml',
    'rbac/leader_election_role.yaml',
    'rbac/leader_election_role_binding.yaml',
    'rbac/metrics_auth_role.yaml',
    'rbac/metrics_auth_role_binding.yaml',
    'rbac/metrics_reader_role.yaml',
    'rbac/role.yaml',
    'rbac/role_binding.yaml',
    'rbac/service_account.yaml',
    // Written once by create api, not by manifests (no generated header): left alone by it.
    'samples/apps.ship.kubeloom.io_v1_widget.yaml',
    'samples/kustomization.yaml',
    'webhook/kustomization.yaml',
    'webhook/kustomizeconfig.yaml',
    'webhook/manifests.yaml',
    'webhook/service.yaml',
  ]);
  const crd = parse(first.get('crd/bases/apps.ship.kubeloom.io_widgets.yaml')!) as { spec: { versions: Array<{ name: string; storage: boolean; subresources?: unknown; additionalPrinterColumns?: unknown[] }>; conversion?: unknown } };
  assert.deepEqual(crd.spec.versions.map((v) => [v.name, v.storage]), [['v1', true], ['v2', false]]);
  assert.deepEqual(crd.spec.versions[0]!.subresources, { status: {} });
  assert.equal(crd.spec.versions[0]!.additionalPrinterColumns?.length, 2);
  assert.deepEqual(crd.spec.conversion, { strategy: 'Webhook', webhook: { clientConfig: { service: { name: 'webhook-service', namespace: 'system', path: '/convert' } }, conversionReviewVersions: ['v1'] } });
  const role = parse(first.get('rbac/role.yaml')!) as { kind: string; metadata: { name: string }; rules: unknown[] };
  assert.equal(role.kind, 'ClusterRole');
  assert.equal(role.metadata.name, 'manager-role');
  assert.deepEqual(role.rules, [
    { apiGroups: ['apps.ship.kubeloom.io'], resources: ['widgets'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['apps.ship.kubeloom.io'], resources: ['widgets/status'], verbs: ['get', 'patch', 'update'] },
    { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
  ]);
  const webhooks = (first.get('webhook/manifests.yaml')!.split(/^---$/m).map((d) => parse(d) as { kind: string; webhooks: Array<{ name: string; clientConfig: { service: { path: string } } }> }));
  assert.deepEqual(webhooks.map((w) => [w.kind, w.webhooks.map((h) => [h.name, h.clientConfig.service.path])]), [
    ['MutatingWebhookConfiguration', [['mwidget-v1.kb.io', '/mutate-apps-ship-kubeloom-io-v1-widget']]],
    ['ValidatingWebhookConfiguration', [['vwidget-v1.kb.io', '/validate-apps-ship-kubeloom-io-v1-widget']]],
  ]);

  // kubectl's kustomize builds both entry points (offline: no cluster needed).
  const kubectl = path.join(root, '.kubeloom-tools', 'bin', 'kubectl');
  if (!existsSync(kubectl)) {
    t.diagnostic('kubectl not installed (npm run tools): kustomize builds not checked');
    return;
  }
  const built = await run(kubectl, ['kustomize', 'config/default']);
  const objects = built.split(/^---$/m).map((d) => parse(d) as { kind: string; metadata: { name: string; namespace?: string } });
  assert.deepEqual(
    objects.map((o) => `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`).sort(),
    [
      'ClusterRole /ship-e2e-op-manager-role',
      'ClusterRole /ship-e2e-op-metrics-auth-role',
      'ClusterRole /ship-e2e-op-metrics-reader',
      'ClusterRoleBinding /ship-e2e-op-manager-rolebinding',
      'ClusterRoleBinding /ship-e2e-op-metrics-auth-rolebinding',
      'CustomResourceDefinition /widgets.apps.ship.kubeloom.io',
      'Deployment ship-e2e-op-system/ship-e2e-op-controller-manager',
      'MutatingWebhookConfiguration /ship-e2e-op-mutating-webhook-configuration',
      'Namespace /ship-e2e-op-system',
      'Role ship-e2e-op-system/ship-e2e-op-leader-election-role',
      'RoleBinding ship-e2e-op-system/ship-e2e-op-leader-election-rolebinding',
      'Service ship-e2e-op-system/ship-e2e-op-controller-manager-metrics-service',
      'Service ship-e2e-op-system/ship-e2e-op-webhook-service',
      'ServiceAccount ship-e2e-op-system/ship-e2e-op-controller-manager',
      'ValidatingWebhookConfiguration /ship-e2e-op-validating-webhook-configuration',
    ],
  );
  // Secure metrics (main.ts's default, package.json's secureMetrics): :8443 behind an `https` Service port.
  assert.match(built, /- --metrics-bind-address=:8443\n/);
  assert.match(built, /ports:\n\s+- name: https\n\s+port: 8443\n\s+protocol: TCP\n\s+targetPort: 8443\n/);
  // kustomize followed the Service references (kustomizeconfig.yaml): name prefixed, namespace set.
  assert.match(built, /service:\n\s+name: ship-e2e-op-webhook-service\n\s+namespace: ship-e2e-op-system\n\s+path: \/convert/);
  const overlay = await run(kubectl, ['kustomize', 'config/certmanager']);
  assert.equal(overlay.match(/cert-manager\.io\/inject-ca-from: ship-e2e-op-system\/ship-e2e-op-serving-cert/g)?.length, 3, 'both webhook configurations and the CRD get the CA');
  assert.match(overlay, /kind: Certificate/);
  const samples = parse(await run(kubectl, ['kustomize', 'config/samples'])) as { apiVersion: string; kind: string; metadata: { name: string } };
  assert.deepEqual([samples.apiVersion, samples.kind, samples.metadata.name], ['apps.ship.kubeloom.io/v1', 'Widget', 'widget-sample']);

  const real = process.env[KubeconfigEnvVar];
  if (real === undefined || real === '') return;
  // A server-side dry run cannot create the namespace its objects go to: create it for real first.
  const env = { ...process.env, KUBECONFIG: real };
  // Deleted afterwards and finalized at once (the cluster may run no namespace controller), so the
  // next run can create it again.
  await run(kubectl, ['create', 'namespace', 'ship-e2e-op-system'], env);
  t.after(async () => {
    await execFileAsync(kubectl, ['delete', 'namespace', 'ship-e2e-op-system', '--wait=false'], { env });
    const cs = newClientset({ ...(await restConfigFrom(await loadKubeConfigFile(real))), qps: -1 });
    try {
      await purgeTestNamespaces(cs, ['ship-e2e-op-system']);
    } finally {
      await cs.close();
    }
  });
  const dryRun = await run(kubectl, ['apply', '--dry-run=server', '-k', 'config/default'], env);
  t.diagnostic(dryRun);
  assert.match(dryRun, /deployment\.apps\/ship-e2e-op-controller-manager created \(server dry run\)/);
});

test('npm start runs the manager with leader election against an embedded API server, and SIGTERM stops it with exit code 0', async (t) => {
  const child = spawn(process.execPath, ['src/main.ts', '--leader-elect', '--metrics-bind-address=127.0.0.1:0', '--health-probe-bind-address=127.0.0.1:0'], {
    cwd: project,
    env: { ...offlineEnv(), PATH: nodeFirstPath() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // A failed assertion must not leave the manager running.
  t.after(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer): void => {
      log += d.toString('utf8');
      if (log.includes('Starting workers')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => reject(new Error(`src/main.ts exited with ${code}:\n${log}`)));
  });
  assert.match(log, /embedded API server at http:\/\/127\.0\.0\.1:\d+; try: KUBECONFIG=\.kubeloom\/kubeconfig kubectl get widgets/);
  assert.match(log, /successfully acquired lease/);
  child.kill('SIGTERM');
  assert.equal(await exited, 0, log);
  assert.match(log, /All workers finished/);
});
