/**
 * Security of the transport: TLS verification is on unless insecure is asked for, and credentials
 * never travel in clear text to a host that is not loopback without an explicit opt-in. (The
 * kubeconfig writer's 0600 mode is tested in src/clientcmd/write.test.ts and the embedded server's
 * writeKubeconfig in test/apiserver-auth.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { createServer } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeloomError } from '../src/apimachinery/errors.ts';
import { newClientset } from '../src/kubernetes/index.ts';
import { InsecureCredentialsError, NetworkError, type RestConfig } from '../src/rest/index.ts';
import { parseKubeConfig, restConfigFrom } from '../src/clientcmd/index.ts';
import { startApiServer } from '../src/testing/index.ts';

test('TLS: a self-signed server is refused without its CA, accepted with it, and without verification only when insecure', async () => {
  const server = await startApiServer({ tls: true });
  const ca = server.caCertPem!;
  const attempt = async (config: Omit<RestConfig, 'host'>): Promise<unknown> => {
    const cs = newClientset({ host: server.url, qps: -1, ...config }, { maxRetries: 0 });
    try {
      await cs.coreV1().namespaces().get('default');
      return undefined;
    } catch (err) {
      return err;
    } finally {
      await cs.close();
    }
  };
  try {
    const refused = await attempt({});
    assert.ok(refused instanceof NetworkError, String(refused));
    assert.equal(((refused as NetworkError).cause as { code?: string }).code, 'DEPTH_ZERO_SELF_SIGNED_CERT');
    assert.ok((await attempt({ tls: {} })) instanceof NetworkError, 'an empty tls block still verifies');
    assert.ok((await attempt({ tls: { insecure: false } })) instanceof NetworkError);
    assert.equal(await attempt({ tls: { caData: ca } }), undefined);
    assert.equal(await attempt({ tls: { insecure: true } }), undefined);
    // A CA that did not sign the server's certificate is no better than none.
    const other = await startApiServer({ tls: true });
    try {
      assert.ok((await attempt({ tls: { caData: other.caCertPem! } })) instanceof NetworkError);
    } finally {
      await other.stop();
    }
    // The kubeconfig path: insecure-skip-tls-verify is the only way to skip verification.
    const kc = parseKubeConfig(`
apiVersion: v1
kind: Config
current-context: c
clusters: [{name: c, cluster: {server: ${server.url}}}]
users: [{name: u, user: {}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
`);
    const fromKubeconfig = await restConfigFrom(kc);
    assert.notEqual(fromKubeconfig.tls?.insecure, true);
    const cs = newClientset({ ...fromKubeconfig, qps: -1 }, { maxRetries: 0 });
    await assert.rejects(cs.coreV1().namespaces().get('default'), NetworkError);
    await cs.close();
    const skip = await restConfigFrom(parseKubeConfig(`
apiVersion: v1
kind: Config
current-context: c
clusters: [{name: c, cluster: {server: ${server.url}, insecure-skip-tls-verify: true}}]
users: [{name: u, user: {}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
`));
    const insecure = newClientset({ ...skip, qps: -1 });
    assert.equal((await insecure.coreV1().namespaces().get('default')).metadata?.name, 'default');
    await insecure.close();
  } finally {
    await server.stop();
  }
});

const nonLoopback = 'http://10.255.255.1:8080';

test('credentials are refused before any connection for plain HTTP to a non-loopback host, whatever their source', async () => {
  // Nothing is ever sent to 10.255.255.1: every config goes through a local proxy that counts the
  // connections it gets, so a client that tried to send anything would be seen there, not on the network.
  const sink = createServer((s) => {
    connections++;
    s.destroy();
  });
  let connections = 0;
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
  const proxyUrl = `http://127.0.0.1:${(sink.address() as { port: number }).port}`;
  const dir = await mkdtemp(join(tmpdir(), 'kubeloom-sec-'));
  const tokenFile = join(dir, 'token');
  await writeFile(tokenFile, 'file-token-SECRET\n');
  const configs: Array<[string, RestConfig]> = [
    ['bearerToken', { host: nonLoopback, bearerToken: 'token-SECRET' }],
    ['bearerTokenFile', { host: nonLoopback, bearerTokenFile: tokenFile }],
    ['basic auth', { host: nonLoopback, username: 'admin', password: 'password-SECRET' }],
    ['credential provider', { host: nonLoopback, credentialProvider: { getCredentials: () => Promise.resolve({ token: 'provider-SECRET' }), invalidate: () => {} } }],
    ['scheme-less host', { host: '10.255.255.1:8080', bearerToken: 'token-SECRET' }],
    ['a name, not an address', { host: 'http://kubernetes.example:8080', bearerToken: 'token-SECRET' }],
  ];
  try {
    for (const [name, config] of configs) {
      const cs = newClientset({ ...config, proxyUrl, qps: -1 }, { maxRetries: 0 });
      const err = await cs
        .coreV1()
        .pods('default')
        .list()
        .then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof InsecureCredentialsError, `${name}: ${String(err)}`);
      assert.equal(err.code, 'ERR_KUBE_INSECURE_CREDENTIALS');
      assert.doesNotMatch(`${err.message} ${inspect(err)} ${inspect(cs)} ${JSON.stringify(cs.restClient)}`, /SECRET/, name);
      await cs.close();
    }
    assert.equal(connections, 0, 'no connection was attempted');
    // The sink does see a request without credentials, so it would have seen the ones above.
    const anonymous = newClientset({ host: nonLoopback, proxyUrl, qps: -1 }, { maxRetries: 0 });
    await assert.rejects(anonymous.coreV1().pods('default').list(), NetworkError);
    await anonymous.close();
    assert.equal(connections, 1);
  } finally {
    sink.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('credentials over plain HTTP to loopback are allowed (the embedded server), and the refusal names the opt-in', async () => {
  const server = await startApiServer({ token: 'loopback-SECRET', tls: false });
  try {
    const cs = newClientset({ host: server.url, bearerToken: 'loopback-SECRET', qps: -1 });
    assert.equal((await cs.coreV1().namespaces().get('default')).metadata?.name, 'default');
    await cs.close();
    const refused = newClientset({ host: nonLoopback, bearerToken: 'x', qps: -1 });
    const err = await refused.coreV1().pods('').list().then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof KubeloomError);
    assert.match(err.message, /allowInsecureCredentials/);
    await refused.close();
  } finally {
    await server.stop();
  }
});
