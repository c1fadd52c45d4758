import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FeatureGateError, parseControllerFeatureGates, resolveControllerFeatureGates } from './feature-gates.ts';

test('--feature-gates parses A=true,B=false, refuses unknown gates and non-booleans; unset gates keep their defaults', () => {
  assert.deepEqual(parseControllerFeatureGates('MaxUnavailableStatefulSet=true, StatefulSetAutoDeletePVC=false'), { MaxUnavailableStatefulSet: true, StatefulSetAutoDeletePVC: false });
  assert.throws(() => parseControllerFeatureGates('Nope=true'), (e: unknown) => e instanceof FeatureGateError && e.message === 'unrecognized feature gate: Nope');
  assert.throws(() => parseControllerFeatureGates('MaxUnavailableStatefulSet=yes'), /invalid value of MaxUnavailableStatefulSet=yes/);
  assert.deepEqual(resolveControllerFeatureGates(parseControllerFeatureGates('MaxUnavailableStatefulSet=true')), { MaxUnavailableStatefulSet: true, StatefulSetAutoDeletePVC: true });
  assert.deepEqual(resolveControllerFeatureGates(), { MaxUnavailableStatefulSet: false, StatefulSetAutoDeletePVC: true });
});
