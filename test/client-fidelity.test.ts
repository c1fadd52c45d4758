/**
 * The client fidelity checks (test/client-fidelity-checks.ts) on both backends: against the embedded
 * API server in `npm test`, against the cluster in `npm run test:real` (docs/testing-real-cluster.md).
 * Each check gets the test's own namespace. The broken aggregated API needs API aggregation, which only
 * kube-apiserver serves: it runs in the real lane only.
 */
import { Capability, e2eTest, type E2eEnv } from './support/backend.ts';
import { clientFidelityChecks, type CheckContext } from './client-fidelity-checks.ts';

function contextOf(env: E2eEnv): CheckContext {
  return {
    config: env.restConfig(),
    namespace: env.namespace,
    real: env.backend === 'real',
    // Everything written so far goes out of history: compacted at the revision of a LIST made now.
    async expireHistory() {
      const list = await env.cs.coreV1().configMaps(env.namespace).list({ limit: 1 });
      await env.waitForCompaction(list.metadata?.resourceVersion ?? '');
    },
  };
}

for (const check of clientFidelityChecks) {
  e2eTest(check.name, check.needsAggregation === true ? { needs: [Capability.ApiAggregation] } : {}, async (env) => {
    await check.run(contextOf(env));
  });
}
