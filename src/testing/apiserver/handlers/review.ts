/**
 * POSTs that are answered and never stored: the authorization.k8s.io reviews, TokenReview and
 * serviceaccounts/<name>/token. The answers come from registry/ (over the server's access control);
 * this module decodes the request and encodes the answer (201, as upstream's create handler).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { localSubjectAccessReview, selfSubjectAccessReview, selfSubjectRulesReview, subjectAccessReview } from '../registry/authorization/subject-access-review.ts';
import { tokenReview } from '../registry/authentication/token-review.ts';
import { createToken } from '../registry/core/token-request.ts';
import { storageKey } from '../resources.ts';
import { checkType, decodeObject } from './request-body.ts';
import { send } from './response.ts';
import { objectKey, type Obj, type RequestScope, type Target } from './scope.ts';

/** Whether a create on the target is a review or a token request served here. */
export function isReview(t: Target): boolean {
  if (t.r.group === '' && t.r.resource === 'serviceaccounts' && t.subresource === 'token') return true;
  return t.r.group === 'authorization.k8s.io' || (t.r.group === 'authentication.k8s.io' && t.r.resource === 'tokenreviews');
}

/** Serves a review or token request: 201 with the answered object. */
export async function createReview(scope: RequestScope, t: Target, req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
  const { access, user } = scope;
  if (t.subresource === 'token') {
    const request = decodeObject(req, body, 'TokenRequest');
    const get = (resource: string, namespace: string, name: string): Obj | undefined => scope.storage.get(storageKey('', resource), objectKey(namespace, name))?.obj;
    send(res, 201, JSON.stringify(await createToken(request, t.namespace, t.name!, get, access.tokens, () => scope.now())));
    return;
  }
  const review = decodeObject(req, body, t.r.kind);
  checkType(scope.registry, t, review);
  let out: Obj;
  switch (t.r.resource) {
    case 'selfsubjectaccessreviews':
      out = selfSubjectAccessReview(review, user, access.authorizer);
      break;
    case 'subjectaccessreviews':
      out = subjectAccessReview(review, access.authorizer);
      break;
    case 'localsubjectaccessreviews':
      out = localSubjectAccessReview(review, t.namespace, access.authorizer);
      break;
    case 'selfsubjectrulesreviews':
      out = selfSubjectRulesReview(review, user, access.rules);
      break;
    default:
      out = await tokenReview(review, (token) => access.reviewToken(token));
  }
  send(res, 201, JSON.stringify(out));
}
