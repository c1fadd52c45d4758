/**
 * The registry strategy of ValidatingWebhookConfiguration and MutatingWebhookConfiguration: v1 defaults
 * (k8s.io/kubernetes/pkg/apis/admissionregistration/v1/defaults.go — failurePolicy Fail, matchPolicy
 * Equivalent, empty selectors, timeoutSeconds 10, reinvocationPolicy Never, rule scope `*`, service port 443)
 * and validation (pkg/apis/admissionregistration/validation/validation.go and
 * k8s.io/apiserver/pkg/util/webhook/validation.go) with upstream's paths and messages: fully qualified and
 * unique webhook names, rules, policies, sideEffects None or NoneOnDryRun, timeouts of 1-30 s, label
 * selectors, exactly one of url (https, no query, fragment or user) or service, admissionReviewVersions.
 */
import { child, duplicate, index, invalidRendered, invalidValue, notSupported, required, type FieldError } from '../field-errors.ts';
import { isDns1123Subdomain } from '../name-validation.ts';
import { validateLabelSelector } from '../object-meta-validation.ts';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const strings = (v: unknown): string[] => list(v).map((x) => (typeof x === 'string' ? x : String(x)));
const goStrings = (l: readonly string[]): string => `[]string{${l.map((s) => JSON.stringify(s)).join(', ')}}`;
// Whether an optional enum field is set to something outside `allowed`.
const outside = (v: unknown, allowed: readonly string[]): boolean => v !== undefined && (typeof v !== 'string' || !allowed.includes(v));

// The sets of allowed values, sorted as sets.String.List() sorts them in upstream's messages.
const failurePolicies = ['Fail', 'Ignore'];
const matchPolicies = ['Equivalent', 'Exact'];
const sideEffectClasses = ['None', 'NoneOnDryRun'];
const operations = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const scopes = ['*', 'Cluster', 'Namespaced'];
const reinvocationPolicies = ['IfNeeded', 'Never'];
const admissionReviewVersions = ['v1', 'v1beta1'];

/** Applies the v1 defaults to every webhook of a configuration, in place. */
export function defaultWebhookConfiguration(config: Obj, mutating: boolean): void {
  for (const hook of list(config.webhooks)) {
    if (!isObj(hook)) continue;
    hook.failurePolicy ??= 'Fail';
    hook.matchPolicy ??= 'Equivalent';
    hook.namespaceSelector ??= {};
    hook.objectSelector ??= {};
    hook.timeoutSeconds ??= 10;
    if (mutating) hook.reinvocationPolicy ??= 'Never';
    for (const rule of list(hook.rules)) if (isObj(rule)) rule.scope ??= '*';
    const cc = isObj(hook.clientConfig) ? hook.clientConfig : undefined;
    if (cc !== undefined && isObj(cc.service)) cc.service.port ??= 443;
  }
}

