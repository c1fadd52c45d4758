/**
 * Whether a webhook applies to a request (apiserver/pkg/admission/plugin/webhook/predicates and
 * generic/webhook.go ShouldCallHook): its rules (operations, apiGroups, apiVersions, resources with
 * `*`, `resource/subresource`, `resource/*`, `*\u002Fsubresource`, and scope), then matchPolicy —
 * Exact matches only the request's own group/version/resource; Equivalent also matches another served
 * version of the same group and resource, the object then being sent in the webhook's version — then
 * namespaceSelector (the namespace's labels; a Namespace's own labels for namespaces) and
 * objectSelector (the new or old object's labels).
 */
import type { LabelSelector } from '../../../api/meta/v1.ts';
import { labelSelectorAsSelector } from '../../../apimachinery/labels.ts';
import type { AdmissionAttributes } from '../attributes.ts';

/** A webhook rule (admissionregistration/v1 RuleWithOperations, with the fields kubernetes-types omits). */
export interface RuleWithOperations {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: string;
}

/** The part of a webhook that decides whether it is called. */
export interface WebhookMatchSpec {
  rules?: RuleWithOperations[];
  matchPolicy?: string;
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
}

const has = (list: readonly string[] | undefined, v: string): boolean => (list ?? []).some((x) => x === '*' || x === v);

function resourceMatches(rule: RuleWithOperations, resource: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    const [res, sub] = r.split('/', 2) as [string, string | undefined];
    const resOk = res === '*' || res === resource;
    const subOk = sub === undefined ? subresource === '' : sub === '*' || sub === subresource;
    if (resOk && subOk) return true;
  }
  return false;
}

function scopeMatches(rule: RuleWithOperations, namespaced: boolean): boolean {
  const scope = rule.scope ?? '*';
  if (scope === '*') return true;
  return scope === 'Namespaced' ? namespaced : !namespaced;
}

/** Whether one rule matches the operation, group, version, resource and scope. */
export function ruleMatches(rule: RuleWithOperations, a: Pick<AdmissionAttributes, 'operation' | 'group' | 'version' | 'resource' | 'subresource' | 'namespaced'>): boolean {
  return has(rule.operations, a.operation) && has(rule.apiGroups, a.group) && has(rule.apiVersions, a.version) && resourceMatches(rule, a.resource, a.subresource) && scopeMatches(rule, a.namespaced);
}

/**
 * The version a webhook is called with: the request's when a rule matches exactly; with matchPolicy
 * Equivalent (the v1 default), another version of the same group and resource that a rule names and
 * the server serves; undefined when the webhook does not apply.
 */
export function matchingVersion(spec: WebhookMatchSpec, a: AdmissionAttributes, servedVersions: readonly string[]): string | undefined {
  const rules = spec.rules ?? [];
  if (rules.some((r) => ruleMatches(r, a))) return a.version;
  if ((spec.matchPolicy ?? 'Equivalent') !== 'Equivalent') return undefined;
  for (const v of servedVersions) {
    if (v === a.version) continue;
    if (rules.some((r) => ruleMatches(r, { ...a, version: v }))) return v;
  }
  return undefined;
}

function labelsOf(o: Record<string, unknown> | undefined): Record<string, string> | undefined {
  const meta = o?.metadata as { labels?: Record<string, string> } | undefined;
  return meta === undefined ? undefined : (meta.labels ?? {});
}

/** Whether the namespace and object selectors let the webhook see the request. */
export function selectorsMatch(spec: WebhookMatchSpec, a: AdmissionAttributes): boolean {
  // An empty selector (the default) selects everything.
  const ns = spec.namespaceSelector ?? {};
  const isNamespace = a.group === '' && a.resource === 'namespaces';
  if (isNamespace || a.namespaced) {
    const labels = isNamespace ? (labelsOf(a.object) ?? labelsOf(a.oldObject) ?? {}) : a.namespaceLabels;
    // A missing namespace only matches selectors that select everything.
    const empty = Object.keys(ns.matchLabels ?? {}).length === 0 && (ns.matchExpressions ?? []).length === 0;
    if (labels === undefined ? !empty : !labelSelectorAsSelector(ns).matches(labels)) return false;
  }
  const os = labelSelectorAsSelector(spec.objectSelector ?? {});
  const newLabels = labelsOf(a.object);
  const oldLabels = labelsOf(a.oldObject);
  if (newLabels === undefined && oldLabels === undefined) return os.matches({});
  return (newLabels !== undefined && os.matches(newLabels)) || (oldLabels !== undefined && os.matches(oldLabels));
}
