import assert from 'node:assert/strict';
import https from 'node:https';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { generate } from 'selfsigned';
import { FakeClock } from '../util/clock/clock.ts';
import { RestClient } from '../rest/client.ts';
import { buildGet } from '../rest/request.ts';
import type { ExecConfig } from './api/types.ts';
import {
  ExecCredentialProvider,
  execCredentialProviderFor,
  ExecPluginFailedError,
  ExecPluginInteractiveError,
  ExecPluginNotFoundError,
  ExecPluginOutputError,
  type ExecCredentialProviderOptions,
  loadKubeConfig,
  restConfigFrom,
} from './index.ts';

const V1 = 'client.authentication.k8s.io/v1';
const V1BETA1 = 'client.authentication.k8s.io/v1beta1';

// The test plugin: counts its runs, records what it was given, and answers what response.json says.
const pluginSource = `
const fs = require('node:fs');
const dir = process.env.PLUGIN_DIR;
const countFile = dir + '/count';
const n = (fs.existsSync(countFile) ? Number(fs.readFileSync(countFile, 'utf8')) : 0) + 1;
fs.writeFileSync(countFile, String(n));
fs.writeFileSync(dir + '/run-' + n + '.json', JSON.stringify({
  argv: process.argv.slice(2),
  info: JSON.parse(process.env.KUBERNETES_EXEC_INFO),
  extra: process.env.EXTRA,
  inherited: process.env.INHERITED,
}));
const r = JSON.parse(fs.readFileSync(dir + '/response.json', 'utf8'));
if (r.stderr) process.stderr.write(r.stderr);
if (r.kill) process.kill(process.pid, 'SIGKILL');
if (r.stdout !== undefined) process.stdout.write((typeof r.stdout === 'string' ? r.stdout : JSON.stringify(r.stdout)).replaceAll('$N', String(n)));
process.exitCode = r.exit ?? 0;
`;

let dir: string;
let script: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'kubeloom-exec-'));
  script = path.join(dir, 'plugin.cjs');
  await writeFile(script, pluginSource);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function respond(r: { stdout?: unknown; stderr?: string; exit?: number; kill?: boolean }): Promise<void> {
  await writeFile(path.join(dir, 'response.json'), JSON.stringify(r));
}

function credential(status: Record<string, unknown>, apiVersion = V1): { stdout: unknown } {
  return { stdout: { apiVersion, kind: 'ExecCredential', status } };
}

async function runs(): Promise<number> {
  try {
    return Number(await readFile(path.join(dir, 'count'), 'utf8'));
  } catch {
    return 0;
  }
}

async function run(n: number): Promise<{ argv: string[]; info: unknown; extra?: string; inherited?: string }> {
  return JSON.parse(await readFile(path.join(dir, `run-${n}.json`), 'utf8'));
}

function provider(exec: Partial<ExecConfig> = {}, options: Partial<ExecCredentialProviderOptions> = {}): ExecCredentialProvider {
  return new ExecCredentialProvider({
    exec: {
      command: process.execPath,
      args: [script],
      env: [{ name: 'PLUGIN_DIR', value: dir }],
      apiVersion: V1,
      interactiveMode: 'Never',
      ...exec,
    },
    env: { PATH: process.env['PATH'], INHERITED: 'from-parent' },
    stdinIsTTY: false,
    ...options,
  });
}

