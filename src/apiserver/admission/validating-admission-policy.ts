/**
 * The ValidatingAdmissionPolicy plugin (admissionregistration.k8s.io/v1, GA in v1.30;
 * `staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/validating`: plugin.go, dispatcher.go,
 * validator.go, and `.../policy/generic` for matching and params). kube-apiserver runs it in the
 * validating phase after the built-in validating plugins and before the validating webhooks
 * (`pkg/kubeapiserver/options/plugins.go` AllOrderedPlugins: …, MutatingAdmissionWebhook,
 * ValidatingAdmissionPolicy, ValidatingAdmissionWebhook, …); so does the embedded server.
 *
 * For every policy and every binding naming it: the policy's matchConstraints and the binding's
 * matchResources must match the request (rules with resourceNames, excludeResourceRules, namespace and
 * object selectors; matchPolicy Equivalent matches another served version of the same resource, and
 * the object is then given as stored, not converted); the params are found (paramKind + paramRef: by
 * name or selector, in paramRef.namespace or the request's; none found → parameterNotFoundAction);
 * matchConditions must all hold; then each validation runs with `object`, `oldObject`, `request`,
 * `params`, `namespaceObject` and `variables`. A failed validation (or an evaluation error under
 * failurePolicy Fail) is acted on as the binding's validationActions say: Deny refuses the request
 * (the first denial is reported, with the validation's reason, 422 Invalid by default), Warn adds a
 * Warning header. Audit is accepted and has no effect, as the embedded server keeps no audit log;
 * auditAnnotations are likewise not evaluated. See policy-cel.ts for the CEL environment's differences.
 */
import { StatusError, newStatus, type StatusReasonValue } from '../../apimachinery/errors.ts';
import { labelSelectorAsSelector } from '../../apimachinery/labels.ts';
import type { LabelSelector } from '../../api/meta/v1.ts';
import { isObject, metaOf, str } from '../object-meta.ts';
import { storageKey, type ResourceRegistry } from '../resources.ts';
import type { Storage } from '../storage.ts';
import type { AdmissionAttributes } from './attributes.ts';
import { celValue, compileExpression } from '../registry/admissionregistration/policy-cel.ts';
import { ruleMatches, selectorsMatch, type RuleWithOperations } from './webhook/matching.ts';

type Obj = Record<string, unknown>;

const policiesStore = storageKey('admissionregistration.k8s.io', 'validatingadmissionpolicies');
const bindingsStore = storageKey('admissionregistration.k8s.io', 'validatingadmissionpolicybindings');

/** What the plugin reads: the stored policies, bindings, params and namespaces, and the served resources. */
export interface PolicyContext {
  readonly storage: Storage;
  readonly registry: ResourceRegistry;
}

const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObject) : []);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

/** A rule of matchConstraints / matchResources: NamedRuleWithOperations. */
function namedRuleMatches(rule: Obj, a: AdmissionAttributes, version: string): boolean {
  const names = strings(rule.resourceNames);
  if (names.length > 0 && !names.includes(a.name)) return false;
  return ruleMatches(rule as RuleWithOperations, { ...a, version });
}

/** Whether MatchResources selects the request (generic/policy_matcher.go with the webhook predicates). */
export function matchResourcesMatch(match: Obj, a: AdmissionAttributes, servedVersions: readonly string[]): boolean {
  const rules = list(match.resourceRules);
  const versions = (match.matchPolicy ?? 'Equivalent') === 'Equivalent' ? [a.version, ...servedVersions.filter((v) => v !== a.version)] : [a.version];
  if (list(match.excludeResourceRules).some((r) => namedRuleMatches(r, a, a.version))) return false;
  // No resourceRules (a binding's matchResources may leave them out) does not constrain the resource.
  if (rules.length > 0 && !versions.some((v) => rules.some((r) => namedRuleMatches(r, a, v)))) return false;
  return selectorsMatch({ namespaceSelector: match.namespaceSelector as LabelSelector | undefined, objectSelector: match.objectSelector as LabelSelector | undefined }, a);
}

/** The `request` variable: the AdmissionRequest of the request. */
function requestValue(a: AdmissionAttributes): Obj {
  const kind = { group: a.kindGroupVersion?.group ?? a.group, version: a.kindGroupVersion?.version ?? a.version, kind: a.kind };
  const resource = { group: a.group, version: a.version, resource: a.resource };
  const userInfo: Obj = { username: a.user.name, uid: a.user.uid, groups: [...a.user.groups], extra: a.user.extra };
  return { kind, resource, subResource: a.subresource, requestKind: kind, requestResource: resource, requestSubResource: a.subresource, name: a.name, namespace: a.namespace, operation: a.operation, userInfo, dryRun: a.dryRun, options: a.options };
}

