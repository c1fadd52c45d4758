import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { RestConfig } from '../rest/config.ts';
import {
  ExecCredentialProvider,
  InvalidKubeConfigError,
  KubeConfigReadError,
  loadKubeConfig,
  namespaceOf,
  NoConfigurationError,
  parseKubeConfig,
  restConfigFrom,
  UnsupportedAuthProviderError,
} from './index.ts';

const CA = '-----BEGIN CERTIFICATE-----\nQ0EtZGF0YQ==\n-----END CERTIFICATE-----\n';
const CERT = '-----BEGIN CERTIFICATE-----\nY2xpZW50\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN EC PRIVATE KEY-----\nc2VjcmV0LWtleQ==\n-----END EC PRIVATE KEY-----\n';
const b64 = (s: string): string => Buffer.from(s).toString('base64');

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'kubeloom-rest-'));
  await mkdir(path.join(dir, 'pki'));
  await writeFile(path.join(dir, 'pki/ca.crt'), CA);
  await writeFile(path.join(dir, 'pki/client.crt'), CERT);
  await writeFile(path.join(dir, 'pki/client.key'), KEY);
  await writeFile(path.join(dir, 'token'), 'file-token\n');
  await writeFile(path.join(dir, 'not-pem'), 'hello');
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A kubeconfig with one context `ctx` using cluster `c` and user `u`, written to the temp dir. */
async function restFor(cluster: string, user: string, extra = ''): Promise<RestConfig> {
  const p = path.join(dir, 'config');
  await writeFile(
    p,
    `current-context: ctx
clusters:
- name: c
  cluster: {${cluster}}
users:
- name: u
  user: {${user}}
contexts:
- name: ctx
  context: {cluster: c, user: u${extra}}
`,
  );
  return restConfigFrom(await loadKubeConfig({ path: p, env: {} }));
}

const plain = (r: RestConfig): Record<string, unknown> => JSON.parse(JSON.stringify({ ...r, tls: r.tls && { ...r.tls }, credentialProvider: undefined }));

