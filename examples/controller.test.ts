/**
 * Testing a controller against the embedded API server: a real HTTP server on loopback, started
 * per test, so informers, watches, server-side apply and ownerReferences behave as on a cluster.
 * Run with `node --test examples/controller.test.ts`.
 */
// #region test
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newClientset } from 'kubeloom/kubernetes';
import { startApiServer } from 'kubeloom/testing';
import { newListWatchFromClient } from 'kubeloom/tools/cache';
import { untilWithSync } from 'kubeloom/tools/watch';
import { mirrorLabel, runMirrorController } from './mirror-controller.ts';

test('a labelled ConfigMap gets an owned mirror that follows its data', async (t) => {
  const server = await startApiServer(); // in memory, on a free loopback port
  const clientset = newClientset({ host: server.url, qps: -1 }); // qps -1: no client-side throttling
  const stop = new AbortController();
  const running = runMirrorController(clientset, { namespace: 'default', signal: stop.signal });
  t.after(async () => {
    stop.abort();
    await running;
    await clientset.close();
    await server.stop();
  });

  const configMaps = clientset.coreV1().configMaps('default');
  const source = await configMaps.create({ metadata: { name: 'app', labels: { [mirrorLabel]: 'true' } }, data: { a: '1' } });
  await configMaps.create({ metadata: { name: 'unlabelled' }, data: { a: '1' } });

  // Wait for a condition on the server's state instead of sleeping.
  const mirrorIs = (a: string) =>
    untilWithSync(newListWatchFromClient(configMaps, { fieldSelector: 'metadata.name=app-mirror' }), (e) => e.type !== 'DELETED' && e.object.data?.['a'] === a, {
      timeoutMs: 10_000,
    });
  const mirror = (await mirrorIs('1'))!.object;
  assert.deepEqual(mirror.metadata?.ownerReferences?.map((o) => [o.kind, o.name, o.uid, o.controller]), [['ConfigMap', 'app', source.metadata?.uid, true]]);

  await configMaps.patch('app', 'application/merge-patch+json', { data: { a: '2' } });
  await mirrorIs('2');

  // Someone edits the mirror: the controller puts it back.
  await configMaps.patch('app-mirror', 'application/merge-patch+json', { data: { a: 'edited' } });
  await mirrorIs('2');

  const names = (await configMaps.list()).items.map((c) => c.metadata?.name);
  assert.ok(!names.includes('unlabelled-mirror'), 'unlabelled ConfigMaps are left alone');
});
// #endregion
