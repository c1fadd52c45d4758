/**
 * What apiextensions-apiserver refuses in a version's openAPIV3Schema beyond structurality
 * (k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go,
 * ValidateCustomResourceDefinitionOpenAPISchema): unsupported keywords ($ref, definitions, …), uniqueItems,
 * properties with additionalProperties, list and map type extensions, defaults that do not validate or are
 * not pruned-stable, invalid patterns, and CEL rules that do not compile or whose estimated cost is too high.
 */
import { child, forbidden, index, invalidValue, key, notSupported, required, type FieldError } from '../field-errors.ts';
import { compileSchema, type CompiledSchema } from './cel/compilation.ts';
import { costErrorMessage, maxCardinality, staticEstimatedCostLimit, staticEstimatedCrdCostLimit } from './cel/cost.ts';
import { cloneJson, isObj, itemsOf, additionalOf, type JSONSchemaProps, type ValidationRule } from './schema/json-schema-props.ts';
import { applyDefaults } from './schema/defaulting.ts';
import { prune } from './schema/pruning.ts';
import { validateStructural } from './schema/structural.ts';
import { compilePattern, validateValue } from './schema/validation.ts';

const v3Types = ['array', 'boolean', 'integer', 'number', 'object', 'string'];

/** The errors of one version schema at `path`, plus its compiled rules when it is structural. */
export function validateVersionSchema(schema: JSONSchemaProps, path: string): { errors: FieldError[]; compiled?: CompiledSchema } {
  const errs: FieldError[] = [];
  walk(schema, child(path, ''), path, errs, true);
  // Upstream reports structural problems only for schemas that pass the keyword checks.
  if (errs.length > 0) return { errors: errs };
  errs.push(...validateStructural(schema, path));
  if (errs.length > 0) return { errors: errs };
  const compiled = compileSchema(schema);
  let total = 0;
  const expensive: string[] = [];
  const ruleErrs: FieldError[] = [];
  // Children first, as upstream checks a node's rules after recursing; `uncorrelatable` is the outermost list whose
  // items cannot be matched with the old object's (list-type other than map), under which oldSelf is refused.
  const visit = (s: JSONSchemaProps, p: string, cardinality: number, uncorrelatable: string | undefined): void => {
    for (const [k, c] of Object.entries(s.properties ?? {})) if (isObj(c)) visit(c, key(child(p, 'properties'), k), cardinality, uncorrelatable);
    const items = itemsOf(s);
    if (items !== undefined) visit(items, child(p, 'items'), cardinality * maxCardinality(s), uncorrelatable ?? (s['x-kubernetes-list-type'] === 'map' ? undefined : p));
    const ap = additionalOf(s);
    if (ap !== undefined) visit(ap, child(p, 'additionalProperties'), cardinality * maxCardinality(s), uncorrelatable);
    const rules = compiled.rules.get(s) ?? [];
    rules.forEach((r, i) => {
      const rp = child(index(child(p, 'x-kubernetes-validations'), i), 'rule');
      if (r.error !== undefined) {
        ruleErrs.push({ type: 'FieldValueInvalid', field: rp, message: `Invalid value: ${goRule(r.rule)}: ${r.error.detail}` });
        return;
      }
      if (r.messageError !== undefined) ruleErrs.push(invalidValue(child(index(child(p, 'x-kubernetes-validations'), i), 'messageExpression'), r.rule.messageExpression, r.messageError));
      const cost = r.estimatedCost * cardinality;
      total += cost;
      if (cost > staticEstimatedCostLimit) {
        ruleErrs.push(forbidden(rp, costErrorMessage('estimated rule cost', cost, staticEstimatedCostLimit)));
        expensive.push(rp);
      }
      if (r.transition && uncorrelatable !== undefined) ruleErrs.push(invalidValue(rp, r.rule.rule, `oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelatable}`));
    });
  };
  visit(schema, path, 1, undefined);
  if (total > staticEstimatedCrdCostLimit) {
    for (const p of expensive) ruleErrs.push(forbidden(p, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema'));
    ruleErrs.push(forbidden(path, costErrorMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', total, staticEstimatedCrdCostLimit)));
  }
  errs.push(...ruleErrs);
  if (errs.length > 0) return { errors: errs };
  return { errors: [], compiled };
}

// Rules that apply to every node, then the defaults of properties (which need the node's schema).
function walk(s: JSONSchemaProps, _unused: string, path: string, errs: FieldError[], isRoot: boolean): void {
  if (typeof s !== 'object' || s === null || Array.isArray(s)) return;
  for (const k of ['id', 'additionalItems', 'patternProperties', 'definitions', 'dependencies', '$ref'] as const) {
    if (s[k] !== undefined) errs.push(forbidden(child(path, k), `${k} is not supported`));
  }
  if (s.type === 'null') errs.push(forbidden(child(path, 'type'), 'type cannot be set to null, use nullable as an alternative'));
  else if (s.type !== undefined && s.type !== '' && !v3Types.includes(s.type)) errs.push(notSupported(child(path, 'type'), s.type, v3Types));
  if (Array.isArray(s.items)) errs.push(forbidden(child(path, 'items'), 'items must be a schema object and not an array'));
  if (s.uniqueItems === true) errs.push(forbidden(child(path, 'uniqueItems'), 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  if (s.additionalProperties !== undefined && Object.keys(s.properties ?? {}).length > 0) errs.push(forbidden(child(path, 'additionalProperties'), 'additionalProperties and properties are mutual exclusive'));
  if (s['x-kubernetes-preserve-unknown-fields'] === false) errs.push(invalidValue(child(path, 'x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));
  if (s.pattern !== undefined && compilePattern(s.pattern) === null) errs.push(invalidValue(child(path, 'pattern'), s.pattern, "must be a valid regular expression, but isn't: error parsing regexp"));
  const mapType = s['x-kubernetes-map-type'];
  if (mapType !== undefined) {
    if (s.type !== 'object') errs.push(s.type === undefined ? required(child(path, 'type'), 'must be object if x-kubernetes-map-type is specified') : invalidValue(child(path, 'type'), s.type, 'must be object if x-kubernetes-map-type is specified'));
    if (mapType !== 'atomic' && mapType !== 'granular') errs.push(notSupported(child(path, 'x-kubernetes-map-type'), mapType, ['atomic', 'granular']));
  }
  const listType = s['x-kubernetes-list-type'];
  const mapKeys = s['x-kubernetes-list-map-keys'] ?? [];
  if (listType !== undefined) {
    if (s.type !== 'array') errs.push(s.type === undefined ? required(child(path, 'type'), 'must be array if x-kubernetes-list-type is specified') : invalidValue(child(path, 'type'), s.type, 'must be array if x-kubernetes-list-type is specified'));
    if (!['atomic', 'set', 'map'].includes(listType)) errs.push(notSupported(child(path, 'x-kubernetes-list-type'), listType, ['atomic', 'set', 'map']));
  }
  if (mapKeys.length > 0 && listType !== 'map') errs.push(listType === undefined ? required(child(path, 'x-kubernetes-list-type'), 'must be map if x-kubernetes-list-map-keys is non-empty') : invalidValue(child(path, 'x-kubernetes-list-type'), listType, 'must be map if x-kubernetes-list-map-keys is non-empty'));
  if (listType === 'map') {
    const items = itemsOf(s);
    if (mapKeys.length === 0) errs.push(required(child(path, 'x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'));
    if (items === undefined) errs.push(required(child(path, 'items'), 'must have a schema if x-kubernetes-list-type is map'));
    else {
      if (items.type !== 'object') errs.push(invalidValue(child(child(path, 'items'), 'type'), items.type ?? '', "must be object if parent array's x-kubernetes-list-type is map"));
      if (!mapKeys.every((k) => items.properties?.[k] !== undefined)) errs.push(invalidValue(child(path, 'x-kubernetes-list-map-keys'), mapKeys, 'entries must all be names of item properties'));
      if (new Set(mapKeys).size !== mapKeys.length) errs.push(invalidValue(child(path, 'x-kubernetes-list-map-keys'), mapKeys, 'must not contain duplicate entries'));
    }
  }
  (s['x-kubernetes-validations'] ?? []).forEach((r, i) => {
    const p = index(child(path, 'x-kubernetes-validations'), i);
    if (typeof r.rule !== 'string' || r.rule === '') errs.push(required(child(p, 'rule'), 'rule is not specified'));
    if (r.message !== undefined && r.message !== '' && r.message.trim() === '') errs.push(invalidValue(child(p, 'message'), r.message, 'message must be non-empty if specified'));
    else if (r.message !== undefined && /[\n\r]/.test(r.message)) errs.push(invalidValue(child(p, 'message'), r.message, 'message must not contain line breaks'));
    if ((r.message === undefined || r.message === '') && typeof r.rule === 'string' && /[\n\r]/.test(r.rule)) errs.push(required(child(p, 'message'), 'message must be specified if rule contains line breaks'));
    if (r.reason !== undefined && !['FieldValueInvalid', 'FieldValueForbidden', 'FieldValueRequired', 'FieldValueDuplicate'].includes(r.reason)) {
      errs.push(notSupported(child(p, 'reason'), r.reason, ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired']));
    }
  });
  for (const [k, p] of Object.entries(s.properties ?? {})) {
    if (!isObj(p)) continue;
    const pp = key(child(path, 'properties'), k);
    walk(p, '', pp, errs, false);
    if (p.default !== undefined && !(isRoot && k === 'metadata')) errs.push(...validateDefault(p, child(pp, 'default')));
  }
  const items = itemsOf(s);
  if (items !== undefined) walk(items, '', child(path, 'items'), errs, false);
  const ap = additionalOf(s);
  if (ap !== undefined) walk(ap, '', child(path, 'additionalProperties'), errs, false);
  for (const j of ['allOf', 'anyOf', 'oneOf'] as const) (s[j] ?? []).forEach((x, i) => walk(x, '', index(child(path, j), i), errs, false));
  if (isObj(s.not)) walk(s.not, '', child(path, 'not'), errs, false);
}

// The Go rendering (%#v) of v1.32's internal ValidationRule, which upstream prints as the bad value.
function goRule(r: ValidationRule): string {
  const q = (v: unknown): string => JSON.stringify(typeof v === 'string' ? v : '');
  const reason = typeof r.reason === 'string' ? `(*apiextensions.FieldValueErrorReason)(${q(r.reason)})` : '(*apiextensions.FieldValueErrorReason)(nil)';
  const optional = typeof r.optionalOldSelf === 'boolean' ? `(*bool)(${String(r.optionalOldSelf)})` : '(*bool)(nil)';
  return `apiextensions.ValidationRule{Rule:${q(r.rule)}, Message:${q(r.message)}, MessageExpression:${q(r.messageExpression)}, Reason:${reason}, FieldPath:${q(r.fieldPath)}, OptionalOldSelf:${optional}}`;
}

// A default must validate against its schema and survive pruning unchanged.
function validateDefault(s: JSONSchemaProps, path: string): FieldError[] {
  if (s.default === null && s.nullable !== true) return [];
  const value = cloneJson(s.default);
  const errs = validateValue(s, value, '').map((e) => ({ ...e, field: path, message: e.message }));
  if (errs.length > 0) return errs;
  const pruned = cloneJson(value);
  applyDefaults(pruned, s);
  if (prune(pruned, s, false).length > 0) return [invalidValue(path, s.default, 'must not have unknown fields')];
  return [];
}