describe('restConfigFrom: every way to describe a server and a user', () => {
  const rows: { name: string; cluster: string; user: string; want: Partial<RestConfig> }[] = [
    { name: 'server only, anonymous', cluster: 'server: https://h:6443', user: '', want: { host: 'https://h:6443' } },
    { name: 'bearer token', cluster: 'server: https://h', user: 'token: tok', want: { host: 'https://h', bearerToken: 'tok' } },
    {
      name: 'token file (relative to the kubeconfig): passed as bearerTokenFile for re-reading, its token as the fallback bearerToken',
      cluster: 'server: https://h',
      user: 'tokenFile: token',
      want: { host: 'https://h', bearerToken: 'file-token', bearerTokenFile: '<dir>/token' },
    },
    { name: 'basic auth', cluster: 'server: https://h', user: 'username: admin, password: pw', want: { host: 'https://h', username: 'admin', password: 'pw' } },
    {
      name: 'CA, client certificate and key from files',
      cluster: 'server: https://h, certificate-authority: pki/ca.crt',
      user: 'client-certificate: pki/client.crt, client-key: pki/client.key',
      want: { host: 'https://h', tls: { caData: CA, certData: CERT, keyData: KEY } },
    },
    {
      name: 'CA, client certificate and key from data',
      cluster: `server: https://h, certificate-authority-data: ${b64(CA)}`,
      user: `client-certificate-data: ${b64(CERT)}, client-key-data: ${b64(KEY)}`,
      want: { host: 'https://h', tls: { caData: CA, certData: CERT, keyData: KEY } },
    },
    {
      name: 'insecure-skip-tls-verify and tls-server-name',
      cluster: 'server: https://10.0.0.1, insecure-skip-tls-verify: true, tls-server-name: api.internal',
      user: '',
      want: { host: 'https://10.0.0.1', tls: { insecure: true, serverName: 'api.internal' } },
    },
    { name: 'proxy-url', cluster: 'server: https://h, proxy-url: "socks5://proxy:1080"', user: '', want: { host: 'https://h', proxyUrl: 'socks5://proxy:1080' } },
    { name: 'disable-compression', cluster: 'server: https://h, disable-compression: true', user: '', want: { host: 'https://h', disableCompression: true } },
    {
      name: 'impersonation: as, as-uid, as-groups, as-user-extra',
      cluster: 'server: https://h',
      user: 'token: t, as: jane, as-uid: "42", as-groups: [devs, ops], as-user-extra: {scopes: [view, edit]}',
      want: { host: 'https://h', bearerToken: 't', impersonate: { userName: 'jane', uid: '42', groups: ['devs', 'ops'], extra: { scopes: ['view', 'edit'] } } },
    },
    { name: 'a path prefix is kept, query and fragment dropped', cluster: 'server: "https://h/k8s/clusters/c-1?x=1#f"', user: '', want: { host: 'https://h/k8s/clusters/c-1' } },
    { name: 'no scheme and no TLS settings: http (as upstream)', cluster: 'server: "h:8080"', user: '', want: { host: 'http://h:8080' } },
    { name: 'no scheme with a CA: https', cluster: 'server: "h:6443", certificate-authority: pki/ca.crt', user: '', want: { host: 'https://h:6443', tls: { caData: CA } } },
  ];
  for (const row of rows) {
    test(row.name, async () => {
      const rest = await restFor(row.cluster, row.user);
      const want = JSON.parse(JSON.stringify(row.want).replaceAll('<dir>', dir));
      assert.deepEqual(plain(rest), want);
    });
  }

  test('exec plugin: a credential provider carrying the command (resolved against the kubeconfig)', async () => {
    const rest = await restFor(
      'server: https://h',
      'exec: {command: ./bin/plugin, apiVersion: client.authentication.k8s.io/v1, interactiveMode: Never, args: [get-token]}',
    );
    assert.ok(rest.credentialProvider instanceof ExecCredentialProvider);
    assert.equal(rest.credentialProvider.command, path.join(dir, 'bin/plugin'));
  });

  test('namespaceOf: the context namespace, else default', async () => {
    const config = parseKubeConfig('current-context: a\ncontexts:\n- name: a\n  context: {cluster: c, namespace: team}\n- name: b\n  context: {cluster: c}\n');
    assert.equal(namespaceOf(config), 'team');
    assert.equal(namespaceOf(config, { context: 'b' }), 'default');
    assert.equal(namespaceOf(config, { context: 'missing' }), 'default');
  });
});

