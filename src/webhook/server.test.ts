import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { connect } from 'node:tls';
import os from 'node:os';
import path from 'node:path';
import { X509Certificate } from 'node:crypto';
import { FakeClock } from '../util/clock/clock.ts';
import { noopLogger } from '../tools/events/logger.ts';
import { CertWatcher, CertificateReadError } from './certwatcher.ts';
import { generateServingCertificates } from './certificates.ts';
import { WebhookServer, WebhookServerError, defaultCertDir } from './server.ts';

async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kubeloom-webhook-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function get(port: number, pathname: string, ca: string): Promise<{ status: number; body: string; peerSerial: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: pathname, method: 'POST', ca, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, peerSerial: serial }));
    });
    let serial = '';
    req.on('socket', (s) => s.once('secureConnect', () => (serial = (s as import('node:tls').TLSSocket).getPeerCertificate().serialNumber)));
    req.on('error', reject);
    req.end('{}');
  });
}

test('WebhookServer defaults to port 9443, the temp-dir cert folder, tls.crt/tls.key, and needs no leader election', () => {
  const s = new WebhookServer();
  assert.equal(s.options.port, 9443);
  assert.equal(s.options.certDir, path.join(os.tmpdir(), 'k8s-webhook-server', 'serving-certs'));
  assert.equal(defaultCertDir(), s.options.certDir);
  assert.equal(s.options.certName, 'tls.crt');
  assert.equal(s.options.keyName, 'tls.key');
  assert.equal(s.options.host, '');
  assert.equal(s.needLeaderElection(), false);
});

test('WebhookServer serves registered paths over TLS, answers 404 elsewhere, refuses duplicate paths, is ready only while serving and stops on abort', async (t) => {
  const dir = await tempDir(t);
  const certs = await generateServingCertificates({ certDir: dir });
  const server = new WebhookServer({ certDir: dir, port: 0, host: '127.0.0.1', logger: noopLogger });
  server.register('/hello', (_req, res) => res.end('hi'));
  server.register('/prefix/', (req, res) => res.end(`prefix ${req.url}`));
  server.register('/boom', () => {
    throw new Error('boom');
  });
  assert.throws(() => server.register('/hello', (_req, res) => res.end()), (e: unknown) => e instanceof WebhookServerError && e.message === "can't register duplicate path: /hello");
  const ready = server.startedChecker();
  await assert.rejects(ready(), { message: 'webhook server has not been started yet' });
  const ac = new AbortController();
  const running = server.start(ac.signal);
  const { port } = await server.whenStarted();
  await ready();
  assert.deepEqual((await get(port, '/hello', certs.caCert)).body, 'hi');
  assert.deepEqual((await get(port, '/prefix/a/b', certs.caCert)).body, 'prefix /prefix/a/b');
  const missing = await get(port, '/nothing', certs.caCert);
  assert.deepEqual([missing.status, missing.body], [404, '404 page not found\n']);
  assert.equal((await get(port, '/boom', certs.caCert)).status, 500);
  // TLS 1.1 is refused (minVersion TLSv1.2).
  await assert.rejects(
    new Promise<void>((resolve, reject) => {
      const s = connect({ host: '127.0.0.1', port, ca: certs.caCert, maxVersion: 'TLSv1.1', minVersion: 'TLSv1' });
      s.once('secureConnect', () => {
        s.end();
        resolve();
      });
      s.once('error', reject);
    }),
  );
  ac.abort();
  await running;
  await assert.rejects(ready(), { message: 'webhook server has not been started yet' });
});

test('WebhookServer.start rejects when the certificate files are missing', async (t) => {
  const dir = await tempDir(t);
  const server = new WebhookServer({ certDir: dir, port: 0, logger: noopLogger });
  await assert.rejects(server.start(new AbortController().signal), (e: unknown) => e instanceof CertificateReadError && e.message.includes('tls.crt'));
  await assert.rejects(server.whenStarted(), CertificateReadError);
});

test('WebhookServer serves a rotated certificate once the watcher re-reads the files', async (t) => {
  const dir = await tempDir(t);
  const first = await generateServingCertificates({ certDir: dir });
  const clock = new FakeClock();
  const server = new WebhookServer({ certDir: dir, port: 0, host: '127.0.0.1', clock, logger: noopLogger });
  server.register('/x', (_req, res) => res.end('x'));
  const ac = new AbortController();
  const running = server.start(ac.signal);
  const { port } = await server.whenStarted();
  assert.equal((await get(port, '/x', first.caCert)).peerSerial, new X509Certificate(first.cert).serialNumber);
  const second = await generateServingCertificates({ certDir: dir });
  const want = new X509Certificate(second.cert).serialNumber;
  // The poll (or the folder watch, whichever comes first) picks the new pair up.
  for (let i = 0; i < 50; i++) {
    await clock.step(10_000);
    try {
      if ((await get(port, '/x', second.caCert)).peerSerial === want) break;
    } catch {
      // still the old certificate, signed by the old CA
    }
  }
  assert.equal((await get(port, '/x', second.caCert)).peerSerial, want);
  ac.abort();
  await running;
});

