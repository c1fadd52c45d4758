/**
 * `npm run test:real [-- [node --test flags] [files...]]`: runs the end-to-end suites against the cluster named by
 * KUBELOOM_TEST_KUBECONFIG. The suites are the test files that declare their tests through
 * test/support/backend.ts; the same files run against the embedded API server in `npm test`.
 * Without the variable it says how to get a cluster and exits 2.
 */
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { isNotFound } from '../../src/apimachinery/errors.ts';
import { loadKubeConfigFile, restConfigFrom } from '../../src/clientcmd/index.ts';
import { newClientset, type Clientset } from '../../src/kubernetes/index.ts';
import { podSetCrd } from '../../src/demo/podset.ts';
import { BackendEnvVar, KubeconfigEnvVar } from './backend-env.ts';
import { purgeTestNamespaces } from './purge-namespaces.ts';

/** Set to keep the test namespaces after the run (to look at what a test left), instead of purging them. */
const keepNamespacesEnvVar = 'KUBELOOM_TEST_KEEP_NAMESPACES';

const root = path.resolve(import.meta.dirname, '..', '..');

const help = `npm run test:real runs the end-to-end suites against a real Kubernetes cluster.

Set ${KubeconfigEnvVar} to a kubeconfig whose current context is that cluster, for example:

  ${KubeconfigEnvVar}=/root/realk8s/kubeconfig npm run test:real

Every test works in a namespace of its own (kl-e2e-<random>) and deletes it afterwards; CRDs it
creates get unique names and are deleted too. Ways to get a cluster:

  - ../shared/realk8s (a kube-apiserver v1.24 with etcd on this machine; see its README.md):
      ../shared/realk8s/build.sh && COMPACTION_INTERVAL=10s ../shared/realk8s/start.sh
      ${KubeconfigEnvVar}=$HOME/realk8s/kubeconfig npm run test:real
    COMPACTION_INTERVAL=10s makes etcd compact often, which the relist-after-compaction tests wait for.
  - kubeloom's own embedded API server, as a process (useful to check the lane itself):
      npx kubeloom apiserver --tls --token t --compaction-interval 10s --write-kubeconfig /tmp/kubeloom.kubeconfig &
      ${KubeconfigEnvVar}=/tmp/kubeloom.kubeconfig npm run test:real
  - any other cluster you may write to (kind, minikube, ...).

See docs/testing-real-cluster.md.
`;

/**
 * Test files that are not on the backend layer but use the cluster when the variable is set: the
 * scaffold's `kubectl apply --dry-run=server -k config/default`; kube-apiserver and kubeloom on one etcd
 * (also needs KUBELOOM_TEST_ETCD, the cluster's etcd; skipped without it).
 */
const ownKubeconfigSuites = ['test/scaffold-e2e.test.ts', 'test/etcd-interop.test.ts'];

/** Test files below test/ that import the backend layer, and {@link ownKubeconfigSuites}. */
async function suiteFiles(): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.name.endsWith('.test.ts') && /from '\.{1,2}\/(?:\.\.\/)*support\/backend\.ts'/.test(await readFile(full, 'utf8'))) out.push(path.relative(root, full));
    }
  };
  await walk(path.join(root, 'test'));
  // Suites that read KUBELOOM_TEST_KUBECONFIG themselves instead of declaring tests through backend.ts.
  out.push(...ownKubeconfigSuites);
  return out.sort();
}

/** Whether the CRD named `name` exists. */
async function crdExists(cs: Clientset, name: string): Promise<boolean> {
  try {
    await cs.apiextensionsV1().customResourceDefinitions().get(name);
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

async function main(): Promise<number> {
  const kubeconfig = process.env[KubeconfigEnvVar];
  if (kubeconfig === undefined || kubeconfig === '') {
    process.stderr.write(`${KubeconfigEnvVar} is not set.\n\n${help}`);
    return 2;
  }
  // Arguments: test files (default: every suite on the backend layer) and node --test flags.
  const args = process.argv.slice(2);
  const flags = args.filter((a) => a.startsWith('-'));
  const named = args.filter((a) => !a.startsWith('-'));
  const files = named.length > 0 ? named : await suiteFiles();
  process.stdout.write(`kubeloom real-cluster lane: ${files.length} files against ${path.resolve(kubeconfig)}\n`);
  // The PodSet demo's CRD has a fixed name, so tests never delete it; the run removes it if it installed it.
  const podSetCrdName = podSetCrd.metadata?.name ?? '';
  let cs: Clientset;
  let hadPodSetCrd: boolean;
  try {
    cs = newClientset({ ...(await restConfigFrom(await loadKubeConfigFile(kubeconfig))), qps: -1 });
    hadPodSetCrd = await crdExists(cs, podSetCrdName);
  } catch (err) {
    process.stderr.write(`cannot use the cluster of ${KubeconfigEnvVar}=${kubeconfig}: ${err instanceof Error ? err.message : String(err)}\n\n${help}`);
    return 2;
  }
  const child = spawn(process.execPath, ['--test', '--test-concurrency=2', '--test-timeout=300000', '--unhandled-rejections=strict', ...flags, ...files], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, [BackendEnvVar]: 'real', [KubeconfigEnvVar]: path.resolve(kubeconfig) },
  });
  const code = await new Promise<number>((resolve) => child.on('close', (c, signal) => resolve(c ?? (signal !== null ? 1 : 0))));
  try {
    // The tests deleted their namespaces; without a namespace controller they stay Terminating with
    // their contents. Empty and finalize them as kube-controller-manager would.
    if ((process.env[keepNamespacesEnvVar] ?? '') === '') {
      const purged = await purgeTestNamespaces(cs);
      if (purged.length > 0) process.stdout.write(`purged ${purged.length} deleted test namespaces (emptied and finalized; ${keepNamespacesEnvVar}=1 keeps them)\n`);
    }
    if (!hadPodSetCrd && (await crdExists(cs, podSetCrdName))) {
      await cs.apiextensionsV1().customResourceDefinitions().delete(podSetCrdName);
      process.stdout.write(`removed CRD ${podSetCrdName}, which this run installed\n`);
    }
  } finally {
    await cs.close();
  }
  return code;
}

process.exitCode = await main();