describe('restConfigFrom: unusable configurations name the file and the field', () => {
  const p = (): string => path.join(dir, 'config');
  const rows: { name: string; cluster: string; user: string; extra?: string; field: string; message: RegExp }[] = [
    { name: 'cluster without server', cluster: 'tls-server-name: x', user: '', field: 'clusters["c"].cluster.server', message: /no server found for cluster "c"/ },
    { name: 'token and basic auth together', cluster: 'server: https://h', user: 'token: t, username: a, password: b', field: 'users["u"].user', message: /more than one authentication method found: token, basicAuth/ },
    { name: 'certificate without key', cluster: 'server: https://h', user: 'client-certificate: pki/client.crt', field: 'users["u"].user.client-key', message: /must be specified/ },
    { name: 'key without certificate', cluster: 'server: https://h', user: 'client-key: pki/client.key', field: 'users["u"].user.client-certificate', message: /must be specified/ },
    { name: 'CA file and CA data', cluster: `server: https://h, certificate-authority: pki/ca.crt, certificate-authority-data: ${b64(CA)}`, user: '', field: 'clusters["c"].cluster.certificate-authority', message: /both specified/ },
    { name: 'insecure with a CA', cluster: 'server: https://h, certificate-authority: pki/ca.crt, insecure-skip-tls-verify: true', user: '', field: 'clusters["c"].cluster.insecure-skip-tls-verify', message: /cannot be combined/ },
    { name: 'bad proxy-url', cluster: 'server: https://h, proxy-url: "ftp://x"', user: '', field: 'clusters["c"].cluster.proxy-url', message: /http, https or socks5/ },
    { name: 'exec without command', cluster: 'server: https://h', user: 'exec: {apiVersion: client.authentication.k8s.io/v1, interactiveMode: Never}', field: 'users["u"].user.exec.command', message: /must be specified/ },
    { name: 'v1 exec without interactiveMode', cluster: 'server: https://h', user: 'exec: {command: x, apiVersion: client.authentication.k8s.io/v1}', field: 'users["u"].user.exec.interactiveMode', message: /must be specified/ },
    { name: 'exec with an unsupported apiVersion', cluster: 'server: https://h', user: 'exec: {command: x, apiVersion: client.authentication.k8s.io/v1alpha1, interactiveMode: Never}', field: 'users["u"].user.exec.apiVersion', message: /not supported/ },
    { name: 'exec with an invalid interactiveMode', cluster: 'server: https://h', user: 'exec: {command: x, apiVersion: client.authentication.k8s.io/v1, interactiveMode: Sometimes}', field: 'users["u"].user.exec.interactiveMode', message: /invalid value "Sometimes"/ },
    { name: 'as-groups without as', cluster: 'server: https://h', user: 'as-groups: [g]', field: 'users["u"].user.as', message: /is required/ },
    { name: 'invalid namespace', cluster: 'server: https://h', user: '', extra: ', namespace: Not_Valid', field: 'contexts["ctx"].context.namespace', message: /not a valid namespace/ },
    { name: 'CA file that is not PEM', cluster: 'server: https://h, certificate-authority: not-pem', user: '', field: 'clusters["c"].cluster.certificate-authority', message: /does not contain a PEM certificate/ },
    { name: 'key data that is not PEM', cluster: 'server: https://h', user: `client-certificate-data: ${b64(CERT)}, client-key-data: ${b64('junk')}`, field: 'users["u"].user.client-key-data', message: /does not contain a PEM private key/ },
  ];
  for (const row of rows) {
    test(row.name, async () => {
      await assert.rejects(restFor(row.cluster, row.user, row.extra), (err: unknown) => {
        assert.ok(err instanceof InvalidKubeConfigError, String(err));
        assert.equal(err.file, p());
        assert.equal(err.field, row.field);
        assert.match(err.problems[0]!.message, row.message);
        assert.ok(err.message.startsWith(`invalid configuration: ${p()}: ${row.field}: `), err.message);
        return true;
      });
    });
  }

  test('a context naming a missing cluster or user', async () => {
    const config = parseKubeConfig('current-context: x\ncontexts:\n- name: x\n  context: {cluster: gone, user: nobody}\n', { file: '/k/config' });
    await assert.rejects(restConfigFrom(config), (err: unknown) => {
      assert.ok(err instanceof InvalidKubeConfigError);
      assert.deepEqual(
        err.problems.map((pr) => [pr.file, pr.field, pr.message]),
        [
          ['/k/config', 'contexts["x"].context.cluster', 'cluster "gone" was not found'],
          ['/k/config', 'contexts["x"].context.user', 'user "nobody" was not found'],
        ],
      );
      return true;
    });
  });

  test('a missing current context, or none at all', async () => {
    const config = parseKubeConfig('current-context: x\nclusters:\n- name: c\n  cluster: {server: https://h}\n');
    await assert.rejects(restConfigFrom(config), /current-context: context "x" does not exist/);
    await assert.rejects(restConfigFrom(config, { context: 'y' }), /context: context "y" does not exist/);
    await assert.rejects(restConfigFrom(parseKubeConfig('clusters:\n- name: c\n  cluster: {server: https://h}\n')), /current-context: is not set/);
    await assert.rejects(restConfigFrom(parseKubeConfig('')), NoConfigurationError);
  });

  test('an unreadable referenced file names the file, the field and the kubeconfig', async () => {
    await assert.rejects(restFor('server: https://h', 'tokenFile: missing-token'), (err: unknown) => {
      assert.ok(err instanceof KubeConfigReadError);
      assert.equal(err.file, path.join(dir, 'missing-token'));
      assert.equal(err.field, 'users["u"].user.tokenFile');
      assert.equal(err.message, `unable to read ${path.join(dir, 'missing-token')} (${path.join(dir, 'config')}: users["u"].user.tokenFile): ENOENT`);
      return true;
    });
    await assert.rejects(restFor('server: https://h, certificate-authority: nope.crt', ''), /clusters\["c"\]\.cluster\.certificate-authority\): ENOENT/);
  });

  test('auth-provider users get a clear unsupported error pointing at exec plugins', async () => {
    await assert.rejects(restFor('server: https://h', 'auth-provider: {name: gcp, config: {access-token: ya29.secret}}'), (err: unknown) => {
      assert.ok(err instanceof UnsupportedAuthProviderError);
      assert.equal(err.provider, 'gcp');
      assert.match(err.message, /users\["u"\]\.user\.auth-provider: the "gcp" auth provider is not supported; use an exec credential plugin/);
      assert.doesNotMatch(err.message, /ya29/);
      return true;
    });
  });
});

