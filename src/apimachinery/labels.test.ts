import { test } from 'node:test';
import assert from 'node:assert/strict';
import { everything, labelSelectorAsSelector, nothing, parseSelector, SelectorParseError, selectorFromSet } from './labels.ts';

test('parseSelector accepts upstream grammar and prints requirements sorted by key', () => {
  const table: Array<[string, string]> = [
    ['', ''],
    ['x=a', 'x=a'],
    ['x==a', 'x==a'],
    ['x!=a', 'x!=a'],
    ['x=', 'x='],
    ['x', 'x'],
    ['!x', '!x'],
    ['  x  ,  !y ', 'x,!y'],
    ['z=a,x in (c,b),y notin (a)', 'x in (b,c),y notin (a),z=a'],
    ['x in ()', 'x in ()'],
    ['x in (a,)', 'x in (,a)'],
    ['x>1,y<-3', 'x>1,y<-3'],
    ['example.com/app=web', 'example.com/app=web'],
    ['x=in', 'x=in'],
  ];
  for (const [input, want] of table) assert.equal(parseSelector(input).toString(), want, input);
});

test('parseSelector rejects malformed selectors with SelectorParseError', () => {
  const bad = ['x=a,', ',x', 'x in', 'x in (a', 'x=(a)', 'x!', '=a', 'x=a b', 'x>a', 'Bad_/x=1', 'x=-bad', 'x=' + 'a'.repeat(64), 'a/b/c=1', '-x=1', 'x in a'];
  for (const input of bad) assert.throws(() => parseSelector(input), SelectorParseError, input);
});

test('selector matching follows upstream: != and notin match a missing label', () => {
  const labels = { app: 'web', tier: 'frontend', n: '5' };
  const table: Array<[string, boolean]> = [
    ['', true],
    ['app=web', true],
    ['app==web', true],
    ['app=db', false],
    ['app!=db', true],
    ['missing!=x', true],
    ['missing notin (x)', true],
    ['app notin (web)', false],
    ['tier in (backend,frontend)', true],
    ['missing in (x)', false],
    ['app', true],
    ['missing', false],
    ['!missing', true],
    ['!app', false],
    ['app=web,tier=backend', false],
    ['n>4', true],
    ['n>5', false],
    ['n<6', true],
    ['app>1', false],
    ['missing=', false],
  ];
  for (const [sel, want] of table) assert.equal(parseSelector(sel).matches(labels), want, sel);
  assert.equal(parseSelector('a!=b').matches(undefined), true);
  assert.equal(parseSelector('a').matches(undefined), false);
});

test('selectorFromSet, everything, nothing and requiresExactMatch', () => {
  const sel = selectorFromSet({ b: '2', a: '1' });
  assert.equal(sel.toString(), 'a=1,b=2');
  assert.equal(sel.requiresExactMatch('a'), '1');
  assert.equal(parseSelector('a in (x,y)').requiresExactMatch('a'), undefined);
  assert.equal(everything().matches({}), true);
  assert.equal(everything().empty(), true);
  assert.equal(nothing().matches({}), false);
  assert.equal(nothing().empty(), false);
});

test('labelSelectorAsSelector converts metav1.LabelSelector like upstream', () => {
  assert.equal(labelSelectorAsSelector(undefined).matches({ a: '1' }), false);
  assert.equal(labelSelectorAsSelector({}).matches({ a: '1' }), true);
  const sel = labelSelectorAsSelector({
    matchLabels: { app: 'web' },
    matchExpressions: [
      { key: 'tier', operator: 'In', values: ['a', 'b'] },
      { key: 'legacy', operator: 'DoesNotExist' },
    ],
  });
  assert.equal(sel.toString(), 'app=web,!legacy,tier in (a,b)');
  assert.equal(sel.matches({ app: 'web', tier: 'b' }), true);
  assert.equal(sel.matches({ app: 'web', tier: 'b', legacy: '' }), false);
  assert.throws(() => labelSelectorAsSelector({ matchExpressions: [{ key: 'a', operator: 'Near' }] }), /"Near" is not a valid label selector operator/);
  assert.throws(() => labelSelectorAsSelector({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }), SelectorParseError);
});
