import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newInvalid } from '../errors.ts';
import { fieldPath, invalidValue, required } from './field.ts';

test('newInvalid builds errors.NewInvalid: 422 Invalid, one cause per field error, upstream message with brackets for several', () => {
  const one = newInvalid({ group: 'example.com', kind: 'Website' }, 'home', [invalidValue(fieldPath('spec', 'replicas'), -1, 'must be at least 0')]);
  assert.equal(one.status.code, 422);
  assert.equal(one.status.reason, 'Invalid');
  assert.equal(one.message, 'Website.example.com "home" is invalid: spec.replicas: Invalid value: -1: must be at least 0');
  assert.deepEqual(one.status.details, { group: 'example.com', kind: 'Website', name: 'home', causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be at least 0', field: 'spec.replicas' }] });
  const two = newInvalid({ group: '', kind: 'ConfigMap' }, 'c', [required(fieldPath('data').key('mode'), ''), invalidValue(fieldPath('metadata', 'name'), 'C', 'must be lower case')]);
  assert.equal(two.message, 'ConfigMap "c" is invalid: [data[mode]: Required value, metadata.name: Invalid value: "C": must be lower case]');
  assert.equal(newInvalid({ group: 'g', kind: 'K' }, 'n', []).message, 'K.g "n" is invalid');
  assert.equal(fieldPath('spec', 'template').child('containers').index(0).toString(), 'spec.template.containers[0]');
});
