/**
 * exec.GetAuthenticator's process-wide cache: configs loaded separately (two files, two parses)
 * with the same exec stanza and cluster share one authenticator, so the plugin runs once for all.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseKubeConfig } from './load.ts';
import { restConfigFrom } from './rest-config.ts';

const kubeconfig = (server: string): string => `
apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: ${server}, insecure-skip-tls-verify: true } }]
users: [{ name: u, user: { exec: { apiVersion: client.authentication.k8s.io/v1, command: /bin/true, args: [token], interactiveMode: Never } } }]
contexts: [{ name: x, context: { cluster: c, user: u } }]
current-context: x
`;

test('separately loaded configs with the same exec stanza share one authenticator; another stanza gets its own', async () => {
  const a = await restConfigFrom(parseKubeConfig(kubeconfig('https://127.0.0.1:6443')));
  const b = await restConfigFrom(parseKubeConfig(kubeconfig('https://127.0.0.1:6443')));
  assert.ok(a.credentialProvider !== undefined);
  assert.equal(a.credentialProvider, b.credentialProvider);
  // Without provideClusterInfo the cluster is not part of the key (exec.go cacheKey).
  const other = await restConfigFrom(parseKubeConfig(kubeconfig('https://10.0.0.1:6443')));
  assert.equal(other.credentialProvider, a.credentialProvider);
  const differentArgs = await restConfigFrom(parseKubeConfig(kubeconfig('https://127.0.0.1:6443').replace('args: [token]', 'args: [other]')));
  assert.notEqual(differentArgs.credentialProvider, a.credentialProvider);
});
