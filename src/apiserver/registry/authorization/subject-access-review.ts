/**
 * The authorization.k8s.io/v1 reviews (pkg/registry/authorization/*): SelfSubjectAccessReview asks
 * "may I", SubjectAccessReview and LocalSubjectAccessReview ask it for a given user and groups (the
 * latter within one namespace), SelfSubjectRulesReview lists what the caller may do in a namespace.
 * They are answered by the server's authorizer and never stored; `kubectl auth can-i` (with `--list`
 * and `--as`) is built on them.
 */
import type { UserInfo } from '../../authn/user.ts';
import type { Authorizer, RuleResolver } from '../../authz/authorizer.ts';
import type { Attributes } from '../../authz/request-info.ts';
import { badRequest, invalid, invalidCause } from '../../status.ts';

type Obj = Record<string, unknown>;
const group = 'authorization.k8s.io';

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function specOf(review: Obj): Obj {
  return isObj(review.spec) ? review.spec : {};
}

// The decoded review echoed with metadata reset, as upstream answers (the object was never stored).
function answer(review: Obj, status: Obj): Obj {
  return { apiVersion: `${group}/v1`, kind: review.kind, metadata: { creationTimestamp: null, ...(isObj(review.metadata) && str(review.metadata.namespace) !== '' ? { namespace: review.metadata.namespace } : {}) }, spec: review.spec ?? {}, status };
}

function attributesOf(user: UserInfo, spec: Obj): Attributes {
  const ra = spec.resourceAttributes;
  if (isObj(ra)) {
    return {
      user,
      resourceRequest: true,
      path: '',
      verb: str(ra.verb),
      namespace: str(ra.namespace),
      apiGroup: str(ra.group),
      // matchAllVersionIfEmpty
      apiVersion: str(ra.version) === '' ? '*' : str(ra.version),
      resource: str(ra.resource),
      subresource: str(ra.subresource),
      name: str(ra.name),
    };
  }
  const nra = isObj(spec.nonResourceAttributes) ? spec.nonResourceAttributes : {};
  return { user, resourceRequest: false, path: str(nra.path), verb: str(nra.verb), namespace: '', apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '' };
}

function decide(authorizer: Authorizer, a: Attributes): Obj {
  const d = authorizer.authorize(a);
  const status: Obj = { allowed: d.allowed };
  if (d.reason !== '') status.reason = d.reason;
  return status;
}

// ValidateSubjectAccessReviewSpec / ValidateSelfSubjectAccessReviewSpec.
function specCauses(spec: Obj, needsSubject: boolean) {
  const causes = [];
  const hasResource = isObj(spec.resourceAttributes);
  const hasNonResource = isObj(spec.nonResourceAttributes);
  if (hasResource && hasNonResource) causes.push(invalidCause('spec.nonResourceAttributes', spec.nonResourceAttributes, 'cannot be specified in combination with resourceAttributes'));
  if (!hasResource && !hasNonResource) causes.push(invalidCause('spec.resourceAttributes', null, 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  if (needsSubject && str(spec.user) === '' && (!Array.isArray(spec.groups) || spec.groups.length === 0)) causes.push(invalidCause('spec.user', str(spec.user), 'at least one of user or group must be specified'));
  return causes;
}

function metadataEmpty(review: Obj, allowNamespace: boolean): boolean {
  if (!isObj(review.metadata)) return true;
  return Object.entries(review.metadata).every(([k, v]) => v === undefined || v === null || v === '' || k === 'managedFields' || k === 'creationTimestamp' || (allowNamespace && k === 'namespace'));
}

/** Answers a SelfSubjectAccessReview for the requesting user. */
export function selfSubjectAccessReview(review: Obj, user: UserInfo, authorizer: Authorizer): Obj {
  const spec = specOf(review);
  const causes = specCauses(spec, false);
  if (!metadataEmpty(review, false)) causes.push(invalidCause('metadata', review.metadata, 'must be empty'));
  if (causes.length > 0) throw invalid(group, 'SelfSubjectAccessReview', '', causes);
  return answer(review, decide(authorizer, attributesOf(user, spec)));
}

function subjectOf(spec: Obj): UserInfo {
  const extra: Record<string, string[]> = {};
  if (isObj(spec.extra)) for (const [k, v] of Object.entries(spec.extra)) if (Array.isArray(v)) extra[k] = v.map(str);
  return { name: str(spec.user), uid: str(spec.uid), groups: Array.isArray(spec.groups) ? spec.groups.map(str) : [], extra };
}

/** Answers a SubjectAccessReview for the user, groups, uid and extra it names. */
export function subjectAccessReview(review: Obj, authorizer: Authorizer): Obj {
  const spec = specOf(review);
  const causes = specCauses(spec, true);
  if (!metadataEmpty(review, false)) causes.push(invalidCause('metadata', review.metadata, 'must be empty'));
  if (causes.length > 0) throw invalid(group, 'SubjectAccessReview', '', causes);
  return answer(review, decide(authorizer, attributesOf(subjectOf(spec), spec)));
}

/** Answers a LocalSubjectAccessReview posted to a namespace. */
export function localSubjectAccessReview(review: Obj, namespace: string, authorizer: Authorizer): Obj {
  const meta = isObj(review.metadata) ? review.metadata : {};
  const metaNamespace = str(meta.namespace);
  if (metaNamespace !== '' && metaNamespace !== namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  review.metadata = { ...meta, namespace };
  const spec = specOf(review);
  const causes = specCauses(spec, true);
  if (!metadataEmpty(review, true)) causes.push(invalidCause('metadata', review.metadata, 'must be empty except for namespace'));
  if (isObj(spec.resourceAttributes) && str(spec.resourceAttributes.namespace) !== namespace) causes.push(invalidCause('spec.resourceAttributes.namespace', str(spec.resourceAttributes.namespace), 'must match metadata.namespace'));
  if (isObj(spec.nonResourceAttributes)) causes.push(invalidCause('spec.nonResourceAttributes', spec.nonResourceAttributes, 'disallowed on this kind of request'));
  if (causes.length > 0) throw invalid(group, 'LocalSubjectAccessReview', '', causes);
  return answer(review, decide(authorizer, attributesOf(subjectOf(spec), spec)));
}

/** Answers a SelfSubjectRulesReview: the caller's rules in `spec.namespace`. */
export function selfSubjectRulesReview(review: Obj, user: UserInfo, rules: RuleResolver): Obj {
  const spec = specOf(review);
  const namespace = str(spec.namespace);
  if (namespace === '') throw badRequest('no namespace on request');
  const r = rules.rulesFor(user, namespace);
  const status: Obj = { resourceRules: r.resourceRules, nonResourceRules: r.nonResourceRules, incomplete: r.incomplete };
  if (r.evaluationError !== '') status.evaluationError = r.evaluationError;
  return { ...answer(review, status), spec: {} };
}
