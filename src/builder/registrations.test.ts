import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kinds } from '../client/kinds.ts';
import { newManager } from '../manager/manager.ts';
import { controllerManagedBy } from './builder.ts';
import { controllerRegistrations, webhookRegistrations } from './registrations.ts';
import { webhookManagedBy } from './webhook.ts';

const quiet = { debug() {}, info() {}, error() {} };

test('the builders record what they registered on a manager that is never started', () => {
  const mgr = newManager({ host: 'https://127.0.0.1:1' }, { logger: quiet });
  assert.deepEqual(controllerRegistrations(mgr), []);
  controllerManagedBy(mgr)
    .for(kinds.appsV1.deployments)
    .owns(kinds.coreV1.pods, { metadataOnly: true })
    .watches(kinds.coreV1.configMaps, () => [])
    .withRbac({ kind: kinds.coreV1.secrets, verbs: ['get'] })
    .completeWithFinalizer('example.com/cleanup', { apply: () => undefined, cleanup: () => undefined });
  controllerManagedBy(mgr).named('plain').watches(kinds.coreV1.services, () => []).complete(() => undefined);
  const [first, second] = controllerRegistrations(mgr);
  assert.equal(first!.name, 'deployment');
  assert.equal(first!.for, kinds.appsV1.deployments);
  assert.deepEqual(first!.owns, [kinds.coreV1.pods]);
  assert.deepEqual(first!.watches, [kinds.coreV1.configMaps]);
  assert.equal(first!.finalizer, true);
  assert.deepEqual(first!.rbac, [{ kind: kinds.coreV1.secrets, verbs: ['get'] }]);
  assert.deepEqual({ ...second!, watches: second!.watches.map((k) => k.resource) }, { name: 'plain', for: undefined, owns: [], watches: ['services'], finalizer: false, rbac: [] });

  const webhook = webhookManagedBy(mgr).for(kinds.appsV1.deployments).withValidator({}).complete();
  assert.deepEqual(webhookRegistrations(mgr), [webhook]);
  // Another manager has its own lists.
  assert.deepEqual(controllerRegistrations(newManager({ host: 'https://127.0.0.1:1' }, { logger: quiet })), []);
});