/** One outcome of a validation that did not pass. */
interface Decision {
  readonly policy: string;
  readonly binding: string;
  readonly message: string;
  readonly reason: StatusReasonValue;
}

// validating/dispatcher.go reasonToCode.
function codeOf(reason: string): number {
  switch (reason) {
    case 'Forbidden':
      return 403;
    case 'Unauthorized':
      return 401;
    case 'RequestEntityTooLarge':
      return 413;
    default:
      return 422;
  }
}

/** The Status a denial answers with: admission.NewForbidden's message, then the validation's reason and code. */
function denial(d: Decision, a: AdmissionAttributes): StatusError {
  const message = `ValidatingAdmissionPolicy '${d.policy}' with binding '${d.binding}' denied request: ${d.message}`;
  const qualified = a.group === '' ? a.resource : `${a.resource}.${a.group}`;
  const full = a.name === '' ? `${qualified} is forbidden: ${message}` : `${qualified} ${JSON.stringify(a.name)} is forbidden: ${message}`;
  return new StatusError(newStatus(codeOf(d.reason), d.reason, full, { name: a.name, group: a.group, kind: a.resource, causes: [{ message }] }));
}

class EvaluationFailure extends Error {}

function evaluate(expression: string, vars: Record<string, unknown>): unknown {
  const compiled = compileExpression(expression);
  if ('error' in compiled) throw new EvaluationFailure(`compilation failed: ${compiled.error}`);
  try {
    return compiled.run(vars);
  } catch (err) {
    throw new EvaluationFailure(`expression '${expression}' resulted in error: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]!}`);
  }
}

/** The params a binding selects: a list of objects, `[null]` without paramKind, or a denial/skip. */
function paramsOf(ctx: PolicyContext, policy: Obj, binding: Obj, a: AdmissionAttributes): { params: (Obj | null)[] } | { error: string } | { skip: true } {
  const spec = isObject(policy.spec) ? policy.spec : {};
  const kind = isObject(spec.paramKind) ? spec.paramKind : undefined;
  if (kind === undefined) return { params: [null] };
  const ref = isObject(isObject(binding.spec) ? binding.spec.paramRef : undefined) ? ((binding.spec as Obj).paramRef as Obj) : undefined;
  if (ref === undefined) return { error: `failed to configure binding: ${str(metaOf(binding).name)} has no paramRef but policy ${str(metaOf(policy).name)} has paramKind` };
  const apiVersion = str(kind.apiVersion);
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  const r = ctx.registry.resources(group, version).find((x) => x.kind === str(kind.kind));
  if (r === undefined) return { error: `failed to configure policy: failed to find resource referenced by paramKind: '${apiVersion}, Kind=${str(kind.kind)}'` };
  let namespace = '';
  if (r.namespaced) {
    namespace = str(ref.namespace) !== '' ? str(ref.namespace) : a.namespace;
    if (namespace === '') return { error: 'cannot use namespaced paramRef in policy binding that matches cluster-scoped resources' };
  }
  const store = storageKey(r.group, r.resource);
  let found: Obj[];
  if (str(ref.name) !== '') {
    const one = ctx.storage.get(store, namespace === '' ? str(ref.name) : `${namespace}/${str(ref.name)}`)?.obj;
    found = one === undefined ? [] : [one];
  } else {
    const selector = labelSelectorAsSelector((ref.selector ?? {}) as LabelSelector);
    found = ctx.storage
      .listAt(store, ctx.storage.revision, { namespace })
      .map((s) => s.obj)
      .filter((o) => selector.matches((metaOf(o).labels as Record<string, string> | undefined) ?? {}));
  }
  if (found.length > 0) return { params: found };
  if (ref.parameterNotFoundAction === 'Deny') return { error: 'no params found for policy binding with `Deny` parameterNotFoundAction' };
  return { skip: true };
}

