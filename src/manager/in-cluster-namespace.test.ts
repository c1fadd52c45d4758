import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Lease } from '../api/coordination/v1.ts';
import { startApiServer } from '../apiserver/index.ts';
import { inClusterNamespace, inClusterNamespacePath } from './in-cluster-namespace.ts';
import { newManager } from './manager.ts';

test('inClusterNamespace reads the service account namespace file, and falls back to default out of cluster', () => {
  assert.equal(inClusterNamespacePath, '/var/run/secrets/kubernetes.io/serviceaccount/namespace');
  const dir = mkdtempSync(join(tmpdir(), 'ns-'));
  writeFileSync(join(dir, 'namespace'), 'operators\n');
  assert.equal(inClusterNamespace(join(dir, 'namespace')), 'operators');
  assert.equal(inClusterNamespace(join(dir, 'missing')), 'default');
});

test('the leader-election Lease goes to the pod namespace when no namespace is given', async (t) => {
  const server = await startApiServer();
  t.after(() => server.stop());
  await fetch(`${server.url}/api/v1/namespaces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'diag-operators' } }) });
  const dir = mkdtempSync(join(tmpdir(), 'ns-'));
  writeFileSync(join(dir, 'namespace'), 'diag-operators');
  const mgr = newManager({ host: server.url, qps: -1 }, { logger: { debug() {}, info() {}, error() {} }, leaderElection: { id: 'diag-lock', inClusterNamespacePath: join(dir, 'namespace'), leaseDurationMs: 2_000, renewDeadlineMs: 1_500, retryPeriodMs: 200 } });
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  await mgr.elected();
  const lease = (await (await fetch(`${server.url}/apis/coordination.k8s.io/v1/namespaces/diag-operators/leases/diag-lock`)).json()) as Lease;
  assert.equal(lease.metadata?.name, 'diag-lock');
  stop.abort();
  await running;
});
