import assert from 'node:assert/strict';
import { test } from 'node:test';
import { confirmUsable, parseKubeConfig, validateKubeConfig } from './index.ts';

const yaml = `current-context: gone
clusters:
- name: ok
  cluster: {server: https://h}
- name: noserver
  cluster: {insecure-skip-tls-verify: true}
users:
- name: both
  user: {token: t, password: p}
- name: fine
  user: {token: t}
contexts:
- name: good
  context: {cluster: ok, user: fine}
- name: bad
  context: {cluster: noserver, user: both}
- name: dangling
  context: {cluster: nowhere, user: nobody}
`;

test('validateKubeConfig reports every problem of every context, with file and field', () => {
  const config = parseKubeConfig(yaml, { file: '/k' });
  assert.deepEqual(
    validateKubeConfig(config).map((p) => [p.file, p.field, p.message]),
    [
      [undefined, 'current-context', 'context "gone" does not exist'],
      ['/k', 'clusters["noserver"].cluster.server', 'no server found for cluster "noserver"'],
      ['/k', 'users["both"].user', 'more than one authentication method found: token, basicAuth; only one is allowed'],
      ['/k', 'contexts["dangling"].context.cluster', 'cluster "nowhere" was not found'],
      ['/k', 'contexts["dangling"].context.user', 'user "nobody" was not found'],
    ],
  );
});

test('confirmUsable only looks at the selected context (client-go ConfirmUsable)', () => {
  const config = parseKubeConfig(yaml, { file: '/k' });
  assert.deepEqual({ ...confirmUsable(config, 'good') }, { cluster: 'ok', authInfo: 'fine', locationOfOrigin: '/k' });
  assert.throws(() => confirmUsable(config, 'bad'), /clusters\["noserver"\]\.cluster\.server: no server found/);
  assert.throws(() => confirmUsable(config), /current-context: context "gone" does not exist/);
});