// client-go tools/clientcmd/client_config.go ClientConfig: "only try to read the auth information if we are
// secure" (rest.IsConfigTransportTLS): user credentials and TLS settings are merged only for https.
describe('restConfigFrom: credentials and TLS settings only for an https server', () => {
  const rows: { name: string; cluster: string; user: string; want: Partial<RestConfig> }[] = [
    { name: 'bearer token over http: not sent', cluster: 'server: http://h:8080', user: 'token: tok', want: { host: 'http://h:8080' } },
    { name: 'token file over http: neither read nor passed on', cluster: 'server: http://h', user: 'tokenFile: no-such-file', want: { host: 'http://h' } },
    { name: 'basic auth over http: not sent', cluster: 'server: http://h', user: 'username: admin, password: pw', want: { host: 'http://h' } },
    {
      name: 'client certificate over http: not used',
      cluster: 'server: http://h',
      user: 'client-certificate: pki/client.crt, client-key: pki/client.key',
      want: { host: 'http://h' },
    },
    { name: 'CA and server name over http: dropped', cluster: 'server: http://h, certificate-authority: pki/ca.crt, tls-server-name: x', user: '', want: { host: 'http://h' } },
    { name: 'auth-provider over http: ignored, not refused', cluster: 'server: http://h', user: 'auth-provider: {name: gcp}', want: { host: 'http://h' } },
    { name: 'exec plugin over http: not run', cluster: 'server: http://h', user: 'exec: {apiVersion: client.authentication.k8s.io/v1, command: plugin, interactiveMode: Never}', want: { host: 'http://h' } },
    {
      name: 'impersonation, proxy and compression still apply over http',
      cluster: 'server: http://h, proxy-url: "http://proxy:3128", disable-compression: true',
      user: 'token: tok, as: jane, as-groups: [devs]',
      want: { host: 'http://h', proxyUrl: 'http://proxy:3128', disableCompression: true, impersonate: { userName: 'jane', groups: ['devs'] } },
    },
    { name: 'the scheme is matched case-insensitively (HTTPS)', cluster: 'server: HTTPS://h', user: 'token: tok', want: { host: 'HTTPS://h', bearerToken: 'tok' } },
  ];
  for (const row of rows) {
    test(row.name, async () => {
      const rest = await restFor(row.cluster, row.user);
      assert.equal(rest.credentialProvider, undefined);
      assert.deepEqual(plain(rest), row.want);
    });
  }
});
