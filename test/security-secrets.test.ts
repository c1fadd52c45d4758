/**
 * Secrets stay secret: bearer tokens, client keys and exec-plugin output never appear in error
 * messages, in what the library logs, or in inspect/JSON output of its objects; exec plugins run
 * without a shell, so their arguments are never interpreted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { access, chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigMap } from '../src/api/core/v1.ts';
import { isUnauthorized } from '../src/apimachinery/errors.ts';
import { newClientset } from '../src/kubernetes/index.ts';
import { loadKubeConfigFile, restConfigFrom } from '../src/clientcmd/index.ts';
import { SharedIndexInformer, newListWatchFromClient } from '../src/tools/cache/index.ts';
import { startApiServer } from '../src/testing/index.ts';

/** Everything written to the console while `fn` runs. */
async function captureConsole(fn: (lines: readonly string[]) => Promise<void>): Promise<string> {
  const lines: string[] = [];
  const methods = ['log', 'info', 'warn', 'error', 'debug'] as const;
  const saved = methods.map((m) => Object.getOwnPropertyDescriptor(console, m)!);
  for (const m of methods) console[m] = (...args: unknown[]) => void lines.push(args.map((a) => (typeof a === 'string' ? a : inspect(a, { depth: 8 }))).join(' '));
  try {
    await fn(lines);
  } finally {
    methods.forEach((m, i) => Object.defineProperty(console, m, saved[i]!));
  }
  return lines.join('\n');
}

/** Every way an error or object can be shown. */
const shown = (x: unknown): string => {
  const parts = [String(x), inspect(x, { depth: 8, showHidden: true })];
  try {
    parts.push(JSON.stringify(x) ?? '');
  } catch {
    // Not serialisable: nothing more shown.
  }
  if (x instanceof Error) parts.push(x.stack ?? '', inspect(x.cause, { depth: 8 }));
  return parts.join('\n');
};

test('a rejected bearer token appears in no error, no log line and no printed client, through requests and an informer', async () => {
  const server = await startApiServer({ token: 'right-token', tls: false });
  const cs = newClientset({ host: server.url, bearerToken: 'wrong-SECRET-token', qps: -1 });
  try {
    const logs = await captureConsole(async (lines) => {
      const err = await cs.coreV1().configMaps('default').get('x').then(() => undefined, (e: unknown) => e);
      assert.ok(isUnauthorized(err));
      assert.doesNotMatch(shown(err), /SECRET/);
      // An informer failing to list logs its errors with the default handler.
      const informer = new SharedIndexInformer<ConfigMap>(newListWatchFromClient(cs.coreV1().configMaps('default')), { reflector: { backoffManager: { nextDelay: () => 20 } } });
      const stop = new AbortController();
      const running = informer.run({ signal: stop.signal });
      // Until the failed list has been logged (however loaded the machine is), not a fixed time.
      for (let i = 0; i < 3000 && !lines.some((l) => /Unauthorized|401/.test(l)); i++) await new Promise((r) => setTimeout(r, 10));
      stop.abort();
      await running;
    });
    assert.match(logs, /Unauthorized|401/, 'the failures were logged');
    assert.doesNotMatch(logs, /SECRET/);
    assert.doesNotMatch(shown(cs) + shown(cs.restClient), /SECRET/);
  } finally {
    await cs.close();
    await server.stop();
  }
});

test('a client key that cannot be used is refused without quoting it', async () => {
  const server = await startApiServer({ tls: true });
  const key = '-----BEGIN PRIVATE KEY-----\nS0VZLVNFQ1JFVA==KEY-SECRET\n-----END PRIVATE KEY-----\n';
  try {
    let err: unknown;
    try {
      const cs = newClientset({ host: server.url, tls: { caData: server.caCertPem!, certData: server.caCertPem!, keyData: key }, qps: -1 }, { maxRetries: 0 });
      err = await cs.coreV1().namespaces().get('default').then(() => undefined, (e: unknown) => e);
      assert.doesNotMatch(shown(cs), /SECRET/);
      await cs.close();
    } catch (e) {
      err = e;
    }
    assert.ok(err instanceof Error, 'the bad key is an error');
    assert.doesNotMatch(shown(err), /SECRET/);
  } finally {
    await server.stop();
  }
});

// A plugin that records its argv, prints the token it is told to, or fails printing secrets.
const pluginSource = `
const fs = require('node:fs');
const mode = process.env.MODE;
fs.writeFileSync(process.env.ARGV_FILE, JSON.stringify(process.argv.slice(2)));
if (mode === 'garbage') { process.stdout.write('not json, but EXEC-SECRET-garbage'); process.exit(0); }
if (mode === 'fail') { process.stderr.write('token: EXEC-SECRET-stderr\\n'); process.exit(3); }
process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: process.env.TOKEN } }));
`;

test('exec plugins: run without a shell (arguments reach it verbatim); their output never shows in errors or printed objects', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kubeloom-exec-'));
  const server = await startApiServer({ token: 'server-token' });
  try {
    const plugin = join(dir, 'plugin.cjs');
    await writeFile(plugin, `#!${process.execPath}\n${pluginSource}`);
    await chmod(plugin, 0o755);
    const pwned = join(dir, 'pwned');
    const args = [`$(touch ${pwned})`, `; touch ${pwned}`, `| touch ${pwned}`, '`id`', "it's \"quoted\"", '*'];
    const kubeconfig = async (mode: string, token: string): Promise<string> => {
      const file = join(dir, `config-${mode}`);
      await writeFile(
        file,
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Config',
          'current-context': 'c',
          clusters: [{ name: 'c', cluster: { server: server.url, 'certificate-authority-data': Buffer.from(server.caCertPem!).toString('base64') } }],
          users: [
            {
              name: 'u',
              user: {
                exec: {
                  command: plugin,
                  args,
                  env: [
                    { name: 'MODE', value: mode },
                    { name: 'TOKEN', value: token },
                    { name: 'ARGV_FILE', value: join(dir, 'argv.json') },
                  ],
                  apiVersion: 'client.authentication.k8s.io/v1',
                  interactiveMode: 'Never',
                },
              },
            },
          ],
          contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
        }),
      );
      return file;
    };

    // The right token: the request succeeds and the arguments arrived untouched.
    const good = newClientset({ ...(await restConfigFrom(await loadKubeConfigFile(await kubeconfig('ok', 'server-token')))), qps: -1 });
    assert.equal((await good.coreV1().namespaces().get('default')).metadata?.name, 'default');
    assert.deepEqual(JSON.parse(await readFile(join(dir, 'argv.json'), 'utf8')), args);
    await assert.rejects(access(pwned), { code: 'ENOENT' }, 'no shell interpreted the arguments');
    await good.close();

    for (const [mode, token] of [['ok', 'EXEC-SECRET-token'], ['garbage', ''], ['fail', '']] as const) {
      const config = await restConfigFrom(await loadKubeConfigFile(await kubeconfig(mode, token)));
      const cs = newClientset({ ...config, qps: -1 }, { maxRetries: 0 });
      const logs = await captureConsole(async () => {
        const err = await cs.coreV1().namespaces().get('default').then(() => undefined, (e: unknown) => e);
        assert.ok(err instanceof Error, mode);
        assert.doesNotMatch(shown(err), /SECRET/, mode);
      });
      assert.doesNotMatch(logs, /SECRET/, mode);
      assert.doesNotMatch(shown(cs) + shown(config.credentialProvider), /SECRET/, mode);
      await cs.close();
    }
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
