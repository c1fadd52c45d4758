import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { noopLogger } from '../tools/events/logger.ts';
import { generateServingCertificates } from './certificates.ts';
import { DevWebhookError, setupDevWebhooks, type DevWebhookOptions } from './dev.ts';
import { WebhookServer, WebhookServerError } from './server.ts';

async function occupied(t: { after(fn: () => Promise<void>): void }): Promise<number> {
  const squatter: Server = createServer();
  await new Promise<void>((r) => squatter.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => squatter.close(() => r())));
  return (squatter.address() as { port: number }).port;
}

async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kubeloom-webhook-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

test('WebhookServer on a port in use names the webhook server in its error', async (t) => {
  const port = await occupied(t);
  const dir = await tempDir(t);
  await generateServingCertificates({ certDir: dir });
  const server = new WebhookServer({ certDir: dir, port, host: '127.0.0.1', logger: noopLogger });
  await assert.rejects(server.start(new AbortController().signal), (e: unknown) => {
    assert.ok(e instanceof WebhookServerError);
    assert.equal(e.message, `webhook server could not listen on 127.0.0.1:${port}: listen EADDRINUSE: address already in use 127.0.0.1:${port}`);
    return true;
  });
});

test('setupDevWebhooks fails before touching the cluster when the webhook port is in use', async (t) => {
  const port = await occupied(t);
  const dir = await tempDir(t);
  const server = new WebhookServer({ certDir: dir, port, host: '127.0.0.1', logger: noopLogger });
  const touched: string[] = [];
  const record = (what: string) => () => new Proxy({}, { get: (_o, verb) => () => touched.push(`${what}.${String(verb)}`) });
  const clientset = { admissionregistrationV1: () => ({ mutatingWebhookConfigurations: record('mutating'), validatingWebhookConfigurations: record('validating') }), apiextensionsV1: () => ({ customResourceDefinitions: record('crds') }) } as unknown as DevWebhookOptions['clientset'];
  await assert.rejects(
    setupDevWebhooks({ clientset, server, validating: [{ name: 'v', webhooks: [] }], conversions: [{ crdName: 'websites.example.com' }] }),
    (e: unknown) => {
      assert.ok(e instanceof DevWebhookError);
      assert.equal(e.message, `webhook server could not listen on 127.0.0.1:${port}: listen EADDRINUSE: address already in use 127.0.0.1:${port}; the cluster was not changed (stop what listens there, or give the webhook server another port)`);
      return true;
    },
  );
  assert.deepEqual(touched, []);
});
