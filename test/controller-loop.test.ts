/**
 * The Controller helper end to end: real SharedIndexInformers over either backend, the
 * enqueue helpers on real ownerReferences, a reconcile that writes through the API, and a finalizer
 * added and removed with the guarded JSON patches.
 */
import assert from 'node:assert/strict';
import type { ConfigMap, Secret } from '../src/api/core/v1.ts';
import { RestClient } from '../src/rest/client.ts';
import { newClientset } from '../src/kubernetes/clientset.ts';
import { SharedIndexInformer } from '../src/tools/cache/shared-informer.ts';
import { newListWatchFromClient } from '../src/tools/cache/listwatch.ts';
import { isAlreadyExists, isNotFound } from '../src/apimachinery/errors.ts';
import { Controller, enqueueForObject, enqueueForOwner, addFinalizer, hasFinalizer, isBeingDeleted, isFinalizerPatchConflict, removeFinalizer } from '../src/controller/index.ts';
import { waitFor } from '../src/tools/watch/index.ts';
import { e2eTest } from './support/backend.ts';

e2eTest('a Controller keeps a Secret per ConfigMap: informers, owner enqueue, finalizer, drain on stop', async (env) => {
  const ns = env.namespace;
  const rest = new RestClient(env.restConfig());
  const cs = newClientset(rest);
  const cms = cs.coreV1().configMaps(ns);
  const secrets = cs.coreV1().secrets(ns);
  const cmInformer = new SharedIndexInformer<ConfigMap>(newListWatchFromClient(cms));
  const secretInformer = new SharedIndexInformer<Secret>(newListWatchFromClient(secrets));
  const reconciled: string[] = [];
  const finalizer = 'example.kubeloom.dev/secret';
  const errors: unknown[] = [];

  const controller = new Controller({
    name: 'mirror',
    informers: [cmInformer, secretInformer],
    workers: 2,
    onError: (err) => errors.push(err),
    reconcile: async (key, { signal }) => {
      reconciled.push(key);
      const cm = cmInformer.getIndexer().getByKey(key);
      if (cm === undefined) return;
      const name = cm.metadata?.name ?? '';
      if (isBeingDeleted(cm)) {
        try {
          await secrets.delete(name, { signal });
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
        try {
          await removeFinalizer(cms, cm, finalizer, { signal });
        } catch (err) {
          // Already removed by an earlier pass and the object is gone: done.
          if (!isNotFound(err)) throw err;
        }
        return;
      }
      if (!hasFinalizer(cm, finalizer)) await addFinalizer(cms, cm, finalizer, { signal });
      if (secretInformer.getIndexer().getByKey(key) === undefined) {
        await secrets.create(
          {
            metadata: { name, namespace: ns, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name, uid: cm.metadata?.uid ?? '', controller: true }] },
            stringData: { ...cm.data },
          },
          { signal },
        );
      }
    },
  });
  cmInformer.addEventHandler(enqueueForObject(controller));
  secretInformer.addEventHandler(enqueueForOwner(controller, { ownerKind: 'ConfigMap', ownerApiVersion: 'v1' }));

  const stop = new AbortController();
  const runs = [cmInformer.run({ signal: stop.signal }), secretInformer.run({ signal: stop.signal }), controller.run({ signal: stop.signal })];
  env.defer(async () => {
    stop.abort();
    await Promise.all(runs);
    await rest.close();
  });

  await cms.create({ metadata: { name: 'app' }, data: { k: 'v' } });
  await waitFor(secretInformer, (s) => s.metadata?.name === 'app', { timeoutMs: 20_000 });
  await waitFor(cmInformer, (c) => c.metadata?.name === 'app' && hasFinalizer(c, finalizer), { timeoutMs: 20_000 });

  // Deleting the Secret behind the controller's back: its owner is enqueued and it is recreated.
  const before = reconciled.length;
  const first = (await secrets.get('app')).metadata?.uid;
  await secrets.delete('app');
  // A new uid: the cache may still hold the deleted Secret when the wait starts.
  await waitFor(secretInformer, (s) => s.metadata?.name === 'app' && s.metadata.uid !== undefined && s.metadata.uid !== first, { timeoutMs: 20_000 });
  assert.ok(reconciled.slice(before).includes(`${ns}/app`), 'the owner was reconciled after its Secret went');

  // Deleting the ConfigMap: the finalizer holds it until the Secret is gone.
  await cms.delete('app');
  for (let i = 0; i < 2000; i++) {
    if (cmInformer.getIndexer().getByKey(`${ns}/app`) === undefined) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  await assert.rejects(cms.get('app'), isNotFound);
  await assert.rejects(secrets.get('app'), isNotFound);
  assert.equal(controller.hasSynced(), true);
  // A reconcile working from a cache that lags its own writes fails safely and is retried: a
  // finalizer patch refused by its `test`, or a create of what already exists. Nothing else.
  for (const err of errors) assert.ok(isFinalizerPatchConflict(err) || isAlreadyExists(err), String(err));
  const stats = controller.stats();
  assert.equal(stats.error, errors.length);
  assert.ok(stats.success >= 3);
});
