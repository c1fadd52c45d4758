import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap } from '../api/core/v1.ts';
import type { Deployment } from '../api/apps/v1.ts';
import { startApiServer } from '../apiserver/index.ts';
import { RestClient } from '../rest/client.ts';
import { Client } from './client.ts';
import { createOrPatch, createOrUpdate, MutateKeyChangedError } from './controllerutil.ts';
import { kinds } from './kinds.ts';

async function setup(t: import('node:test').TestContext): Promise<Client> {
  const server = await startApiServer();
  const rest = new RestClient({ host: server.url, qps: -1 });
  t.after(async () => {
    await rest.close();
    await server.stop();
  });
  return new Client({ rest });
}

test('createOrUpdate creates, then updates only when mutate changed something, filling obj with what the server stored', async (t) => {
  const client = await setup(t);
  let mode = 'fast';
  const desired = (): ConfigMap => ({ metadata: { namespace: 'default', name: 'settings' } });
  const mutate = (c: ConfigMap): void => {
    c.data = { ...c.data, mode };
  };
  const cm = desired();
  assert.equal(await createOrUpdate(client, kinds.coreV1.configMaps, cm, mutate), 'created');
  assert.ok(cm.metadata?.uid !== undefined, 'obj holds the created object');
  const again = desired();
  assert.equal(await createOrUpdate(client, kinds.coreV1.configMaps, again, mutate), 'unchanged');
  assert.equal(again.metadata?.resourceVersion, cm.metadata?.resourceVersion);
  mode = 'slow';
  const third = desired();
  assert.equal(await createOrUpdate(client, kinds.coreV1.configMaps, third, mutate), 'updated');
  assert.deepEqual(third.data, { mode: 'slow' });
  assert.notEqual(third.metadata?.resourceVersion, cm.metadata?.resourceVersion);
  await assert.rejects(
    createOrUpdate(client, kinds.coreV1.configMaps, desired(), (c) => {
      c.metadata!.name = 'other';
    }),
    MutateKeyChangedError,
  );
});

test('createOrPatch patches the object and its status separately and says which it wrote', async (t) => {
  const client = await setup(t);
  const desired = (): Deployment => ({ metadata: { namespace: 'default', name: 'web' } });
  let replicas = 1;
  let observed: number | undefined;
  const mutate = (d: Deployment): void => {
    // As a mutate function should: set the fields it owns, keep what the server defaulted.
    d.spec ??= { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } };
    d.spec.replicas = replicas;
    if (observed !== undefined) d.status = { ...d.status, observedGeneration: observed };
  };
  assert.equal(await createOrPatch(client, kinds.appsV1.deployments, desired(), mutate), 'created');
  assert.equal(await createOrPatch(client, kinds.appsV1.deployments, desired(), mutate), 'unchanged');
  replicas = 2;
  assert.equal(await createOrPatch(client, kinds.appsV1.deployments, desired(), mutate), 'updated');
  observed = 7;
  const d = desired();
  assert.equal(await createOrPatch(client, kinds.appsV1.deployments, d, mutate), 'updatedStatusOnly');
  assert.equal(d.status?.observedGeneration, 7);
  replicas = 3;
  observed = 8;
  assert.equal(await createOrPatch(client, kinds.appsV1.deployments, desired(), mutate), 'updatedStatus');
  const stored = await client.get(kinds.appsV1.deployments, { namespace: 'default', name: 'web' });
  assert.equal(stored.spec?.replicas, 3);
  assert.equal(stored.status?.observedGeneration, 8);
});
