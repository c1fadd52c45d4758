/**
 * POSTs that are answered and never stored: the authorization.k8s.io reviews, TokenReview, SelfSubjectReview and
 * serviceaccounts/<name>/token. The answers come from registry/ (over the server's access control);
 * this module decodes the request as the create handler does (the kind's Go struct, the field
 * manager's managedFields), validates the access review spec as `pkg/apis/authorization/validation`
 * words it, and encodes the answer (201, as upstream's create handler) in the negotiated format.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isObject, metaOf, str } from '../object-meta.ts';
import { trackUpdate } from '../patch/index.ts';
import { localSubjectAccessReview, selfSubjectAccessReview, selfSubjectRulesReview, subjectAccessReview } from '../registry/authorization/subject-access-review.ts';
import { tokenReview } from '../registry/authentication/token-review.ts';
import { selfSubjectReview } from '../registry/authentication/self-subject-review.ts';
import { createToken } from '../registry/core/token-request.ts';
import { tokenRequestDefaults } from '../registry/defaults.ts';
import { causesOf, GoValue, invalidValue, path, type FieldError } from '../registry/validation/field.ts';
import { storageKey } from '../resources.ts';
import { structOfKind } from '../schema/scheme.ts';
import { decodeTyped, GoDecodeError } from '../schema/typed-json.ts';
import { badRequest, invalid } from '../status.ts';
import { checkType, parseBody } from './request-body.ts';
import { sendObject, type Render } from './response.ts';
import { objectKey, type Obj, type RequestScope, type Target } from './scope.ts';
import { createOptions } from './write-options.ts';

/** Whether a create on the target is a review or a token request served here. */
export function isReview(t: Target): boolean {
  if (t.r.group === '' && t.r.resource === 'serviceaccounts' && t.subresource === 'token') return true;
  return t.r.group === 'authorization.k8s.io' || t.r.group === 'authentication.k8s.io';
}

/** Decodes a body into the Go struct of `apiVersion`/`kind`, as the create handler's decoder does. */
function decodeAs(req: IncomingMessage, body: Buffer, apiVersion: string, kind: string): Obj {
  const obj = parseBody(req, body, kind);
  if (obj.kind !== undefined && obj.kind !== kind) throw badRequest(`${str(obj.kind)} in version "v1" cannot be handled as a ${kind}: converting (v1.${str(obj.kind)}) to (${kind}): unknown conversion`);
  obj.kind = kind;
  obj.apiVersion = apiVersion;
  return typed(apiVersion, kind, obj);
}

function typed(apiVersion: string, kind: string, obj: Obj): Obj {
  try {
    return decodeTyped(structOfKind(apiVersion, kind)!, obj);
  } catch (err) {
    if (err instanceof GoDecodeError) throw badRequest(`${kind} in version "v1" cannot be handled as a ${kind}: ${err.message}`);
    throw err;
  }
}

// %#v of an authorization.NonResourceAttributes pointer, as the validation message prints it.
function goAttributes(v: unknown): GoValue | null {
  if (!isObject(v)) return null;
  return new GoValue(`authorization.NonResourceAttributes{Path:${JSON.stringify(str(v.path))}, Verb:${JSON.stringify(str(v.verb))}}`);
}

// ValidateSelfSubjectAccessReviewSpec's first checks, whose errors carry no kind (the internal object has none set).
function accessReviewSpecErrors(spec: Obj): FieldError[] {
  const fld = path('spec');
  if (isObject(spec.resourceAttributes) && isObject(spec.nonResourceAttributes)) return [invalidValue(fld.child('nonResourceAttributes'), goAttributes(spec.nonResourceAttributes), 'cannot be specified in combination with resourceAttributes')];
  if (!isObject(spec.resourceAttributes) && !isObject(spec.nonResourceAttributes)) return [invalidValue(fld.child('resourceAttributes'), goAttributes(spec.nonResourceAttributes), 'exactly one of nonResourceAttributes or resourceAttributes must be specified')];
  return [];
}

/** Serves a review or token request: 201 with the answered object. */
export async function createReview(scope: RequestScope, t: Target, q: URLSearchParams, req: IncomingMessage, body: Buffer, render: Render, res: ServerResponse): Promise<void> {
  const { access, user } = scope;
  const opts = createOptions(q, req, 'CreateOptions');
  const apiVersion = t.subresource === 'token' ? 'authentication.k8s.io/v1' : `${t.r.group}/${t.r.version}`;
  const kind = t.subresource === 'token' ? 'TokenRequest' : t.r.kind;
  const sent = parseBody(req, body, kind);
  const request = decodeAs(req, body, apiVersion, kind);
  // The create handler's field manager records what the request set (with its defaults), not the struct's zero values.
  if (t.subresource === 'token') tokenRequestDefaults(sent);
  const managed = metaOf(trackUpdate(undefined, { apiVersion, kind, spec: sent.spec }, { manager: opts.manager, now: scope.now(), apiVersion, ...(t.subresource === 'token' ? { subresource: 'token' } : {}) })).managedFields;
  let out: Obj;
  if (t.subresource === 'token') {
    const get = (resource: string, namespace: string, name: string): Obj | undefined => scope.storage.get(storageKey('', resource), objectKey(namespace, name))?.obj;
    out = await createToken(request, t.namespace, t.name!, get, access.tokens, () => scope.now());
  } else {
    checkType(scope.registry, t, request);
    const spec = isObject(request.spec) ? request.spec : {};
    if (t.r.group === 'authorization.k8s.io' && t.r.resource !== 'selfsubjectrulesreviews') {
      const errors = accessReviewSpecErrors(spec);
      if (errors.length > 0) throw invalid('authorization.k8s.io', '', '', causesOf(errors));
    }
    switch (t.r.resource) {
      case 'selfsubjectaccessreviews':
        out = selfSubjectAccessReview(request, user, access.authorizer);
        break;
      case 'subjectaccessreviews':
        out = subjectAccessReview(request, access.authorizer);
        break;
      case 'localsubjectaccessreviews':
        out = localSubjectAccessReview(request, t.namespace, access.authorizer);
        break;
      case 'selfsubjectrulesreviews':
        out = selfSubjectRulesReview(request, user, access.rules);
        break;
      case 'selfsubjectreviews':
        out = selfSubjectReview(user, scope.now());
        break;
      default:
        out = await tokenReview(request, (token) => access.reviewToken(token));
    }
  }
  if (managed !== undefined) metaOf(out).managedFields = managed;
  sendObject(res, 201, JSON.stringify(typed(apiVersion, kind, out)), render);
}
