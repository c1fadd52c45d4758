import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { test } from 'node:test';
import { applyOverrides, loadKubeConfig, parseKubeConfig, restConfigFrom, scrubText } from './index.ts';

const KEY = '-----BEGIN RSA PRIVATE KEY-----\nS0VZLVNFQ1JFVA==\n-----END RSA PRIVATE KEY-----\n';
const CERT = '-----BEGIN CERTIFICATE-----\nQ0VSVA==\n-----END CERTIFICATE-----\n';
const b64 = (s: string): string => Buffer.from(s).toString('base64');
const secrets = ['TOKEN-SECRET', 'PASSWORD-SECRET', 'S0VZLVNFQ1JFVA', 'ARG-SECRET', 'ENV-SECRET', 'PROVIDER-SECRET', b64(KEY)];

const yaml = `current-context: tok
clusters:
- name: c
  cluster: {server: https://h, certificate-authority-data: ${b64(CERT)}}
users:
- name: tok
  user: {token: TOKEN-SECRET}
- name: basic
  user: {username: admin, password: PASSWORD-SECRET}
- name: cert
  user: {client-certificate-data: ${b64(CERT)}, client-key-data: ${b64(KEY)}}
- name: exec
  user:
    exec:
      command: /bin/plugin
      args: [--token=ARG-SECRET]
      env: [{name: API_KEY, value: ENV-SECRET}]
      apiVersion: client.authentication.k8s.io/v1
      interactiveMode: Never
- name: gcp
  user: {auth-provider: {name: gcp, config: {access-token: PROVIDER-SECRET}}}
contexts:
- {name: tok, context: {cluster: c, user: tok}}
- {name: basic, context: {cluster: c, user: basic}}
- {name: cert, context: {cluster: c, user: cert}}
- {name: exec, context: {cluster: c, user: exec}}
`;

function renderings(value: unknown): string[] {
  return [
    inspect(value),
    inspect(value, { depth: Infinity, showHidden: false }),
    `${value as string}`,
    String(value),
    JSON.stringify(value),
    inspect({ wrapped: value }, { depth: Infinity }),
  ];
}

function assertNoSecrets(texts: string[]): void {
  for (const text of texts) for (const s of secrets) assert.ok(!text.includes(s), `${s} leaked in: ${text}`);
}

test('a loaded config, each of its entries and overridden copies print without secrets', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'kubeloom-redact-'));
  try {
    const file = path.join(dir, 'config');
    await writeFile(file, yaml);
    const config = await loadKubeConfig({ path: file, env: {} });
    assertNoSecrets(renderings(config));
    for (const entry of [...Object.values(config.authInfos), ...Object.values(config.clusters)]) assertNoSecrets(renderings(entry));
    assertNoSecrets(renderings(config.authInfos['exec']!.exec));
    assertNoSecrets(renderings(config.authInfos['gcp']!.authProvider));
    assertNoSecrets(renderings(await loadKubeConfig({ path: file, env: {}, overrides: { token: 'TOKEN-SECRET', password: 'PASSWORD-SECRET', username: 'u' } })));
    // The values themselves are intact.
    assert.equal(config.authInfos['tok']!.token, 'TOKEN-SECRET');
    assert.match(inspect(config.authInfos['tok']), /token: 'REDACTED'/);
    assert.match(inspect(config.authInfos['cert'], { depth: 5 }), /clientCertificateData: 'DATA\+OMITTED'/);
    assert.match(inspect(config.authInfos['exec'], { depth: 5 }), /args: \[ 'REDACTED' \]/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('RestConfigs print without secrets for every auth variant', async () => {
  const config = parseKubeConfig(yaml);
  for (const context of ['tok', 'basic', 'cert', 'exec']) {
    const rest = await restConfigFrom(config, { context });
    assertNoSecrets(renderings(rest));
    if (rest.tls) assertNoSecrets(renderings(rest.tls));
    if (rest.credentialProvider) assertNoSecrets(renderings(rest.credentialProvider));
  }
  const rest = await restConfigFrom(config, { context: 'cert' });
  assert.equal(rest.tls?.keyData, KEY);
  assert.equal(inspect(rest.tls, { breakLength: Infinity }), "TlsClientConfig { caData: 'DATA+OMITTED', certData: 'DATA+OMITTED', keyData: 'REDACTED' }");
});

test('errors about secret fields never contain the values', async () => {
  const bad = [
    'users:\n- name: u\n  user: {token: [TOKEN-SECRET]}\n',
    'users:\n- name: u\n  user: {client-key-data: "PASSWORD-SECRET!"}\n',
    'users:\n- name: u\n  user: {token: TOKEN-SECRET, username: a, password: PASSWORD-SECRET}\ncontexts:\n- {name: c, context: {cluster: x, user: u}}\nclusters:\n- {name: x, cluster: {server: https://h}}\ncurrent-context: c\n',
    'users:\n- name: u\n  user: {token: TOKEN-SECRET\n',
    'users:\n- name: u\n  user:\n    token: TOKEN-SECRET\n    token: PASSWORD-SECRET\n',
  ];
  for (const text of bad) {
    let caught: unknown;
    try {
      await restConfigFrom(parseKubeConfig(text, { file: '/k' }));
    } catch (err) {
      caught = err;
    }
    assert.ok(caught instanceof Error, text);
    assertNoSecrets([caught.message, inspect(caught), String(caught), caught.stack ?? '']);
  }
});

test('applyOverrides keeps protection on the copies it makes', () => {
  const config = parseKubeConfig(yaml);
  const overridden = applyOverrides(config, { token: 'TOKEN-SECRET', server: 'https://x' });
  assertNoSecrets(renderings(overridden.authInfos['tok']));
  assertNoSecrets(renderings(overridden));
});

test('scrubText masks credential-looking text in free-form output', () => {
  const rows: [string, string][] = [
    ['error: token=abc123', 'error: token=REDACTED'],
    ['"access_token": "xyz"', '"access_token": REDACTED'],
    ['Authorization: Bearer abc.def', 'Authorization: Bearer REDACTED'],
    ['jwt eyJhbGciOi.eyJzdWIi.sig here', 'jwt REDACTED here'],
    [`key:\n${KEY}done`, 'key:\nREDACTED\ndone'],
    ['id AKIA0123456789ABCDEFGHIJKLMNOPQRSTUV end', 'id REDACTED end'],
    ['plain message: could not reach https://login.example.com', 'plain message: could not reach https://login.example.com'],
  ];
  for (const [input, want] of rows) assert.equal(scrubText(input), want, input);
  assert.equal(scrubText('word '.repeat(100), 20), 'word word word word … (truncated)');
});
