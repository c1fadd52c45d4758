/**
 * Running the x-kubernetes-validations rules over an object (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go):
 * every schema node's rules run with `self` bound to the value there and, for transition rules on updates,
 * `oldSelf` to the correlated old value (through object properties, map entries and list-type=map items by
 * key). A rule that is false reports `Invalid value: "<type>": <message>` (its message, its messageExpression's
 * result, or `failed rule: <rule>`), at its fieldPath and with its reason when given (v1.28+). A rule that
 * runs past the per-call limit stops all further rules, as does the per-object budget running out.
 */
import { child, index, invalidValue, key, withMessage, type FieldError, type FieldErrorTypeValue } from '../../field-errors.ts';
import { additionalOf, isObj, itemsOf, type JSONSchemaProps } from '../schema/json-schema-props.ts';
import { jsonEqual } from '../schema/validation.ts';
import type { CompiledRule, CompiledSchema } from './compilation.ts';
import { CostLimitExceeded, perCallLimit, runtimeCelCostBudget } from './cost.ts';
import { celSets } from './library.ts';

const allowedReasons = new Set<string>(['FieldValueInvalid', 'FieldValueForbidden', 'FieldValueRequired', 'FieldValueDuplicate']);

interface State {
  budget: number;
  stopped: boolean;
  errs: FieldError[];
}

/**
 * The errors of every rule under `value` (old value `old` on updates, undefined on creates).
 * `budget` defaults to RuntimeCELCostBudget.
 */
export function validateRules(compiled: CompiledSchema, schema: JSONSchemaProps, value: unknown, old: unknown, path = '', budget = runtimeCelCostBudget): FieldError[] {
  const st: State = { budget, stopped: false, errs: [] };
  walk(compiled, schema, value, old, path, st, true);
  return st.errs;
}

function walk(c: CompiledSchema, s: JSONSchemaProps | undefined, v: unknown, old: unknown, path: string, st: State, isRoot: boolean): void {
  if (s === undefined || st.stopped || v === undefined || v === null) return;
  const rules = c.rules.get(s);
  if (rules !== undefined) runRules(c, s, rules, v, old, path, st, isRoot);
  if (st.stopped) return;
  if (isObj(v)) {
    const o = isObj(old) ? old : undefined;
    for (const [k, p] of Object.entries(s.properties ?? {})) if (k in v) walk(c, p, v[k], o?.[k], child(path, k), st, false);
    const additional = additionalOf(s);
    if (additional !== undefined) for (const [k, x] of Object.entries(v)) if (!(k in (s.properties ?? {}))) walk(c, additional, x, o?.[k], key(path, k), st, false);
  } else if (Array.isArray(v)) {
    const items = itemsOf(s);
    const keys = s['x-kubernetes-list-type'] === 'map' ? (s['x-kubernetes-list-map-keys'] ?? []) : undefined;
    const oldList: unknown[] = Array.isArray(old) ? old : [];
    v.forEach((x, i) => {
      const correlated = keys === undefined || !isObj(x) ? undefined : oldList.find((y) => isObj(y) && keys.every((k) => jsonEqual(y[k], x[k])));
      walk(c, items, x, correlated, index(path, i), st, false);
    });
  }
}

function typeName(s: JSONSchemaProps): string {
  return s.type ?? '';
}

function firstLine(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  const line = msg.split('\n')[0]!;
  return line.startsWith('No such key') ? `no such key${line.slice('No such key'.length)}` : line;
}

function ruleText(r: CompiledRule): string {
  const m = typeof r.rule.message === 'string' ? r.rule.message.trim() : '';
  return m !== '' ? m : (r.rule.rule ?? '').trim();
}

function runRules(c: CompiledSchema, s: JSONSchemaProps, rules: CompiledRule[], v: unknown, old: unknown, path: string, st: State, isRoot: boolean): void {
  if (st.budget <= 0) {
    st.errs.push(invalidValue(path, typeName(s), 'validation failed due to running out of cost budget, no further validation rules will be run'));
    st.stopped = true;
    return;
  }
  const self = c.types.toCel(v, s);
  const hasOld = old !== undefined && old !== null;
  const oldSelf = hasOld ? c.types.toCel(old, s) : null;
  void isRoot;
  for (const r of rules) {
    if (r.error !== undefined) {
      st.errs.push(invalidValue(path, typeName(s), `rule compile error: ${r.error.detail}`));
      continue;
    }
    if (r.program === undefined || (r.transition && !hasOld)) continue;
    c.meter.start(Math.min(perCallLimit, st.budget));
    let result: unknown;
    try {
      result = r.program({ self, oldSelf, sets: celSets });
    } catch (err) {
      st.budget -= c.meter.cost;
      if (err instanceof CostLimitExceeded) {
        if (c.meter.limit < perCallLimit) st.errs.push(invalidValue(path, typeName(s), 'validation failed due to running out of cost budget, no further validation rules will be run'));
        else st.errs.push(invalidValue(path, typeName(s), `'${err.message}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleText(r)}`));
        st.stopped = true;
        return;
      }
      const line = firstLine(err);
      if (line.startsWith('no such overload')) st.errs.push(invalidValue(path, typeName(s), `'${line}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleText(r)}`));
      else st.errs.push(invalidValue(path, typeName(s), `${line} evaluating rule: ${ruleText(r)}`));
      continue;
    }
    st.budget -= c.meter.cost;
    if (result === true) continue;
    st.errs.push(failure(c, s, r, self, oldSelf, path));
  }
}

// The error of a rule that evaluated to false: message, messageExpression, reason and fieldPath applied.
function failure(c: CompiledSchema, s: JSONSchemaProps, r: CompiledRule, self: unknown, oldSelf: unknown, path: string): FieldError {
  let message = typeof r.rule.message === 'string' && r.rule.message !== '' ? r.rule.message : `failed rule: ${ruleText(r)}`;
  if (r.messageProgram !== undefined) {
    c.meter.start(perCallLimit);
    try {
      const m = r.messageProgram({ self, oldSelf, sets: celSets });
      if (typeof m === 'string' && m.trim() !== '' && !m.includes('\n')) message = m;
    } catch {
      // upstream falls back to the static message when messageExpression fails
    }
  }
  const fieldPath = typeof r.rule.fieldPath === 'string' ? r.rule.fieldPath.replace(/^\./, '') : '';
  const at = fieldPath === '' ? path : child(path, fieldPath);
  const e = invalidValue(at, typeName(s), message);
  const reason = r.rule.reason;
  if (typeof reason === 'string' && allowedReasons.has(reason)) {
    const type = reason as FieldErrorTypeValue;
    if (type === 'FieldValueRequired') return { type, field: at, message: `Required value: ${message}` };
    if (type === 'FieldValueForbidden') return { type, field: at, message: `Forbidden: ${message}` };
    if (type === 'FieldValueDuplicate') return { type, field: at, message: `Duplicate value: ${JSON.stringify(typeName(s))}` };
  }
  return withMessage(e, e.message);
}