/** Evaluates one policy with one binding and one param: the messages of the validations that failed. */
function validateWith(policy: Obj, vars: Record<string, unknown>, failurePolicy: string): { message: string; reason: StatusReasonValue }[] {
  const spec = isObject(policy.spec) ? policy.spec : {};
  const failures: { message: string; reason: StatusReasonValue }[] = [];
  const onError = (err: unknown): void => {
    if (!(err instanceof EvaluationFailure)) throw err;
    if (failurePolicy !== 'Ignore') failures.push({ message: err.message, reason: 'Invalid' });
  };
  // matchConditions: all must hold; a false one means the policy does not apply.
  for (const c of list(spec.matchConditions)) {
    try {
      if (evaluate(str(c.expression), vars) !== true) return [];
    } catch (err) {
      onError(err);
      return failures;
    }
  }
  const variables = new Map<string, unknown>();
  vars.variables = variables;
  for (const v of list(spec.variables)) {
    try {
      variables.set(str(v.name), evaluate(str(v.expression), vars));
    } catch (err) {
      if (!(err instanceof EvaluationFailure)) throw err;
    }
  }
  for (const v of list(spec.validations)) {
    const expression = str(v.expression);
    let ok: unknown;
    try {
      ok = evaluate(expression, vars);
    } catch (err) {
      onError(err);
      continue;
    }
    if (ok === true) continue;
    let message = str(v.message) !== '' ? str(v.message) : `failed expression: ${expression}`;
    if (str(v.messageExpression) !== '') {
      try {
        const m = evaluate(str(v.messageExpression), vars);
        if (typeof m === 'string' && m.trim() !== '' && !m.includes('\n')) message = m.trim();
      } catch {
        // An erroring messageExpression falls back to the message.
      }
    }
    failures.push({ message, reason: (str(v.reason) === '' ? 'Invalid' : str(v.reason)) as StatusReasonValue });
  }
  return failures;
}

/** Whether any policy and binding exist (the fast path skips the plugin otherwise). */
export function policiesActive(storage: Storage): boolean {
  return storage.count(policiesStore) > 0 && storage.count(bindingsStore) > 0;
}

/**
 * Runs the ValidatingAdmissionPolicies bound to the request: warns through `warn`, throws the first
 * denial. No-op when no policy exists.
 */
export function validateAdmissionPolicies(ctx: PolicyContext, a: AdmissionAttributes, warn: (w: string) => void): void {
  const { storage } = ctx;
  if (!policiesActive(storage)) return;
  const policies = storage.listAt(policiesStore, storage.revision).map((s) => s.obj);
  const bindings = storage.listAt(bindingsStore, storage.revision).map((s) => s.obj);
  const servedVersions = ctx.registry
    .all()
    .filter((r) => r.group === a.group && r.resource === a.resource)
    .map((r) => r.version);
  const namespaceObject = a.namespaced ? (storage.get('namespaces', a.namespace)?.obj ?? null) : null;
  const denials: Decision[] = [];
  for (const policy of policies) {
    const spec = isObject(policy.spec) ? policy.spec : {};
    const policyName = str(metaOf(policy).name);
    if (!isObject(spec.matchConstraints) || !matchResourcesMatch(spec.matchConstraints, a, servedVersions)) continue;
    const failurePolicy = str(spec.failurePolicy) === '' ? 'Fail' : str(spec.failurePolicy);
    for (const binding of bindings) {
      const bspec = isObject(binding.spec) ? binding.spec : {};
      if (str(bspec.policyName) !== policyName) continue;
      if (isObject(bspec.matchResources) && !matchResourcesMatch(bspec.matchResources, a, servedVersions)) continue;
      const bindingName = str(metaOf(binding).name);
      const actions = strings(bspec.validationActions);
      const act = (message: string, reason: StatusReasonValue): void => {
        if (actions.includes('Deny')) denials.push({ policy: policyName, binding: bindingName, message, reason });
        if (actions.includes('Warn')) warn(`Validation failed for ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}': ${message}`);
      };
      const params = paramsOf(ctx, policy, binding, a);
      if ('skip' in params) continue;
      if ('error' in params) {
        if (failurePolicy !== 'Ignore') act(params.error, 'Invalid');
        continue;
      }
      for (const param of params.params) {
        const vars: Record<string, unknown> = {
          object: celValue(a.operation === 'DELETE' ? null : a.object),
          oldObject: celValue(a.operation === 'CREATE' ? null : a.oldObject),
          request: celValue(requestValue(a)),
          params: celValue(param),
          namespaceObject: celValue(namespaceObject),
        };
        for (const f of validateWith(policy, vars, failurePolicy)) act(f.message, f.reason);
      }
    }
  }
  if (denials.length > 0) throw denial(denials[0]!, a);
}
