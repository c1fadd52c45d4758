/**
 * ValidatingAdmissionPolicies and their bindings as objects: defaulting
 * (`pkg/apis/admissionregistration/v1/defaults.go`: failurePolicy Fail, matchPolicy Equivalent, empty
 * namespace and object selectors, rule scope `*`) and the main checks of
 * `pkg/apis/admissionregistration/validation/validation.go` (ValidateValidatingAdmissionPolicy,
 * ValidateValidatingAdmissionPolicyBinding): required fields, supported enum values, expressions that
 * compile. `pkg/registry/admissionregistration/validatingadmissionpolicy/strategy.go` keeps status out of
 * the main resource and counts generations; the registry does both for resources that track generation.
 *
 * Not checked: expression types against the matched resources' schemas (upstream reports them in
 * `status.typeChecking`, which the embedded server leaves empty) and CEL cost limits.
 */
import { isObject, str } from '../../object-meta.ts';
import { compileExpression } from './policy-cel.ts';
import { invalidValue, notSupported, path, required, type FieldError, type FieldPath } from '../validation/field.ts';

type Obj = Record<string, unknown>;

const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObject) : []);

function matchResourcesDefaults(m: unknown): void {
  if (!isObject(m)) return;
  m.matchPolicy ??= 'Equivalent';
  m.namespaceSelector ??= {};
  m.objectSelector ??= {};
  for (const r of [...list(m.resourceRules), ...list(m.excludeResourceRules)]) r.scope ??= '*';
}

/** SetDefaults_ValidatingAdmissionPolicySpec and SetDefaults_MatchResources. */
export function validatingAdmissionPolicyDefaults(policy: Obj): void {
  if (!isObject(policy.spec)) return;
  policy.spec.failurePolicy ??= 'Fail';
  matchResourcesDefaults(policy.spec.matchConstraints);
}

/** SetDefaults_MatchResources of a binding's matchResources. */
export function validatingAdmissionPolicyBindingDefaults(binding: Obj): void {
  if (isObject(binding.spec)) matchResourcesDefaults(binding.spec.matchResources);
}

function expressionErrors(expression: unknown, fld: FieldPath): FieldError[] {
  const source = str(expression);
  if (source === '') return [required(fld)];
  const compiled = compileExpression(source);
  return 'error' in compiled ? [invalidValue(fld, source, `compilation failed: ${compiled.error}`)] : [];
}

const failurePolicies = ['Fail', 'Ignore'];

/** ValidateValidatingAdmissionPolicy (beyond metadata). */
export function validateValidatingAdmissionPolicy(policy: Obj): FieldError[] {
  const out: FieldError[] = [];
  const spec = isObject(policy.spec) ? policy.spec : {};
  const fld = path('spec');
  if (typeof spec.failurePolicy === 'string' && !failurePolicies.includes(spec.failurePolicy)) out.push(notSupported(fld.child('failurePolicy'), spec.failurePolicy, failurePolicies));
  if (!isObject(spec.matchConstraints)) out.push(required(fld.child('matchConstraints')));
  else if (list(spec.matchConstraints.resourceRules).length === 0) out.push(required(fld.child('matchConstraints', 'resourceRules')));
  const validations = list(spec.validations);
  if (validations.length === 0 && list(spec.auditAnnotations).length === 0) out.push(required(fld.child('validations'), 'validations or auditAnnotations must contain at least one item'));
  validations.forEach((v, i) => out.push(...expressionErrors(v.expression, fld.child('validations').index(i).child('expression'))));
  list(spec.matchConditions).forEach((c, i) => out.push(...expressionErrors(c.expression, fld.child('matchConditions').index(i).child('expression'))));
  list(spec.variables).forEach((v, i) => out.push(...expressionErrors(v.expression, fld.child('variables').index(i).child('expression'))));
  if (isObject(spec.paramKind)) {
    if (str(spec.paramKind.apiVersion) === '') out.push(required(fld.child('paramKind', 'apiVersion')));
    if (str(spec.paramKind.kind) === '') out.push(required(fld.child('paramKind', 'kind')));
  }
  return out;
}

const actions = ['Deny', 'Warn', 'Audit'];

/** ValidateValidatingAdmissionPolicyBinding (beyond metadata). */
export function validateValidatingAdmissionPolicyBinding(binding: Obj): FieldError[] {
  const out: FieldError[] = [];
  const spec = isObject(binding.spec) ? binding.spec : {};
  const fld = path('spec');
  if (str(spec.policyName) === '') out.push(required(fld.child('policyName')));
  const given = Array.isArray(spec.validationActions) ? spec.validationActions.map(String) : [];
  if (given.length === 0) out.push(required(fld.child('validationActions')));
  given.forEach((a, i) => {
    if (!actions.includes(a)) out.push(notSupported(fld.child('validationActions').index(i), a, actions));
  });
  if (given.includes('Deny') && given.includes('Warn')) out.push(invalidValue(fld.child('validationActions'), given, 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'));
  if (isObject(spec.paramRef)) {
    const ref = spec.paramRef;
    if (str(ref.name) !== '' && isObject(ref.selector)) out.push(invalidValue(fld.child('paramRef', 'name'), ref.name, 'name and selector are mutually exclusive'));
    if (str(ref.name) === '' && !isObject(ref.selector)) out.push(required(fld.child('paramRef'), 'one of name or selector must be specified'));
    if (ref.parameterNotFoundAction === undefined || ref.parameterNotFoundAction === null) out.push(required(fld.child('paramRef', 'parameterNotFoundAction')));
    else if (!['Allow', 'Deny'].includes(str(ref.parameterNotFoundAction))) out.push(notSupported(fld.child('paramRef', 'parameterNotFoundAction'), ref.parameterNotFoundAction, ['Allow', 'Deny']));
  }
  return out;
}
