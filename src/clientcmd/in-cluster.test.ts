import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import {
  inClusterConfig,
  inClusterNamespace,
  isInClusterPossible,
  joinHostPort,
  KubeConfigReadError,
  NotInClusterError,
} from './index.ts';

const CA = '-----BEGIN CERTIFICATE-----\nY2x1c3Rlci1jYQ==\n-----END CERTIFICATE-----\n';
const env = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' };

let root: string;
let sa: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'kubeloom-incluster-'));
  sa = path.join(root, 'var/run/secrets/kubernetes.io/serviceaccount');
  await mkdir(sa, { recursive: true });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('inClusterConfig', () => {
  test('host from the service env vars, the token by file (so rotations are picked up), the CA as data', async () => {
    await writeFile(path.join(sa, 'token'), 'token-v1');
    await writeFile(path.join(sa, 'ca.crt'), CA);
    const rest = await inClusterConfig({ root, env });
    assert.equal(rest.host, 'https://10.96.0.1:443');
    assert.equal(rest.bearerTokenFile, path.join(sa, 'token'));
    assert.equal(rest.bearerToken, 'token-v1', 'the token read, as rest.InClusterConfig sets BearerToken too (the fallback while the file cannot be read)');
    assert.deepEqual({ ...rest.tls }, { caData: CA });

    // Rotation: the config still points at the file, whose new content is what a re-read sees.
    await writeFile(path.join(sa, 'token'), 'token-v2');
    const again = await inClusterConfig({ root, env });
    assert.equal(again.bearerTokenFile, rest.bearerTokenFile);
  });

  test('IPv6 service hosts are bracketed', async () => {
    await writeFile(path.join(sa, 'token'), 't');
    const rest = await inClusterConfig({ root, env: { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '6443' } });
    assert.equal(rest.host, 'https://[fd00::1]:6443');
    assert.equal(joinHostPort('10.0.0.1', '1'), '10.0.0.1:1');
    assert.equal(joinHostPort('[::1]', '1'), '[::1]:1');
  });

  for (const [name, e] of [
    ['no env vars', {}],
    ['no port', { KUBERNETES_SERVICE_HOST: '10.0.0.1' }],
    ['empty host', { KUBERNETES_SERVICE_HOST: '', KUBERNETES_SERVICE_PORT: '443' }],
  ] as const) {
    test(`not in a cluster (${name}): NotInClusterError`, async () => {
      await writeFile(path.join(sa, 'token'), 't');
      await assert.rejects(inClusterConfig({ root, env: e }), (err: unknown) => {
        assert.ok(err instanceof NotInClusterError);
        assert.equal(err.code, 'ERR_NOT_IN_CLUSTER');
        assert.match(err.message, /KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined/);
        return true;
      });
      assert.equal(await isInClusterPossible({ root, env: e }), false);
    });
  }

  test('a missing token is an error naming the file', async () => {
    await assert.rejects(inClusterConfig({ root, env }), (err: unknown) => {
      assert.ok(err instanceof KubeConfigReadError);
      assert.equal(err.file, path.join(sa, 'token'));
      return true;
    });
    assert.equal(await isInClusterPossible({ root, env }), false);
  });

  test('a missing or non-PEM ca.crt is reported as a warning and the system roots are used (as upstream)', async () => {
    await writeFile(path.join(sa, 'token'), 't');
    const warnings: string[] = [];
    const rest = await inClusterConfig({ root, env, onWarning: (m) => warnings.push(m) });
    assert.equal(rest.tls, undefined);
    await writeFile(path.join(sa, 'ca.crt'), 'garbage');
    await inClusterConfig({ root, env, onWarning: (m) => warnings.push(m) });
    assert.deepEqual(warnings, [
      `unable to read ${path.join(sa, 'ca.crt')} (ENOENT); using the system trust store`,
      `${path.join(sa, 'ca.crt')} holds no PEM certificate; using the system trust store`,
    ]);
    assert.equal(await isInClusterPossible({ root, env }), true);
  });

  test('namespace: POD_NAMESPACE, else the namespace file, else default', async () => {
    assert.equal(await inClusterNamespace({ root, env: {} }), 'default');
    await writeFile(path.join(sa, 'namespace'), ' kube-system\n');
    assert.equal(await inClusterNamespace({ root, env: {} }), 'kube-system');
    assert.equal(await inClusterNamespace({ root, env: { POD_NAMESPACE: 'from-env' } }), 'from-env');
  });
});
