import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../apimachinery/errors.ts';
import { ResourceRegistry } from '../resources.ts';
import { objectFilter, parseSelectors, validateListOptions } from './list-options.ts';
import type { Target } from './scope.ts';

/** What validateListOptions answers: 'ok', or one `field: message` line per cause of its 422. */
function validation(query: string, watch: boolean): string[] {
  try {
    validateListOptions(new URLSearchParams(query), watch);
    return ['ok'];
  } catch (err) {
    if (!(err instanceof StatusError)) throw err;
    assert.equal(err.status.code, 422);
    assert.equal(err.status.message?.startsWith('ListOptions.meta.k8s.io "" is invalid: '), true, err.status.message);
    return (err.status.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);
  }
}

test('validateListOptions checks lists as ValidateListOptions does, reporting every cause in its order', () => {
  const cases: Array<[string, string[]]> = [
    ['', ['ok']],
    ['resourceVersion=5&resourceVersionMatch=Exact', ['ok']],
    ['resourceVersion=5&resourceVersionMatch=NotOlderThan', ['ok']],
    ['resourceVersionMatch=Exact', ['resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided']],
    ['resourceVersion=0&resourceVersionMatch=Exact', ['resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"']],
    ['resourceVersion=1&resourceVersionMatch=Bogus', ['resourceVersionMatch: Unsupported value: "Bogus": supported values: "Exact", "NotOlderThan", ""']],
    [
      'resourceVersionMatch=Bogus&continue=abc&sendInitialEvents=true',
      [
        'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
        'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided',
        'resourceVersionMatch: Unsupported value: "Bogus": supported values: "Exact", "NotOlderThan", ""',
        'sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list',
      ],
    ],
  ];
  for (const [query, expected] of cases) assert.deepEqual(validation(query, false), expected, query);
});

test('validateListOptions checks watches: resourceVersionMatch only as NotOlderThan together with sendInitialEvents', () => {
  const cases: Array<[string, string[]]> = [
    ['', ['ok']],
    ['sendInitialEvents=true&resourceVersionMatch=NotOlderThan', ['ok']],
    ['sendInitialEvents=true', ['resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan']],
    ['resourceVersionMatch=NotOlderThan', ['resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided']],
    [
      'sendInitialEvents=false&resourceVersionMatch=Exact&continue=abc',
      [
        'resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
        'resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"',
        'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided',
      ],
    ],
  ];
  for (const [query, expected] of cases) assert.deepEqual(validation(query, true), expected, query);
});

test('objectFilter keeps the objects of the namespace, name and selectors; malformed selectors are 400', () => {
  const r = new ResourceRegistry().lookup('', 'v1', 'configmaps')!;
  const cm = (namespace: string, name: string, app: string): Record<string, unknown> => ({ metadata: { namespace, name, labels: { app } } });
  const objects = [cm('a', 'one', 'web'), cm('a', 'two', 'db'), cm('b', 'one', 'web')];
  const selected = (namespace: string, query: string, name?: string): string[] => {
    const t: Target = { r, namespace, name: undefined, subresource: undefined, watchPath: false };
    const keep = objectFilter(t, parseSelectors(t, new URLSearchParams(query)), name);
    return objects.filter(keep).map((o) => `${(o.metadata as { namespace: string }).namespace}/${(o.metadata as { name: string }).name}`);
  };
  assert.deepEqual(selected('', ''), ['a/one', 'a/two', 'b/one']);
  assert.deepEqual(selected('a', ''), ['a/one', 'a/two']);
  assert.deepEqual(selected('', 'labelSelector=app%3Dweb'), ['a/one', 'b/one']);
  assert.deepEqual(selected('', 'labelSelector=app+in+(db)'), ['a/two']);
  assert.deepEqual(selected('', 'fieldSelector=metadata.name%3Done'), ['a/one', 'b/one']);
  assert.deepEqual(selected('a', 'fieldSelector=metadata.namespace!%3Da'), []);
  assert.deepEqual(selected('', '', 'two'), ['a/two']);
  const t: Target = { r, namespace: '', name: undefined, subresource: undefined, watchPath: false };
  for (const query of ['labelSelector=%3D%3D', 'fieldSelector=%3D%3D%3D', 'fieldSelector=spec.x%3Dy']) {
    assert.throws(
      () => parseSelectors(t, new URLSearchParams(query)),
      (err: unknown) => err instanceof StatusError && err.status.code === 400,
      query,
    );
  }
});
