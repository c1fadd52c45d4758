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
