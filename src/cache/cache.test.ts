import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kinds } from '../client/kinds.ts';
import { RestClient } from '../rest/client.ts';
import { InformerCache } from './cache.ts';

// Never started: no request is sent, the REST client points nowhere.
const cacheOffline = (): InformerCache => new InformerCache({ rest: new RestClient({ host: 'http://127.0.0.1:1' }) });

test('acquireInformer/releaseInformer count users: the informer goes with the last release, its store emptied', async () => {
  const cache = cacheOffline();
  const cms = kinds.coreV1.configMaps;
  const informer = cache.acquireInformer(cms);
  assert.equal(cache.acquireInformer(cms), informer, 'one informer for both users');
  assert.equal(cache.informerUsers(cms), 2);
  informer.getIndexer().add({ metadata: { namespace: 'default', name: 'x' } });
  assert.equal(await cache.releaseInformer(cms), false);
  assert.equal(cache.hasInformer(cms), true);
  assert.equal(await cache.releaseInformer(cms), true);
  assert.equal(cache.hasInformer(cms), false);
  assert.deepEqual(informer.getIndexer().list(), []);
  assert.equal(await cache.releaseInformer(cms), false, 'nothing left to release');
});

test('an informer also used through informerFor is pinned: releases keep it; removeInformer removes it anyway (Cache.RemoveInformer)', async () => {
  const cache = cacheOffline();
  const secrets = kinds.coreV1.secrets;
  cache.acquireInformer(secrets);
  cache.informerFor(secrets);
  assert.equal(await cache.releaseInformer(secrets), false);
  assert.equal(cache.hasInformer(secrets), true);
  assert.equal(await cache.removeInformer(secrets), true);
  assert.equal(cache.hasInformer(secrets), false);
  assert.equal(await cache.removeInformer(secrets), false);
  // A later use makes a new informer.
  cache.acquireInformer(secrets);
  assert.equal(cache.informerUsers(secrets), 1);
});
