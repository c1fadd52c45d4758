/**
 * Runs the client fidelity checks against the embedded API server, and against a real
 * kube-apiserver when KUBELOOM_REAL_KUBECONFIG names its kubeconfig (each run uses a namespace of
 * its own, `kl-client-<random>`, emptied and deleted afterwards).
 *
 *   KUBELOOM_REAL_KUBECONFIG=/root/realk8s/kubeconfig node --test test/client-fidelity.test.ts
 */
import { test } from 'node:test';
import { randomBytes } from 'node:crypto';
import { startApiServer } from '../src/testing/index.ts';
import { loadKubeConfig, restConfigFrom } from '../src/clientcmd/index.ts';
import { newClientset } from '../src/kubernetes/index.ts';
import type { RestConfig } from '../src/rest/index.ts';
import { clientFidelityChecks, type CheckContext } from './client-fidelity-checks.ts';

async function withNamespace(config: RestConfig, fn: (namespace: string) => Promise<void>): Promise<void> {
  const namespace = `kl-client-${randomBytes(4).toString('hex')}`;
  const cs = newClientset(config);
  await cs.coreV1().namespaces().create({ metadata: { name: namespace } });
  try {
    await fn(namespace);
  } finally {
    await cs.coreV1().configMaps(namespace).deleteCollection();
    await cs.coreV1().namespaces().delete(namespace);
    await cs.close();
  }
}

test('client fidelity checks against the embedded API server', async (t) => {
  const server = await startApiServer();
  const config: RestConfig = { host: server.url };
  try {
    await withNamespace(config, async (namespace) => {
      const ctx: CheckContext = { config, namespace, real: false, expireHistory: async () => server.faults.compact() };
      for (const check of clientFidelityChecks) {
        if (check.realOnly === true) continue;
        await t.test(check.name, () => check.run(ctx));
      }
    });
  } finally {
    await server.stop();
  }
});

const realKubeconfig = process.env['KUBELOOM_REAL_KUBECONFIG'];

test('client fidelity checks against a real kube-apiserver', { skip: realKubeconfig === undefined ? 'set KUBELOOM_REAL_KUBECONFIG to run' : false }, async (t) => {
  const config = await restConfigFrom(await loadKubeConfig({ path: realKubeconfig!, env: {} }));
  await withNamespace(config, async (namespace) => {
    // etcd compacts every COMPACTION_INTERVAL (10 s on the shared server): after two intervals a
    // resourceVersion from before the wait is gone.
    const compactionMs = Number(process.env['KUBELOOM_REAL_COMPACTION_MS'] ?? 10_000);
    const ctx: CheckContext = { config, namespace, real: true, expireHistory: () => new Promise((r) => setTimeout(r, 2.5 * compactionMs)) };
    for (const check of clientFidelityChecks) await t.test(check.name, () => check.run(ctx));
  });
});
