import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorString } from '../../field-errors.ts';
import type { JSONSchemaProps } from '../schema/json-schema-props.ts';
import { compileSchema } from './compilation.ts';
import { costErrorMessage, staticEstimatedCostLimit } from './cost.ts';
import { validateRules } from './validation.ts';

function schemaWith(rules: unknown[], extra: Record<string, JSONSchemaProps> = {}): JSONSchemaProps {
  return {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: { replicas: { type: 'integer' }, min: { type: 'integer' }, name: { type: 'string', maxLength: 20 }, tags: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 10 } }, ...extra },
        'x-kubernetes-validations': rules as never,
      },
    },
  };
}

function compileErrors(s: JSONSchemaProps): string[] {
  const c = compileSchema(s);
  return [...c.rules.values()].flat().map((r) => r.error?.detail ?? '');
}

test('CEL: rules that do not compile carry cel-go worded errors', () => {
  assert.deepEqual(compileErrors(schemaWith([{ rule: 'self.y > 0' }, { rule: "self.replicas == 'a'" }, { rule: 'self.replicas' }, { rule: 'self.replicas >= self.min' }])), [
    "compilation failed: ERROR: <input>:1:5: undefined field 'y'\n | self.y > 0\n | ....^",
    "compilation failed: ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(int, string)'\n | self.replicas == 'a'\n | ..............^",
    'cel expression must evaluate to a bool',
    '',
  ]);
  assert.match(compileErrors(schemaWith([{ rule: 'self.replicas +' }]))[0]!, /^compilation failed: ERROR: <input>:1:\d+: Syntax error: /);
});

test('CEL: a false rule reports its message, messageExpression, fieldPath and reason', () => {
  const s = schemaWith([
    { rule: 'self.replicas >= self.min', message: 'replicas below min' },
    { rule: 'self.replicas < 100' },
    { rule: 'self.name.startsWith("a")', messageExpression: "'name ' + self.name + ' must start with a'", fieldPath: '.name', reason: 'FieldValueForbidden' },
    { rule: 'self.tags.all(t, t.size() > 1)' },
  ]);
  const c = compileSchema(s);
  const errs = validateRules(c, s, { spec: { replicas: 200, min: 300, name: 'bob', tags: ['ok', 'x'] } }, undefined);
  assert.deepEqual(errs.map(errorString), [
    'spec: Invalid value: "object": replicas below min',
    'spec: Invalid value: "object": failed rule: self.replicas < 100',
    'spec.name: Forbidden: name bob must start with a',
    'spec: Invalid value: "object": failed rule: self.tags.all(t, t.size() > 1)',
  ]);
  assert.deepEqual(validateRules(c, s, { spec: { replicas: 5, min: 1, name: 'al', tags: ['ok'] } }, undefined), []);
});

test('CEL: transition rules see oldSelf only on updates', () => {
  const s = schemaWith([{ rule: 'self.replicas >= oldSelf.replicas', message: 'replicas may only grow' }]);
  const c = compileSchema(s);
  assert.deepEqual(validateRules(c, s, { spec: { replicas: 1 } }, undefined), []);
  assert.deepEqual(validateRules(c, s, { spec: { replicas: 1 } }, { spec: { replicas: 2 } }).map(errorString), ['spec: Invalid value: "object": replicas may only grow']);
  assert.deepEqual(validateRules(c, s, { spec: { replicas: 3 } }, { spec: { replicas: 2 } }), []);
});

