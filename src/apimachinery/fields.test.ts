import { test } from 'node:test';
import assert from 'node:assert/strict';
import { escapeFieldValue, fieldSelectorFromSet, FieldSelectorParseError, parseFieldSelector } from './fields.ts';

test('parseFieldSelector parses =, == and != terms with escapes', () => {
  const sel = parseFieldSelector('metadata.name==web,status.phase!=Running,spec.x=a\\,b\\=c\\\\');
  assert.deepEqual(sel.requirements(), [
    { field: 'metadata.name', operator: '=', value: 'web' },
    { field: 'status.phase', operator: '!=', value: 'Running' },
    { field: 'spec.x', operator: '=', value: 'a,b=c\\' },
  ]);
  assert.equal(sel.toString(), 'metadata.name=web,status.phase!=Running,spec.x=a\\,b\\=c\\\\');
  assert.equal(sel.requiresExactMatch('metadata.name'), 'web');
  assert.equal(sel.requiresExactMatch('status.phase'), undefined);
});

test('parseFieldSelector rejects terms without an operator and bad escapes', () => {
  for (const bad of ['metadata.name', 'a=b=c', 'a=b!=c', 'a=b\\x', 'a=,b']) assert.throws(() => parseFieldSelector(bad), FieldSelectorParseError, bad);
});

test('field selector matching treats a missing field as the empty string', () => {
  const fields = { 'metadata.name': 'web', 'metadata.namespace': 'default' };
  const table: Array<[string, boolean]> = [
    ['', true],
    ['metadata.name=web', true],
    ['metadata.name!=web', false],
    ['metadata.name=db', false],
    ['spec.nodeName=', true],
    ['spec.nodeName!=node-1', true],
    ['metadata.name=web,metadata.namespace=kube-system', false],
  ];
  for (const [sel, want] of table) assert.equal(parseFieldSelector(sel).matches(fields), want, sel);
  assert.equal(fieldSelectorFromSet({ 'metadata.name': 'web' }).matches(fields), true);
  assert.equal(escapeFieldValue('a,b=c\\'), 'a\\,b\\=c\\\\');
});
