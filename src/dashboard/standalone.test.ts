import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../apiserver/index.ts';
import { RestClient } from '../rest/client.ts';
import { startDashboardServer } from './standalone.ts';

test('The API server dashboard serves the page and a summary of the objects and events, read with the loopback config', async (t) => {
  const server = await startApiServer();
  t.after(() => server.stop());
  const rest = new RestClient(server.loopbackConfig());
  t.after(() => rest.close());
  const dashboard = await startDashboardServer({ rest });
  t.after(() => dashboard.stop());
  const post = (path: string, body: unknown): Promise<Response> => fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await (await post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'shown' } })).text();
  await (await post('/api/v1/namespaces/default/events', { metadata: { name: 'e1' }, involvedObject: { kind: 'ConfigMap', namespace: 'default', name: 'shown' }, reason: 'Checked', message: 'looked at it', type: 'Normal', lastTimestamp: '2026-01-01T00:00:00Z' })).text();
  const page = await (await fetch(dashboard.url)).text();
  assert.match(page, /<title>kubeloom dashboard<\/title>/);
  assert.match(page, /API server/);
  const objects = (await (await fetch(`${dashboard.url}dashboard/api/objects`)).json()) as { collections: Array<{ title: string; items: Array<{ namespace: string; name: string }> }>; events: Array<{ reason: string; object: string; message: string }> };
  assert.deepEqual(objects.collections.map((c) => c.title), ['Namespaces', 'Deployments', 'ReplicaSets', 'Pods', 'Services', 'ConfigMaps']);
  assert.ok(objects.collections.find((c) => c.title === 'ConfigMaps')!.items.some((i) => i.namespace === 'default' && i.name === 'shown'));
  assert.deepEqual(objects.events.map((e) => [e.reason, e.object, e.message]), [['Checked', 'ConfigMap default/shown', 'looked at it']]);
  const missing = await fetch(`${dashboard.url}debug/controllers`);
  assert.equal(missing.status, 404);
  await missing.text();
});