test('CEL: rules on list items and map values run per element with their paths', () => {
  const s: JSONSchemaProps = {
    type: 'object',
    properties: {
      items: { type: 'array', maxItems: 5, items: { type: 'object', properties: { n: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.n > 0' }] } },
      labels: { type: 'object', maxProperties: 5, additionalProperties: { type: 'string', maxLength: 5, 'x-kubernetes-validations': [{ rule: "self != ''", message: 'empty' }] } },
    },
  };
  const c = compileSchema(s);
  assert.deepEqual(validateRules(c, s, { items: [{ n: 1 }, { n: 0 }], labels: { a: 'x', b: '' } }, undefined).map(errorString), [
    'items[1]: Invalid value: "object": failed rule: self.n > 0',
    'labels[b]: Invalid value: "string": empty',
  ]);
});

test('CEL: the Kubernetes libraries are available', () => {
  const s = schemaWith([{ rule: "self.tags.isSorted() && self.name.find('[0-9]+') == '42' && isURL('https://example.com') && quantity('1Gi').isGreaterThan(quantity('1G'))" }]);
  const c = compileSchema(s);
  assert.deepEqual(validateRules(c, s, { spec: { tags: ['a', 'b'], name: 'x42y' } }, undefined), []);
  assert.equal(validateRules(c, s, { spec: { tags: ['b', 'a'], name: 'x42y' } }, undefined).length, 1);
});

test('CEL: a rule over unbounded lists is estimated past the budget, a bounded one is not', () => {
  const unbounded: JSONSchemaProps = { type: 'object', properties: { l: { type: 'array', items: { type: 'string' } } }, 'x-kubernetes-validations': [{ rule: 'self.l.all(a, self.l.all(b, self.l.all(c, a + b + c != "")))' }] };
  const cost = [...compileSchema(unbounded).rules.values()][0]![0]!.estimatedCost;
  assert.ok(cost > staticEstimatedCostLimit * 100);
  assert.equal(costErrorMessage('estimated rule cost', cost, staticEstimatedCostLimit), 'estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)');
  const bounded = schemaWith([{ rule: 'self.tags.all(a, self.tags.all(b, a != b || a == b))' }]);
  assert.ok([...compileSchema(bounded).rules.values()][0]![0]!.estimatedCost < staticEstimatedCostLimit);
});

test('CEL: a runaway evaluation is stopped by the per-call limit and stops further rules', () => {
  const s: JSONSchemaProps = {
    type: 'object',
    properties: { l: { type: 'array', items: { type: 'integer' } } },
    'x-kubernetes-validations': [{ rule: 'self.l.all(a, self.l.all(b, self.l.all(c, a + b + c >= 0)))' }, { rule: 'false' }],
  };
  const c = compileSchema(s);
  const l = Array.from({ length: 200 }, (_, i) => i);
  const errs = validateRules(c, s, { l }, undefined);
  assert.deepEqual(errs.map(errorString), [
    `Invalid value: "object": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.l.all(a, self.l.all(b, self.l.all(c, a + b + c >= 0)))`,
  ]);
});

test('CEL: date-time and date strings are timestamps, duration strings durations and byte strings bytes, as upstream types them', () => {
  const formats: Record<string, JSONSchemaProps> = {
    when: { type: 'string', format: 'date-time' },
    day: { type: 'string', format: 'date' },
    dur: { type: 'string', format: 'duration' },
    raw: { type: 'string', format: 'byte' },
  };
  const s = schemaWith(
    [
      { rule: 'self.when > timestamp("2020-01-01T00:00:00Z")', message: 'when after 2020' },
      { rule: 'self.dur < duration("1h")', message: 'dur under an hour' },
      { rule: 'size(self.raw) == 3 && self.raw == b"abc"', message: 'raw is abc' },
      { rule: 'self.day.getFullYear() == 2024', message: 'day in 2024' },
      { rule: 'self.when + self.dur > self.when && string(self.dur) == "1800s" && string(self.when) == "2024-05-01T10:00:00Z"', message: 'arithmetic and conversions' },
    ],
    formats,
  );
  const c = compileSchema(s);
  assert.deepEqual(compileErrors(s), ['', '', '', '', '']);
  assert.deepEqual(validateRules(c, s, { spec: { when: '2024-05-01T10:00:00Z', dur: '30m', raw: 'YWJj', day: '2024-02-03' } }, undefined), []);
  assert.deepEqual(validateRules(c, s, { spec: { when: '2019-05-01T10:00:00Z', dur: '2h', raw: 'YWJjZA==', day: '2023-02-03' } }, undefined).map(errorString), [
    'spec: Invalid value: "object": when after 2020',
    'spec: Invalid value: "object": dur under an hour',
    'spec: Invalid value: "object": raw is abc',
    'spec: Invalid value: "object": day in 2024',
    'spec: Invalid value: "object": arithmetic and conversions',
  ]);
  // Such fields are no longer strings to CEL.
  assert.match(compileErrors(schemaWith([{ rule: 'self.when.startsWith("2024")' }], formats))[0]!, /found no matching overload|no such overload|startsWith/);
});

test('CEL: the sets library compares lists as sets', () => {
  const s = schemaWith([
    { rule: 'sets.contains(self.tags, ["a"])', message: 'contains a' },
    { rule: 'sets.equivalent(self.tags, ["b", "a", "a"])', message: 'exactly a and b' },
    { rule: 'sets.intersects(self.tags, ["x", "b"])', message: 'some of x, b' },
    { rule: 'sets.contains([1, 2], [2]) && !sets.intersects([1], [2])', message: 'ints' },
  ]);
  const c = compileSchema(s);
  assert.deepEqual(compileErrors(s), ['', '', '', '']);
  assert.deepEqual(validateRules(c, s, { spec: { tags: ['a', 'b'] } }, undefined), []);
  assert.deepEqual(validateRules(c, s, { spec: { tags: ['c'] } }, undefined).map(errorString), ['spec: Invalid value: "object": contains a', 'spec: Invalid value: "object": exactly a and b', 'spec: Invalid value: "object": some of x, b']);
});

test('CEL: the string extensions of cel-go are all there, charAt and replace included', () => {
  const s = schemaWith([
    { rule: 'self.name.charAt(1) == "o" && self.name.charAt(3) == ""', message: 'charAt' },
    { rule: 'self.name.replace("o", "0") == "b0b" && "aaa".replace("a", "b", 2) == "bba"', message: 'replace' },
    { rule: 'self.name.upperAscii().lowerAscii() == "bob" && "a,b".split(",").size() == 2 && self.name.lastIndexOf("b") == 2', message: 'others' },
  ]);
  assert.deepEqual(compileErrors(s), ['', '', '']);
  assert.deepEqual(validateRules(compileSchema(s), s, { spec: { name: 'bob' } }, undefined), []);
  // kube-apiserver v1.24 (gated) answers the same for an index past the end.
  const far = schemaWith([{ rule: 'self.name.charAt(5) == ""', message: 'out of range' }]);
  assert.deepEqual(validateRules(compileSchema(far), far, { spec: { name: 'bob' } }, undefined).map(errorString), ['spec: Invalid value: "object": index out of range: 5 evaluating rule: out of range']);
});
