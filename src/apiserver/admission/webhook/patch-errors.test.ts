import { test } from 'node:test';
import assert from 'node:assert/strict';
import { patchApplyError, patchDecodeError } from './patch-errors.ts';

test('webhook patches that do not apply are worded as the JSON patch library of kube-apiserver words them', () => {
  const doc = { metadata: { name: 'a', labels: { x: 'y' } }, list: [1] };
  const cases: Array<[unknown[], string | undefined]> = [
    [[{ op: 'replace', path: '/nope/x', value: 1 }], 'replace operation does not apply: doc is missing path: /nope/x: missing value'],
    [[{ op: 'replace', path: '/metadata/nope', value: 1 }], 'replace operation does not apply: doc is missing key: /metadata/nope: missing value'],
    [[{ op: 'add', path: '/nope/x', value: 1 }], 'add operation does not apply: doc is missing path: "/nope/x": missing value'],
    [[{ op: 'remove', path: '/nope/x' }], 'remove operation does not apply: doc is missing path: "/nope/x": missing value'],
    [[{ op: 'remove', path: '/metadata/nope' }], "error in remove for path: '/metadata/nope': Unable to remove nonexistent key: nope: missing value"],
    [[{ op: 'test', path: '/metadata/name', value: 'b' }], 'testing value /metadata/name failed: test failed'],
    [[{ op: 'add', path: '/metadata/labels/z', value: '1' }, { op: 'replace', path: '/metadata/labels/z/q', value: 1 }], 'replace operation does not apply: doc is missing path: /metadata/labels/z/q: missing value'],
    [[{ op: 'add', path: '/metadata/labels/z', value: '1' }], undefined],
  ];
  for (const [ops, expected] of cases) assert.equal(patchApplyError(doc, ops), expected, JSON.stringify(ops));
  assert.equal(patchDecodeError({ op: 'add' }), 'json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  assert.equal(patchDecodeError('x'), 'json: cannot unmarshal string into Go value of type jsonpatch.Patch');
  assert.equal(patchDecodeError([]), undefined);
});
