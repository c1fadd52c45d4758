import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorString } from '../field-errors.ts';
import { nestedValue, scaleFromCustomResource, ScaleAccessError, validateScale, validateScaleValues, type ScalePaths } from './scale.ts';

const paths: ScalePaths = { specReplicasPath: '.spec.count', statusReplicasPath: '.status.count', labelSelectorPath: '.status.sel' };
const cr = (spec: unknown, status: unknown = {}): Record<string, unknown> => ({ apiVersion: 'example.com/v1', kind: 'S', metadata: { name: 's', namespace: 'ns', uid: 'u', resourceVersion: '7', creationTimestamp: 't', labels: { a: 'b' } }, spec, status });

test('nestedValue reads int64s and strings as unstructured.NestedInt64/NestedString, with their accessor errors', () => {
  const cases: Array<[unknown, 'int64' | 'string', unknown]> = [
    [{ spec: { count: 3 } }, 'int64', { value: 3 }],
    [{ spec: {} }, 'int64', { value: undefined }],
    [{}, 'int64', { value: undefined }],
    [{ spec: { count: 'x' } }, 'int64', { value: undefined, error: '.spec.count accessor error: x is of the type string, expected int64' }],
    [{ spec: { count: 2.5 } }, 'int64', { value: undefined, error: '.spec.count accessor error: 2.5 is of the type float64, expected int64' }],
    [{ spec: 'flat' }, 'int64', { value: undefined, error: '.spec accessor error: flat is of the type string, expected map[string]interface{}' }],
    [{ spec: { count: 5 } }, 'string', { value: undefined, error: '.spec.count accessor error: 5 is of the type int64, expected string' }],
  ];
  for (const [obj, want, expected] of cases) assert.deepEqual(nestedValue(obj, '.spec.count', want), expected, JSON.stringify(obj));
});

test('every write checks the replicas and selector at the declared paths; /status writes skip spec replicas', () => {
  const cases: Array<[Record<string, unknown>, boolean, string[]]> = [
    [cr({ count: 2 }, { count: 1, sel: 'a=b' }), false, []],
    [cr({}), false, []],
    [cr({ count: -1 }, { count: -2 }), false, ['.spec.count: Invalid value: -1: should be a non-negative integer', '.status.count: Invalid value: -2: should be a non-negative integer']],
    [cr({ count: -1 }, { count: -2 }), true, ['.status.count: Invalid value: -2: should be a non-negative integer']],
    [cr({ count: 3000000000 }), false, ['.spec.count: Invalid value: 3000000000: should be less than or equal to 2147483647']],
    [cr({ count: 'x' }, { sel: 5 }), false, ['.spec.count: Invalid value: 0: .spec.count accessor error: x is of the type string, expected int64', '.status.sel: Invalid value: "": .status.sel accessor error: 5 is of the type int64, expected string']],
  ];
  for (const [obj, status, expected] of cases) assert.deepEqual(validateScaleValues(obj, paths, status).map(errorString), expected, JSON.stringify(obj));
});

test('the Scale of a custom resource comes from the declared paths, empty fields omitted as Go encodes them', () => {
  assert.deepEqual(scaleFromCustomResource(cr({ count: 2 }, { count: 1, sel: 'a=b' }), paths), {
    found: true,
    scale: { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 's', namespace: 'ns', uid: 'u', resourceVersion: '7', creationTimestamp: 't' }, spec: { replicas: 2 }, status: { replicas: 1, selector: 'a=b' } },
  });
  const empty = scaleFromCustomResource(cr({}), paths);
  assert.deepEqual([empty.found, empty.scale.spec, empty.scale.status], [false, {}, { replicas: 0 }]);
  assert.throws(() => scaleFromCustomResource(cr({ count: 'x' }), paths), ScaleAccessError);
});

test('CRD scale paths must be simple JSON paths under .spec or .status', () => {
  const cases: Array<[Record<string, unknown>, string[]]> = [
    [{ specReplicasPath: '.spec.count', statusReplicasPath: '.status.count' }, []],
    [{}, ['s.specReplicasPath: Required value', 's.statusReplicasPath: Required value']],
    [{ specReplicasPath: 'spec.count', statusReplicasPath: '.status[0]', labelSelectorPath: '.metadata.x' }, [
      's.specReplicasPath: Invalid value: "spec.count": must be a simple json path starting with .',
      's.statusReplicasPath: Invalid value: ".status[0]": must be a json path in the dot notation',
      's.labelSelectorPath: Invalid value: ".metadata.x": should be a json path under either .spec or .status',
    ]],
  ];
  for (const [scale, expected] of cases) assert.deepEqual(validateScale(scale, 's').map(errorString), expected);
});
