/**
 * The typed informer factory's ForResource and listers, as client-go's generated informers
 * (informers/generic.go, listers/*) and the dynamic factory's (dynamiclister) differ.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isNotFound } from '../apimachinery/errors.ts';
import { RestClient } from '../rest/client.ts';
import { NoInformerForResourceError, newDynamicSharedInformerFactory, newSharedInformerFactory } from './factory.ts';

// Nothing is started, so nothing is sent.
const rest = new RestClient({ host: 'http://127.0.0.1:1', qps: -1 });

test('a typed factory refuses a resource it has no informer for', () => {
  const factory = newSharedInformerFactory(rest);
  assert.throws(() => factory.forResource({ group: 'example.com', version: 'v1', resource: 'widgets' }), (e) => e instanceof NoInformerForResourceError && e.message === 'no informer found for example.com/v1, Resource=widgets');
  assert.throws(() => factory.forResource({ group: 'apps', version: 'v1beta1', resource: 'deployments' }), NoInformerForResourceError);
  assert.equal(factory.forResource({ group: '', version: 'v1', resource: 'pods' }).informer(), factory.coreV1().pods().informer());
});

test("typed listers name the singular resource in NotFound, as generated listers do; the dynamic factory's name the plural", () => {
  const typed = newSharedInformerFactory(rest);
  const messages = [
    () => typed.coreV1().pods().lister().namespace('ns').get('x'),
    () => typed.appsV1().deployments().lister().namespace('ns').get('x'),
    () => typed.coreV1().nodes().lister().get('x'),
    () => newDynamicSharedInformerFactory(rest).forResource({ group: 'apps', version: 'v1', resource: 'deployments' }).lister().namespace('ns').get('x'),
  ].map((get) => {
    try {
      get();
      return 'found';
    } catch (err) {
      assert.ok(isNotFound(err));
      return (err as Error).message;
    }
  });
  assert.deepEqual(messages, ['pod "x" not found', 'deployment.apps "x" not found', 'node "x" not found', 'deployments.apps "x" not found']);
});