describe('ExecCredentialProvider', () => {
  test('runs the plugin without a shell, with args, env and KUBERNETES_EXEC_INFO, and caches its token', async () => {
    await respond(credential({ token: 'tok-$N' }));
    const p = provider({ args: [script, '$(touch pwned)', '; echo hi', '*'], env: [{ name: 'PLUGIN_DIR', value: dir }, { name: 'EXTRA', value: 'x y' }] });
    assert.deepEqual({ ...(await p.getCredentials()) }, { token: 'tok-1' });
    assert.deepEqual({ ...(await p.getCredentials()) }, { token: 'tok-1' });
    assert.equal(await runs(), 1);
    assert.deepEqual(await run(1), {
      argv: ['$(touch pwned)', '; echo hi', '*'],
      info: { apiVersion: V1, kind: 'ExecCredential', spec: { interactive: false } },
      extra: 'x y',
      inherited: 'from-parent',
    });
  });

  test('the credential is cached until expirationTimestamp on the injected clock', async () => {
    const clock = new FakeClock();
    const expiry = new Date(clock.now() + 60_000).toISOString();
    await respond(credential({ token: 'tok-$N', expirationTimestamp: expiry }));
    const p = provider({}, { clock });
    assert.equal((await p.getCredentials()).token, 'tok-1');
    await clock.step(60_000); // exactly at expiry: still valid (upstream: expired only once after it)
    assert.equal((await p.getCredentials()).token, 'tok-1');
    await clock.step(1);
    assert.equal((await p.getCredentials()).token, 'tok-2');
    assert.equal(await runs(), 2);
  });

  test('without expirationTimestamp the credential is kept until invalidate()', async () => {
    const clock = new FakeClock();
    await respond(credential({ token: 'tok-$N' }));
    const p = provider({}, { clock });
    assert.equal((await p.getCredentials()).token, 'tok-1');
    await clock.step(365 * 24 * 3600_000);
    assert.equal((await p.getCredentials()).token, 'tok-1');
    p.invalidate();
    assert.equal((await p.getCredentials()).token, 'tok-2');
    assert.equal((await p.getCredentials()).token, 'tok-2');
    assert.equal(await runs(), 2);
  });

  test('concurrent callers share one plugin run', async () => {
    await respond(credential({ token: 'tok-$N' }));
    const p = provider();
    const results = await Promise.all(Array.from({ length: 8 }, () => p.getCredentials()));
    assert.deepEqual(results.map((c) => c.token), Array(8).fill('tok-1'));
    assert.equal(await runs(), 1);
    p.invalidate();
    const again = await Promise.all([p.getCredentials(), p.getCredentials()]);
    assert.deepEqual(again.map((c) => c.token), ['tok-2', 'tok-2']);
    assert.equal(await runs(), 2);
  });

  test('an aborted caller gives up alone; the shared run still serves the others', async () => {
    await respond(credential({ token: 'tok-$N' }));
    const p = provider();
    const controller = new AbortController();
    const aborted = p.getCredentials(controller.signal);
    const other = p.getCredentials();
    controller.abort(new Error('caller gave up'));
    await assert.rejects(aborted, /caller gave up/);
    assert.equal((await other).token, 'tok-1');
    await assert.rejects(p.getCredentials(AbortSignal.abort(new Error('already'))), /already/);
    assert.equal(await runs(), 1);
  });

  test('client certificate credentials (v1beta1), and cluster info when provideClusterInfo is set', async () => {
    const cert = '-----BEGIN CERTIFICATE-----\nYQ==\n-----END CERTIFICATE-----\n';
    const key = '-----BEGIN PRIVATE KEY-----\nYg==\n-----END PRIVATE KEY-----\n';
    await respond(credential({ clientCertificateData: cert, clientKeyData: key }, V1BETA1));
    const p = provider(
      { apiVersion: V1BETA1, provideClusterInfo: true, interactiveMode: 'IfAvailable' },
      {
        cluster: {
          server: 'https://h:6443',
          tlsServerName: 'api',
          certificateAuthorityData: 'CA PEM',
          proxyUrl: 'http://proxy',
          config: { audience: 'x' },
        },
      },
    );
    assert.deepEqual({ ...(await p.getCredentials()) }, { clientCertificateData: cert, clientKeyData: key });
    assert.deepEqual((await run(1)).info, {
      apiVersion: V1BETA1,
      kind: 'ExecCredential',
      spec: {
        interactive: false,
        cluster: {
          server: 'https://h:6443',
          'tls-server-name': 'api',
          'certificate-authority-data': Buffer.from('CA PEM').toString('base64'),
          'proxy-url': 'http://proxy',
          config: { audience: 'x' },
        },
      },
    });
  });

  test('interactiveMode: Always without a terminal fails before running the plugin; IfAvailable with one is interactive', async () => {
    await respond(credential({ token: 't' }));
    await assert.rejects(provider({ interactiveMode: 'Always' }).getCredentials(), (err: unknown) => {
      assert.ok(err instanceof ExecPluginInteractiveError);
      assert.equal(err.code, 'ERR_EXEC_PLUGIN_INTERACTIVE');
      assert.match(err.message, /standard input is not a terminal/);
      return true;
    });
    assert.equal(await runs(), 0);
    await provider({ interactiveMode: 'IfAvailable' }, { stdinIsTTY: true }).getCredentials();
    assert.deepEqual((await run(1)).info, { apiVersion: V1, kind: 'ExecCredential', spec: { interactive: true } });
  });

  test('a missing executable: the error carries the installHint', async () => {
    const missing = path.join(dir, 'no-such-plugin');
    const p = provider({ command: missing, args: [], installHint: 'Install it with: brew install no-such-plugin' });
    await assert.rejects(p.getCredentials(), (err: unknown) => {
      assert.ok(err instanceof ExecPluginNotFoundError);
      assert.equal(err.command, missing);
      assert.equal(err.message, `exec: executable ${missing} not found (no such file)\n\nInstall it with: brew install no-such-plugin`);
      return true;
    });
  });

  test('a non-zero exit: typed error with the exit code and scrubbed, truncated stderr; failures are not cached', async () => {
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2lnbmF0dXJl';
    await respond({ stderr: `login failed for token: abc123secret (bearer ${jwt})\n${'more text '.repeat(500)}`, exit: 3, stdout: '' });
    const p = provider();
    await assert.rejects(p.getCredentials(), (err: unknown) => {
      assert.ok(err instanceof ExecPluginFailedError);
      assert.equal(err.exitCode, 3);
      assert.ok(err.message.startsWith(`exec: executable ${process.execPath} failed with exit code 3: login failed for token: REDACTED (bearer REDACTED)`), err.message);
      assert.doesNotMatch(err.message, /abc123secret|eyJ/);
      assert.ok(err.stderr.length < 1100);
      assert.match(err.stderr, /… \(truncated\)$/);
      return true;
    });
    await respond(credential({ token: 'tok-$N' }));
    assert.equal((await p.getCredentials()).token, 'tok-2');
  });

  test('a plugin killed by a signal', async () => {
    await respond({ kill: true });
    await assert.rejects(provider().getCredentials(), (err: unknown) => {
      assert.ok(err instanceof ExecPluginFailedError);
      assert.equal(err.exitCode, null);
      assert.equal(err.signal, 'SIGKILL');
      assert.equal(err.message, `exec: executable ${process.execPath} was terminated by signal SIGKILL`);
      return true;
    });
  });

  const bad: { name: string; response: { stdout?: unknown }; message: RegExp }[] = [
    { name: 'output that is not JSON (never quoted)', response: { stdout: 'token=leaked-secret' }, message: /output is not a JSON ExecCredential \(19 bytes\)/ },
    { name: 'a JSON array', response: { stdout: [] }, message: /not a JSON object/ },
    { name: 'another apiVersion', response: credential({ token: 'leaked-secret' }, V1BETA1), message: new RegExp(`configured to use API version ${V1}, plugin returned version "${V1BETA1}"`) },
    { name: 'another kind', response: { stdout: { apiVersion: V1, kind: 'Secret', status: { token: 'leaked-secret' } } }, message: /kind must be ExecCredential/ },
    { name: 'no status', response: { stdout: { apiVersion: V1, kind: 'ExecCredential' } }, message: /didn't return a status field/ },
    { name: 'an empty status', response: credential({}), message: /didn't return a token or cert\/key pair/ },
    { name: 'a certificate without a key', response: credential({ clientCertificateData: 'leaked-secret' }), message: /only certificate or key, not both/ },
    { name: 'a token that is not a string', response: credential({ token: 42 }), message: /status\.token must be a string/ },
    { name: 'a bad expirationTimestamp', response: credential({ token: 'leaked-secret', expirationTimestamp: 'tomorrow' }), message: /expirationTimestamp is not an RFC 3339 time/ },
  ];
  for (const row of bad) {
    test(`invalid output: ${row.name}`, async () => {
      await respond(row.response);
      await assert.rejects(provider().getCredentials(), (err: unknown) => {
        assert.ok(err instanceof ExecPluginOutputError);
        assert.equal(err.code, 'ERR_EXEC_PLUGIN_OUTPUT');
        assert.match(err.message, row.message);
        assert.doesNotMatch(err.message, /leaked-secret/);
        assert.doesNotMatch(inspect(err), /leaked-secret/);
        return true;
      });
    });
  }

  test('credentials and the provider print without secrets', async () => {
    await respond(credential({ token: 'super-secret-token' }));
    const p = provider({ args: [script, '--password=hunter2'] });
    const c = await p.getCredentials();
    for (const text of [inspect(c), (c as { toString(): string }).toString(), JSON.stringify(c), inspect(p), JSON.stringify(p)]) {
      assert.doesNotMatch(text, /super-secret-token|hunter2/, text);
    }
    assert.equal(inspect(c), "Credentials { token: 'REDACTED' }");
    assert.equal(c.token, 'super-secret-token');
  });
});

describe('exec plugins from a kubeconfig', () => {
  test('a relative command is run from the kubeconfig directory and receives the cluster info', async () => {
    const CA = '-----BEGIN CERTIFICATE-----\nQ0E=\n-----END CERTIFICATE-----\n';
    await mkdir(path.join(dir, 'kube/bin'), { recursive: true });
    const plugin = path.join(dir, 'kube/bin/plugin');
    await writeFile(plugin, `#!${process.execPath}\n${pluginSource}`);
    await chmod(plugin, 0o755);
    await writeFile(path.join(dir, 'kube/ca.crt'), CA);
    await writeFile(
      path.join(dir, 'kube/config'),
      `current-context: c
clusters:
- name: c
  cluster:
    server: https://h:6443
    certificate-authority: ca.crt
    extensions:
    - name: client.authentication.k8s.io/exec
      extension: {audience: kubeloom}
users:
- name: u
  user:
    exec:
      command: ./bin/plugin
      args: [get-token]
      env: [{name: PLUGIN_DIR, value: ${JSON.stringify(dir)}}]
      apiVersion: ${V1}
      interactiveMode: Never
      provideClusterInfo: true
contexts:
- name: c
  context: {cluster: c, user: u}
`,
    );
    await respond(credential({ token: 'tok-$N' }));
    const rest = await restConfigFrom(await loadKubeConfig({ path: path.join(dir, 'kube/config'), env: {} }), { env: {}, stdinIsTTY: false });
    assert.equal((await rest.credentialProvider!.getCredentials()).token, 'tok-1');
    assert.deepEqual(await run(1), {
      argv: ['get-token'],
      info: {
        apiVersion: V1,
        kind: 'ExecCredential',
        spec: {
          interactive: false,
          cluster: { server: 'https://h:6443', 'certificate-authority-data': Buffer.from(CA).toString('base64'), config: { audience: 'kubeloom' } },
        },
      },
    });
  });
});

describe('exec plugins across clients (exec.GetAuthenticator, roundTripper)', () => {
  // An https server: a kubeconfig's credentials, exec plugins included, apply only to https (clientcmd).
  async function withServer(fn: (url: string, seen: Array<string | undefined>) => Promise<void>): Promise<void> {
    const seen: Array<string | undefined> = [];
    const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], { keyType: 'ec', curve: 'P-256', algorithm: 'sha256' });
    const server = https.createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p"}}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      await fn(`https://127.0.0.1:${port}`, seen);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  async function kubeconfig(server: string, user: string): Promise<string> {
    const file = path.join(dir, 'config');
    await writeFile(
      file,
      `apiVersion: v1
kind: Config
current-context: c
clusters: [{name: c, cluster: {server: "${server}", insecure-skip-tls-verify: true}}]
users:
- name: u
  user:
    ${user}
    exec:
      command: ${JSON.stringify(process.execPath)}
      args: [${JSON.stringify(script)}]
      env: [{name: PLUGIN_DIR, value: ${JSON.stringify(dir)}}]
      apiVersion: ${V1}
      interactiveMode: Never
contexts: [{name: c, context: {cluster: c, user: u}}]
`,
    );
    return file;
  }

  const get = buildGet({ group: '', version: 'v1', namespace: 'ns', resource: 'pods', name: 'p' });

  test('two clients built from the same kubeconfig share one authenticator: the plugin runs once', async () => {
    await respond(credential({ token: 'tok-$N' }));
    await withServer(async (url, seen) => {
      const file = await kubeconfig(url, '');
      const first = await restConfigFrom(await loadKubeConfig({ path: file, env: {} }));
      const second = await restConfigFrom(await loadKubeConfig({ path: file, env: {} }));
      assert.equal(first.credentialProvider, second.credentialProvider);
      const a = new RestClient(first);
      const b = new RestClient(second);
      try {
        await a.json(get);
        await b.json(get);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
      assert.deepEqual(seen, ['Bearer tok-1', 'Bearer tok-1']);
      assert.equal(await runs(), 1);
    });
  });

  test('the plugin does not run for a user who also has a token, or for a request carrying its own Authorization', async () => {
    await respond(credential({ token: 'tok-$N' }));
    await withServer(async (url, seen) => {
      const withToken = new RestClient(await restConfigFrom(await loadKubeConfig({ path: await kubeconfig(url, 'token: static-token'), env: {} })));
      try {
        await withToken.json(get);
      } finally {
        await withToken.close();
      }
      const plain = new RestClient(await restConfigFrom(await loadKubeConfig({ path: await kubeconfig(url, ''), env: {} })));
      try {
        await plain.json({ ...get, headers: { ...get.headers, authorization: 'Bearer my-own' } });
      } finally {
        await plain.close();
      }
      assert.deepEqual(seen, ['Bearer static-token', 'Bearer my-own']);
      assert.equal(await runs(), 0);
    });
  });

  test('invalidate(used) drops the credential only while it is still the cached one', async () => {
    await respond(credential({ token: 'tok-$N' }));
    const p = provider();
    const first = await p.getCredentials();
    p.invalidate(first);
    const second = await p.getCredentials();
    assert.equal(second.token, 'tok-2');
    p.invalidate(first); // a late 401 for the old credential: already rotated
    assert.equal((await p.getCredentials()).token, 'tok-2');
    assert.equal(await runs(), 2);
  });
});

test('configs differing only in secret-bearing fields (env values, arguments) get providers of their own', () => {
  const base = { command: 'plugin', apiVersion: V1, interactiveMode: 'Never' as const };
  const a = execCredentialProviderFor({ exec: { ...base, env: [{ name: 'TOKEN', value: 'one' }] } });
  const b = execCredentialProviderFor({ exec: { ...base, env: [{ name: 'TOKEN', value: 'two' }] } });
  const c = execCredentialProviderFor({ exec: { ...base, env: [{ name: 'TOKEN', value: 'one' }], args: ['--secret'] } });
  assert.notEqual(a, b);
  assert.notEqual(a, c);
  assert.equal(execCredentialProviderFor({ exec: { ...base, env: [{ name: 'TOKEN', value: 'one' }] } }), a);
});