// IsFullyQualifiedName.
function fullyQualifiedName(path: string, name: string): FieldError[] {
  if (name === '') return [required(path)];
  const errs = isDns1123Subdomain(name);
  if (errs.length > 0) return [invalidValue(path, name, errs.join(','))];
  if (name.split('.').length < 3) return [invalidValue(path, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

function validateResources(resources: string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(required(path));
  const wildcardSub = new Set<string>();
  const wildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSub = false;
  resources.forEach((rs, i) => {
    if (rs === '') {
      errs.push(required(index(path, i)));
      return;
    }
    if (rs === '*/*') doubleWildcard = true;
    if (rs === '*') singleWildcard = true;
    const slash = rs.indexOf('/');
    if (slash < 0) {
      withoutSub = rs !== '*';
      return;
    }
    const res = rs.slice(0, slash);
    const sub = rs.slice(slash + 1);
    if (wildcardSub.has(res)) errs.push(invalidValue(index(path, i), rs, `if '${res}/*' is present, must not specify ${rs}`));
    if (wildcardRes.has(sub)) errs.push(invalidValue(index(path, i), rs, `if '*/${sub}' is present, must not specify ${rs}`));
    if (sub === '*') wildcardSub.add(res);
    if (res === '*') wildcardRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) errs.push(invalidRendered(path, goStrings(resources), "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && withoutSub) errs.push(invalidRendered(path, goStrings(resources), "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

function validateRule(rule: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const ops = strings(rule.operations);
  if (ops.length === 0) errs.push(required(child(path, 'operations')));
  if (ops.length > 1 && ops.includes('*')) errs.push(invalidRendered(child(path, 'operations'), goStrings(ops), "if '*' is present, must not specify other operations"));
  ops.forEach((op, i) => {
    if (!operations.includes(op)) errs.push(notSupported(index(child(path, 'operations'), i), op, operations));
  });
  const groups = strings(rule.apiGroups);
  if (groups.length === 0) errs.push(required(child(path, 'apiGroups')));
  if (groups.length > 1 && groups.includes('*')) errs.push(invalidRendered(child(path, 'apiGroups'), goStrings(groups), "if '*' is present, must not specify other API groups"));
  const versions = strings(rule.apiVersions);
  if (versions.length === 0) errs.push(required(child(path, 'apiVersions')));
  if (versions.length > 1 && versions.includes('*')) errs.push(invalidRendered(child(path, 'apiVersions'), goStrings(versions), "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => {
    if (v === '') errs.push(required(index(child(path, 'apiVersions'), i)));
  });
  errs.push(...validateResources(strings(rule.resources), child(path, 'resources')));
  if (outside(rule.scope, scopes)) errs.push(notSupported(child(path, 'scope'), rule.scope, scopes));
  return errs;
}

/** ValidateWebhookURL (apiserver/pkg/util/webhook/validation.go), https required; also used for CRD conversion webhooks. */
export function validateUrl(path: string, raw: string): FieldError[] {
  const form = '; desired format: https://host[/path]';
  let u: URL;
  try {
    u = new URL(raw);
  } catch (err) {
    return [required(path, `url must be a valid URL: ${err instanceof Error ? err.message : String(err)}${form}`)];
  }
  const errs: FieldError[] = [];
  const scheme = u.protocol.replace(/:$/, '');
  if (scheme !== 'https') errs.push(invalidValue(path, scheme, `'https' is the only allowed URL scheme${form}`));
  if (u.host === '') errs.push(invalidValue(path, u.host, `host must be provided${form}`));
  if (u.username !== '' || u.password !== '') errs.push(invalidValue(path, u.password === '' ? u.username : `${u.username}:${u.password}`, 'user information is not permitted in the URL'));
  if (u.hash.length > 1) errs.push(invalidValue(path, u.hash.slice(1), 'fragments are not permitted in the URL'));
  if (u.search.length > 1) errs.push(invalidValue(path, u.search.slice(1), 'query parameters are not permitted in the URL'));
  return errs;
}

/** ValidateWebhookService (apiserver/pkg/util/webhook/validation.go); also used for CRD conversion webhooks. */
export function validateService(path: string, svc: Obj): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof svc.name !== 'string' || svc.name === '') errs.push(required(child(path, 'name'), 'service name is required'));
  if (typeof svc.namespace !== 'string' || svc.namespace === '') errs.push(required(child(path, 'namespace'), 'service namespace is required'));
  const port = typeof svc.port === 'number' ? svc.port : 443;
  if (!Number.isInteger(port) || port < 1 || port > 65535) errs.push(invalidValue(child(path, 'port'), port, 'port is not valid: must be between 1 and 65535, inclusive'));
  if (typeof svc.path !== 'string' || svc.path === '' || svc.path === '/') return errs;
  const p = svc.path;
  if (p === '//') return [...errs, invalidValue(child(path, 'path'), p, 'segment[0] may not be empty')];
  if (!p.startsWith('/')) errs.push(invalidValue(child(path, 'path'), p, "must start with a '/'"));
  let rest = p.slice(1);
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  rest.split('/').forEach((step, i) => {
    if (step === '') errs.push(invalidValue(child(path, 'path'), p, `segment[${i}] may not be empty`));
    else for (const m of isDns1123Subdomain(step)) errs.push(invalidValue(child(path, 'path'), p, `segment[${i}]: ${m}`));
  });
  return errs;
}

function validateWebhook(hook: Obj, path: string, mutating: boolean): FieldError[] {
  const errs = fullyQualifiedName(child(path, 'name'), typeof hook.name === 'string' ? hook.name : '');
  list(hook.rules).forEach((r, i) => errs.push(...validateRule(isObj(r) ? r : {}, index(child(path, 'rules'), i))));
  if (outside(hook.failurePolicy, failurePolicies)) errs.push(notSupported(child(path, 'failurePolicy'), hook.failurePolicy, failurePolicies));
  if (outside(hook.matchPolicy, matchPolicies)) errs.push(notSupported(child(path, 'matchPolicy'), hook.matchPolicy, matchPolicies));
  if (hook.sideEffects === undefined || hook.sideEffects === null) errs.push(required(child(path, 'sideEffects'), `must specify one of ${sideEffectClasses.join(', ')}`));
  else if (outside(hook.sideEffects, sideEffectClasses)) errs.push(notSupported(child(path, 'sideEffects'), hook.sideEffects, sideEffectClasses));
  const timeout = hook.timeoutSeconds;
  if (typeof timeout === 'number' && (timeout > 30 || timeout < 1)) errs.push(invalidValue(child(path, 'timeoutSeconds'), timeout, 'the timeout value must be between 1 and 30 seconds'));
  errs.push(...validateLabelSelector(hook.namespaceSelector, child(path, 'namespaceSelector')));
  errs.push(...validateLabelSelector(hook.objectSelector, child(path, 'objectSelector')));
  if (mutating && outside(hook.reinvocationPolicy, reinvocationPolicies)) {
    errs.push(notSupported(child(path, 'reinvocationPolicy'), hook.reinvocationPolicy, reinvocationPolicies));
  }
  const cc = isObj(hook.clientConfig) ? hook.clientConfig : {};
  const cp = child(path, 'clientConfig');
  const hasUrl = typeof cc.url === 'string';
  if (hasUrl === isObj(cc.service)) errs.push(required(cp, 'exactly one of url or service is required'));
  else if (hasUrl) errs.push(...validateUrl(child(cp, 'url'), cc.url as string));
  else errs.push(...validateService(child(cp, 'service'), cc.service as Obj));
  return errs;
}

// validateAdmissionReviewVersions.
function validateReviewVersions(versions: string[], path: string): FieldError[] {
  if (versions.length === 0) return [required(path, `must specify one of ${admissionReviewVersions.join(', ')}`)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(invalidValue(index(path, i), v, 'duplicate version'));
      return;
    }
    seen.add(v);
    if (!/^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(v) || v.length > 63) {
      errs.push(invalidValue(index(path, i), v, "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"));
    }
  });
  if (!versions.some((v) => admissionReviewVersions.includes(v))) errs.push(invalidRendered(path, goStrings(versions), `must include at least one of ${admissionReviewVersions.join(', ')}`));
  return errs;
}

/** The errors of a webhook configuration (after defaulting); `mutating` for a MutatingWebhookConfiguration. */
export function validateWebhookConfiguration(config: Obj, mutating: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  list(config.webhooks).forEach((h, i) => {
    const hook = isObj(h) ? h : {};
    const path = index('webhooks', i);
    errs.push(...validateWebhook(hook, path, mutating));
    errs.push(...validateReviewVersions(strings(hook.admissionReviewVersions), child(path, 'admissionReviewVersions')));
    const name = typeof hook.name === 'string' ? hook.name : '';
    if (name !== '') {
      if (names.has(name)) errs.push(duplicate(child(path, 'name'), name));
      else names.add(name);
    }
  });
  return errs;
}


/**
 * For a resource that stores webhook configurations: defaults `obj` in place and returns its validation
 * errors; undefined for any other resource.
 */
export function admitWebhookConfiguration(group: string, resource: string, obj: Obj): FieldError[] | undefined {
  if (group !== 'admissionregistration.k8s.io') return undefined;
  const mutating = resource === 'mutatingwebhookconfigurations';
  if (!mutating && resource !== 'validatingwebhookconfigurations') return undefined;
  defaultWebhookConfiguration(obj, mutating);
  return validateWebhookConfiguration(obj, mutating);
}
