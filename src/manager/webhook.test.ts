import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { WebhookServer } from '../webhook/server.ts';
import { newManager } from './manager.ts';

const quiet = { debug() {}, info() {}, error() {} };

test('the webhook server runs in the webhooks group: one that cannot read its certificate stops the manager before caches start', async (t) => {
  const certDir = await mkdtemp(path.join(os.tmpdir(), 'kubeloom-mgr-webhook-'));
  t.after(() => rm(certDir, { recursive: true, force: true }));
  const requests: string[] = [];
  // No API server listens here: a cache that started would fail with a network error instead.
  const mgr = newManager({ host: 'http://127.0.0.1:1' }, { logger: quiet, webhookServer: new WebhookServer({ host: '127.0.0.1', port: 0, certDir, logger: quiet }), onRequest: (m) => requests.push(m) });
  mgr.getWebhookServer();
  await assert.rejects(mgr.start(new AbortController().signal), (err: Error & { code?: string }) => err.code === 'ERR_CERTIFICATE_READ' || /tls\.crt/.test(err.message));
  assert.deepEqual(requests, []);
});

test('a webhook server given as an option is started only once getWebhookServer() was called, as upstream', async () => {
  // Its certificate folder is empty: started, it would fail the manager.
  const mgr = newManager({ host: 'http://127.0.0.1:1' }, { logger: quiet, webhookServer: new WebhookServer({ port: 0, certDir: path.join(os.tmpdir(), 'kubeloom-no-such-dir'), logger: quiet }) });
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  await mgr.elected();
  stop.abort();
  await running;
});
