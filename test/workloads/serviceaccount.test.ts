/**
 * The ServiceAccounts controller and the root CA publisher (src/controllers/serviceaccount,
 * rootcacertpublisher): every active namespace gets the `default` ServiceAccount and the
 * `kube-root-ca.crt` ConfigMap, and gets them back when they are deleted or changed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rootCACertDescription } from '../../src/controllers/rootcacertpublisher/publisher.ts';
import { startCluster, waitForItems, waitForObject } from './support.ts';

test('a new namespace gets the default ServiceAccount and kube-root-ca.crt (with the server CA), restored when deleted or changed', async (t) => {
  const { server, client: cs } = await startCluster(t, {}, { tls: true });
  await cs.coreV1().namespaces().create({ metadata: { name: 'team-a' } });
  await waitForObject(cs.coreV1().serviceAccounts('team-a'), 'default', (sa) => sa !== undefined);
  const cm = await waitForObject(cs.coreV1().configMaps('team-a'), 'kube-root-ca.crt', (c) => c !== undefined);
  assert.equal(cm?.data?.['ca.crt'], server.caCertPem);
  assert.equal(cm?.metadata?.annotations?.['kubernetes.io/description'], rootCACertDescription);
  // The existing namespaces got theirs too.
  await waitForObject(cs.coreV1().serviceAccounts('kube-system'), 'default', (sa) => sa !== undefined);

  await cs.coreV1().serviceAccounts('team-a').delete('default');
  await cs.coreV1().configMaps('team-a').update({ ...cm!, data: { 'ca.crt': 'tampered' } });
  await waitForItems(cs.coreV1().serviceAccounts('team-a'), (items) => items.some((sa) => sa.metadata?.name === 'default' && sa.metadata.uid !== undefined));
  const restored = await waitForObject(cs.coreV1().configMaps('team-a'), 'kube-root-ca.crt', (c) => c?.data?.['ca.crt'] === server.caCertPem);
  assert.equal(restored?.data?.['ca.crt'], server.caCertPem);
});
