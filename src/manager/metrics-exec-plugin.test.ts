/**
 * client-go's exec plugin metrics (component-base restclient/metrics.go, fed by
 * plugin/pkg/client/auth/exec): a small plugin script answers what each case asks, and the registry's
 * exposition is read back.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Registry } from 'prom-client';
import { generate } from 'selfsigned';
import { ExecCredentialProvider } from '../clientcmd/exec-credential-provider.ts';
import { FakeClock } from '../util/clock/clock.ts';
import type { PrometheusRegistry } from '../util/prometheus/registry.ts';
import { registerExecPluginMetrics } from './metrics.ts';

const V1 = 'client.authentication.k8s.io/v1';
// Prints response.json's `stdout`, writes its `stderr`, exits with its `exit` or dies by `signal`.
const pluginSource = `#!/usr/bin/env node
const fs = require('node:fs');
const r = JSON.parse(fs.readFileSync(process.env.PLUGIN_DIR + '/response.json', 'utf8'));
if (r.signal) process.kill(process.pid, r.signal);
if (r.stdout !== undefined) process.stdout.write(JSON.stringify(r.stdout));
process.exitCode = r.exit ?? 0;
`;

let dir: string;
let script: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'kubeloom-exec-metrics-'));
  script = path.join(dir, 'plugin.cjs');
  await writeFile(script, pluginSource);
  await chmod(script, 0o755);
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function respond(r: { stdout?: unknown; exit?: number; signal?: string }): Promise<void> {
  await writeFile(path.join(dir, 'response.json'), JSON.stringify(r));
}

function provider(clock: FakeClock, command = process.execPath): ExecCredentialProvider {
  return new ExecCredentialProvider({
    exec: { command, args: command === process.execPath ? [script] : [], apiVersion: V1, interactiveMode: 'Never', env: [{ name: 'PLUGIN_DIR', value: dir }] },
    clock,
    stdinIsTTY: false,
  });
}

function newRegistry(clock: FakeClock): Registry {
  const reg = new Registry();
  registerExecPluginMetrics(reg as unknown as PrometheusRegistry, clock);
  return reg;
}

/** The exposition lines of `name` (its samples, without HELP/TYPE). */
async function samples(reg: Registry, name: string): Promise<string[]> {
  return (await reg.metrics()).split('\n').filter((l) => l.startsWith(name) && !l.startsWith('#'));
}

test('rest_client_exec_plugin_call_total counts each run by exit code and call status, as exec.go does', async () => {
  const clock = new FakeClock();
  const reg = newRegistry(clock);
  await respond({ stdout: { apiVersion: V1, kind: 'ExecCredential', status: { token: 't' } } });
  await provider(clock).getCredentials();
  await respond({ exit: 3 });
  await assert.rejects(provider(clock).getCredentials(), { code: 'ERR_EXEC_PLUGIN_FAILED' });
  await respond({ signal: 'SIGKILL' });
  await assert.rejects(provider(clock).getCredentials(), { code: 'ERR_EXEC_PLUGIN_FAILED' });
  await assert.rejects(provider(clock, path.join(dir, 'no-such-plugin')).getCredentials(), { code: 'ERR_EXEC_PLUGIN_NOT_FOUND' });
  // A plugin that exits 0 counts as no_error even when its output is refused afterwards.
  await respond({ stdout: { apiVersion: V1, kind: 'ExecCredential' } });
  await assert.rejects(provider(clock).getCredentials(), { code: 'ERR_EXEC_PLUGIN_OUTPUT' });
  assert.deepEqual((await samples(reg, 'rest_client_exec_plugin_call_total')).sort(), [
    'rest_client_exec_plugin_call_total{code="-1",call_status="plugin_execution_error"} 1',
    'rest_client_exec_plugin_call_total{code="0",call_status="no_error"} 2',
    'rest_client_exec_plugin_call_total{code="1",call_status="plugin_not_found_error"} 1',
    'rest_client_exec_plugin_call_total{code="3",call_status="plugin_execution_error"} 1',
  ]);
  // Token-only plugins hold no certificate: the TTL is +Inf and no rotation is observed.
  assert.deepEqual(await samples(reg, 'rest_client_exec_plugin_ttl_seconds'), ['rest_client_exec_plugin_ttl_seconds +Inf']);
  assert.deepEqual(await samples(reg, 'rest_client_exec_plugin_certificate_rotation_age_count'), ['rest_client_exec_plugin_certificate_rotation_age_count 0']);
});

test('the TTL gauge counts down to the held client certificate notAfter; a different certificate observes the old one’s age', async () => {
  const day = 86_400_000;
  const start = Date.UTC(2026, 0, 1);
  const clock = new FakeClock(start + 10 * day);
  const reg = newRegistry(clock);
  const first = await generate([{ name: 'commonName', value: 'first' }], { keyType: 'ec', curve: 'P-256', notBeforeDate: new Date(start), notAfterDate: new Date(start + 30 * day) });
  const second = await generate([{ name: 'commonName', value: 'second' }], { keyType: 'ec', curve: 'P-256', notBeforeDate: new Date(start + 25 * day), notAfterDate: new Date(start + 55 * day) });
  const cert = (c: { cert: string; private: string }, expires: number): { stdout: unknown } => ({
    stdout: { apiVersion: V1, kind: 'ExecCredential', status: { clientCertificateData: c.cert, clientKeyData: c.private, expirationTimestamp: new Date(expires).toISOString() } },
  });
  const p = provider(clock);
  await respond(cert(first, start + 25 * day));
  await p.getCredentials();
  assert.deepEqual(await samples(reg, 'rest_client_exec_plugin_ttl_seconds'), [`rest_client_exec_plugin_ttl_seconds ${20 * 86_400}`]);
  await clock.step(10 * day); // 20 days after the first certificate's notBefore, 10 before its notAfter
  assert.deepEqual(await samples(reg, 'rest_client_exec_plugin_ttl_seconds'), [`rest_client_exec_plugin_ttl_seconds ${10 * 86_400}`]);
  // The same certificate again is no rotation.
  p.invalidate();
  await p.getCredentials();
  assert.deepEqual(await samples(reg, 'rest_client_exec_plugin_certificate_rotation_age_count'), ['rest_client_exec_plugin_certificate_rotation_age_count 0']);
  await clock.step(6 * day); // past the credential’s expiry (day 25): the plugin returns the second certificate
  await respond(cert(second, start + 50 * day));
  await p.getCredentials();
  // The first certificate lived 26 days (since its notBefore): in the 1-month bucket, not the 1-week one.
  const rotation = await samples(reg, 'rest_client_exec_plugin_certificate_rotation_age');
  assert.ok(rotation.includes(`rest_client_exec_plugin_certificate_rotation_age_sum ${26 * 86_400}`), rotation.join('\n'));
  assert.ok(rotation.includes('rest_client_exec_plugin_certificate_rotation_age_bucket{le="604800"} 0'));
  assert.ok(rotation.includes('rest_client_exec_plugin_certificate_rotation_age_bucket{le="2592000"} 1'));
  assert.deepEqual(
    rotation.filter((l) => l.includes('_bucket')).map((l) => /le="([^"]+)"/.exec(l)![1]),
    ['600', '1800', '3600', '14400', '86400', '604800', '2592000', '7776000', '15552000', '31104000', '124416000', '+Inf'],
  );
  assert.deepEqual(await samples(reg, 'rest_client_exec_plugin_ttl_seconds'), [`rest_client_exec_plugin_ttl_seconds ${29 * 86_400}`]);
});