test('CertWatcher polls on its clock, keeps the last good pair when the files are broken, and calls back on each change', async (t) => {
  const dir = await tempDir(t);
  const first = await generateServingCertificates({ certDir: dir });
  const clock = new FakeClock();
  const w = new CertWatcher({ certPath: path.join(dir, 'tls.crt'), keyPath: path.join(dir, 'tls.key'), clock, watchFiles: false, logger: noopLogger });
  await w.readCertificate();
  const seen: string[] = [];
  let changed: () => void = () => undefined;
  w.registerCallback((p) => {
    seen.push(p.cert);
    changed();
  });
  assert.deepEqual(seen, [first.cert]);
  const ac = new AbortController();
  const running = w.start(ac.signal);
  await writeFile(path.join(dir, 'tls.crt'), 'garbage');
  await clock.step(10_000);
  await w.readCertificate().catch(() => undefined);
  assert.equal(w.current()?.cert, first.cert);
  await assert.rejects(w.readCertificate(), { message: 'tls: failed to find any PEM data in certificate input' });
  const second = await generateServingCertificates({ certDir: dir });
  await clock.step(9_999);
  assert.equal(w.current()?.cert, first.cert, 'no re-read before the interval');
  const reread = new Promise<void>((resolve) => (changed = resolve));
  await clock.step(1);
  await reread; // the poll read the new files: nothing else calls readCertificate here
  assert.equal(w.current()?.cert, second.cert);
  assert.deepEqual(seen, [first.cert, second.cert]);
  // A key that does not match the certificate is refused.
  await writeFile(path.join(dir, 'tls.key'), first.key);
  await assert.rejects(w.readCertificate(), { message: 'tls: private key does not match public key' });
  ac.abort();
  await running;
});

test('WebhookServer with a registry counts requests by path and status code, with their latency, as controller-runtime', async (t) => {
  const { Registry } = await import('prom-client');
  const registry = new Registry();
  const dir = await tempDir(t);
  const certs = await generateServingCertificates({ certDir: dir });
  const server = new WebhookServer({ certDir: dir, port: 0, host: '127.0.0.1', logger: noopLogger, metrics: registry });
  server.register('/ok', (_req, res) => res.end('ok'));
  server.register('/boom', () => {
    throw new Error('boom');
  });
  const ac = new AbortController();
  const running = server.start(ac.signal);
  const { port } = await server.whenStarted();
  await get(port, '/ok', certs.caCert);
  await get(port, '/ok', certs.caCert);
  await get(port, '/boom', certs.caCert);
  ac.abort();
  await running;
  const text = await registry.metrics();
  assert.match(text, /^controller_runtime_webhook_requests_total\{webhook="\/ok",code="200"\} 2$/m);
  assert.match(text, /^controller_runtime_webhook_requests_total\{webhook="\/boom",code="500"\} 1$/m);
  assert.match(text, /^controller_runtime_webhook_latency_seconds_count\{webhook="\/ok"\} 2$/m);
  assert.match(text, /^controller_runtime_webhook_requests_in_flight\{webhook="\/ok"\} 0$/m);
});

test('WebhookServer shuts down gracefully: an in-flight request finishes, one that hangs is cut after a minute on the clock', async (t) => {
  const dir = await tempDir(t);
  const certs = await generateServingCertificates({ certDir: dir });
  const clock = new FakeClock();
  const server = new WebhookServer({ certDir: dir, port: 0, host: '127.0.0.1', clock, logger: noopLogger });
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let arrivedSlow!: () => void;
  const slowArrived = new Promise<void>((r) => (arrivedSlow = r));
  let arrivedHung!: () => void;
  const hungArrived = new Promise<void>((r) => (arrivedHung = r));
  server.register('/slow', async (_req, res) => {
    arrivedSlow();
    await released;
    res.end('done');
  });
  server.register('/hang', () => arrivedHung());
  const ac = new AbortController();
  let stopped = false;
  const running = server.start(ac.signal).then(() => (stopped = true));
  const { port } = await server.whenStarted();
  const slow = get(port, '/slow', certs.caCert);
  const hung = get(port, '/hang', certs.caCert).then(
    () => 'answered',
    () => 'cut',
  );
  await slowArrived;
  await hungArrived;
  ac.abort();
  await clock.step(0);
  release();
  assert.equal((await slow).body, 'done', 'the in-flight request got its answer');
  assert.equal(stopped, false, 'still waiting for the hung request');
  await clock.step(59_999);
  assert.equal(stopped, false);
  await clock.step(1);
  await running;
  assert.equal(await hung, 'cut');
});
