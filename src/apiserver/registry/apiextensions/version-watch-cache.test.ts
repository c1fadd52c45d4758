import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../../util/clock/clock.ts';
import { customResourcesOf } from '../../object-meta.ts';
import { ResourceRegistry, storageKey } from '../../resources.ts';
import { Storage } from '../../storage.ts';
import { serveCustomResource, stopServingCustomResource } from './serving-info.ts';
import { versionWatchCache } from './version-watch-cache.ts';

const schema = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };
const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      { name: 'v1', served: true, storage: true, schema },
      { name: 'v2', served: true, storage: false, schema },
    ],
    conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'https://127.0.0.1:1/convert' } } },
  },
};

test('the per-version watch caches of a webhook-converted CRD unsubscribe from its storage when the CRD is deleted', () => {
  const storage = new Storage(10);
  const registry = new ResourceRegistry();
  const store = storageKey('example.com', 'widgets');
  const { entries, causes } = customResourcesOf(crd);
  assert.deepEqual(causes, []);
  serveCustomResource(registry, storage, 'widgets.example.com', entries);
  const baseline = storage.subscriberCount(store);
  const v2 = registry.lookup('example.com', 'v2', 'widgets');
  assert.ok(v2 !== undefined);
  assert.ok(versionWatchCache(storage, registry, v2, { clock: new FakeClock(), resolveService: () => undefined }) !== undefined);
  assert.equal(storage.subscriberCount(store), baseline + 1);
  stopServingCustomResource(registry, storage, 'widgets.example.com');
  assert.equal(storage.subscriberCount(store), baseline);
});
