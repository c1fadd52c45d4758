/**
 * For working on kubeloom itself: an end-to-end test written once for two backends with the suite's
 * own layer (test/support/backend.ts, not part of the package). It runs against the embedded API
 * server in `npm test` and, in a file under test/, against a real cluster in `npm run test:real`.
 * Run with `node --test examples/two-backend.test.ts`; see docs/testing-real-cluster.md.
 */
// #region two-backend
import assert from 'node:assert/strict';
import { isInternalError } from 'kubeloom/apimachinery';
import { Capability, e2eTest } from '../test/support/backend.ts'; // from a file in test/: './support/backend.ts'

e2eTest('a ConfigMap round trip', async (env) => {
  const cms = env.cs.coreV1().configMaps(env.namespace); // the test's own namespace
  await cms.create({ metadata: { name: 'a' }, data: { k: 'v' } });
  assert.equal((await cms.get('a')).data?.['k'], 'v');
});

e2eTest('a 500 without Retry-After is not retried', { needs: [Capability.Faults] }, async (env) => {
  env.faults.failNext({ verb: 'get', resource: 'configmaps', status: 500 }); // embedded only
  await assert.rejects(env.cs.coreV1().configMaps(env.namespace).get('a'), isInternalError);
});

for (const tls of [false, true]) {
  // HTTP: embedded only (a real cluster is served as its kubeconfig says)
  e2eTest(`${tls ? 'HTTPS' : 'HTTP'}: the test's namespace is there`, { tls }, async (env) => {
    assert.ok(env.host.startsWith(tls ? 'https:' : 'http:'), env.host);
    assert.equal((await env.cs.coreV1().namespaces().get(env.namespace)).metadata?.name, env.namespace);
  });
}
// #endregion
