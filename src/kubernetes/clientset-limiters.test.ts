/**
 * kubernetes.NewForConfigAndClient: with a positive QPS one limiter is shared by every group-version
 * client; with QPS 0 each group-version client gets its own default limiter (rest/config.go
 * RESTClientForConfigAndClient), all over the same connections.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newClientset } from './clientset.ts';
import { RestClient } from '../rest/client.ts';

test('QPS 0: each group-version client has its own default limiter; the same group-version shares one', async () => {
  const cs = newClientset({ host: 'http://127.0.0.1:1' });
  try {
    const core = cs.coreV1().pods('a').rest.rateLimiter;
    assert.equal(cs.coreV1().configMaps('b').rest.rateLimiter, core);
    assert.notEqual(cs.appsV1().deployments('a').rest.rateLimiter, core);
    assert.notEqual(cs.appsV1().deployments('a').rest.rateLimiter, cs.batchV1().jobs('a').rest.rateLimiter);
  } finally {
    await cs.close();
  }
});

test('a positive QPS, a given limiter or a given RestClient: one limiter for every group-version client', async () => {
  const shared = newClientset({ host: 'http://127.0.0.1:1', qps: 20, burst: 30 });
  const rest = new RestClient({ host: 'http://127.0.0.1:1' });
  const fromClient = newClientset(rest);
  try {
    assert.equal(shared.appsV1().deployments('a').rest.rateLimiter, shared.coreV1().pods('a').rest.rateLimiter);
    assert.equal(fromClient.appsV1().deployments('a').rest.rateLimiter, rest.rateLimiter);
    assert.equal(fromClient.coreV1().pods('a').rest.rateLimiter, rest.rateLimiter);
  } finally {
    await Promise.all([shared.close(), rest.close()]);
  }
});
