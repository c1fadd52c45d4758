/**
 * The create-only resources that compute an answer instead of storing an object: access reviews
 * (`pkg/registry/authorization/*review`, asking the {@link Authorizer}) and TokenRequests on
 * `serviceaccounts/<name>/token` (`pkg/registry/core/serviceaccount/storage/token.go`), which answer a
 * signed service account token.
 */
import { createSign, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { defaultUser, type AuthorizationAttributes } from '../authz/authorizer.ts';
import { isObject, metaOf } from '../object-meta.ts';
import { trackUpdate } from '../patch/index.ts';
import { tokenRequestDefaults } from '../registry/defaults.ts';
import { causesOf, GoValue, invalidValue, path, type FieldError } from '../registry/validation/field.ts';
import { validateTokenRequest } from '../registry/validation/core.ts';
import { structOfKind } from '../schema/scheme.ts';
import { decodeTyped, GoDecodeError } from '../schema/typed-json.ts';
import { badRequest, invalid, notFound } from '../status.ts';
import { parseBody } from './request-body.ts';
import { sendObject, type Render } from './response.ts';
import { objectKey, type Obj, type RequestScope, type Target } from './scope.ts';
import { createOptions } from './write-options.ts';

/** Decodes a body of `apiVersion`/`kind` (a kind served by a handler below) into its Go shape. */
function decodeReview(req: IncomingMessage, body: Buffer, apiVersion: string, kind: string): Obj {
  const obj = parseBody(req, body, kind);
  if (obj.kind !== undefined && obj.kind !== kind) throw badRequest(`${String(obj.kind)} in version "v1" cannot be handled as a ${kind}: converting (v1.${String(obj.kind)}) to (${kind}): unknown conversion`);
  obj.kind = kind;
  obj.apiVersion = apiVersion;
  try {
    return decodeTyped(structOfKind(apiVersion, kind)!, obj);
  } catch (err) {
    if (err instanceof GoDecodeError) throw badRequest(`${kind} in version "v1" cannot be handled as a ${kind}: ${err.message}`);
    throw err;
  }
}

// %#v of an authorization.NonResourceAttributes / ResourceAttributes pointer.
function goAttributes(kind: 'NonResourceAttributes' | 'ResourceAttributes', v: unknown): GoValue | null {
  if (!isObject(v)) return null;
  const fields = kind === 'NonResourceAttributes' ? ['Path:path', 'Verb:verb'] : ['Namespace:namespace', 'Verb:verb', 'Group:group', 'Version:version', 'Resource:resource', 'Subresource:subresource', 'Name:name'];
  return new GoValue(`authorization.${kind}{${fields.map((f) => `${f.split(':')[0]}:${JSON.stringify(String(v[f.split(':')[1]!] ?? ''))}`).join(', ')}}`);
}

function validateAccessReviewSpec(spec: Obj): FieldError[] {
  const fld = path('spec');
  if (isObject(spec.resourceAttributes) && isObject(spec.nonResourceAttributes)) return [invalidValue(fld.child('nonResourceAttributes'), goAttributes('NonResourceAttributes', spec.nonResourceAttributes), 'cannot be specified in combination with resourceAttributes')];
  if (!isObject(spec.resourceAttributes) && !isObject(spec.nonResourceAttributes)) return [invalidValue(fld.child('resourceAttributes'), goAttributes('NonResourceAttributes', spec.nonResourceAttributes), 'exactly one of nonResourceAttributes or resourceAttributes must be specified')];
  return [];
}

/** Serves POST of an access review (SelfSubjectAccessReview, SubjectAccessReview, LocalSubjectAccessReview, SelfSubjectRulesReview). */
export function createReview(scope: RequestScope, t: Target, q: URLSearchParams, req: IncomingMessage, body: Buffer, render: Render, res: ServerResponse): void {
  const opts = createOptions(q, req, 'CreateOptions');
  const sent = parseBody(req, body, t.r.kind);
  const review = decodeReview(req, body, 'authorization.k8s.io/v1', t.r.kind);
  // The create handler's field manager records what the request set.
  metaOf(review).managedFields = metaOf(trackUpdate(undefined, { apiVersion: 'authorization.k8s.io/v1', kind: t.r.kind, spec: sent.spec }, { manager: opts.manager, now: scope.now(), apiVersion: 'authorization.k8s.io/v1' })).managedFields;
  const spec = isObject(review.spec) ? review.spec : {};
  const authorizer = scope.config.authorizer;
  if (t.r.resource === 'selfsubjectrulesreviews') {
    const namespace = typeof spec.namespace === 'string' ? spec.namespace : '';
    const rules = authorizer.rulesFor(defaultUser, namespace);
    review.status = {
      resourceRules: rules.resourceRules.map((r) => ({ ...r })),
      nonResourceRules: rules.nonResourceRules.map((r) => ({ ...r })),
      incomplete: rules.incomplete,
      ...(rules.evaluationError === undefined ? {} : { evaluationError: rules.evaluationError }),
    };
    sendObject(res, 201, JSON.stringify(decodeTyped(structOfKind('authorization.k8s.io/v1', t.r.kind)!, review)), render);
    return;
  }
  const errors = validateAccessReviewSpec(spec);
  // The internal object carries no kind: the error names only the group.
  if (errors.length > 0) throw invalid('authorization.k8s.io', '', '', causesOf(errors));
  const user = t.r.resource === 'selfsubjectaccessreviews' ? defaultUser : { username: String(spec.user ?? ''), groups: Array.isArray(spec.groups) ? spec.groups.map(String) : [] };
  const ra = isObject(spec.resourceAttributes) ? spec.resourceAttributes : undefined;
  const nra = isObject(spec.nonResourceAttributes) ? spec.nonResourceAttributes : undefined;
  const attrs: AuthorizationAttributes =
    ra !== undefined
      ? {
          user,
          verb: String(ra.verb ?? ''),
          resourceRequest: true,
          namespace: t.r.namespaced ? t.namespace : String(ra.namespace ?? ''),
          apiGroup: String(ra.group ?? ''),
          apiVersion: String(ra.version ?? ''),
          resource: String(ra.resource ?? ''),
          subresource: String(ra.subresource ?? ''),
          name: String(ra.name ?? ''),
        }
      : { user, verb: String(nra?.verb ?? ''), resourceRequest: false, path: String(nra?.path ?? '') };
  const decision = authorizer.authorize(attrs);
  review.status = { allowed: decision.decision === 'allow', ...(decision.decision === 'deny' ? { denied: true } : {}), ...(decision.reason === '' ? {} : { reason: decision.reason }) };
  sendObject(res, 201, JSON.stringify(decodeTyped(structOfKind('authorization.k8s.io/v1', t.r.kind)!, review)), render);
}

// The service account token issuer of a cluster started with --service-account-issuer=https://kubernetes.default.svc.
const issuer = 'https://kubernetes.default.svc';
let signingKey: { key: KeyObject; kid: string } | undefined;

function key(): { key: KeyObject; kid: string } {
  if (signingKey === undefined) {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const der = publicKey.export({ type: 'spki', format: 'der' });
    signingKey = { key: privateKey, kid: Buffer.from(der).subarray(0, 32).toString('base64url') };
  }
  return signingKey;
}

function b64(o: unknown): string {
  return Buffer.from(JSON.stringify(o)).toString('base64url');
}

/** A signed service account token (RS256 JWT) with the claims kube-apiserver's token issuer puts in it. */
function serviceAccountToken(namespace: string, sa: Obj, audiences: readonly string[], nowSeconds: number, seconds: number): string {
  const { key: privateKey, kid } = key();
  const meta = metaOf(sa);
  const payload = {
    aud: audiences,
    exp: nowSeconds + seconds,
    iat: nowSeconds,
    iss: issuer,
    jti: randomUUID(),
    'kubernetes.io': { namespace, serviceaccount: { name: meta.name, uid: meta.uid } },
    nbf: nowSeconds,
    sub: `system:serviceaccount:${namespace}:${String(meta.name)}`,
  };
  const signing = `${b64({ alg: 'RS256', kid })}.${b64(payload)}`;
  const signature = createSign('RSA-SHA256').update(signing).sign(privateKey).toString('base64url');
  return `${signing}.${signature}`;
}

/** Serves POST on serviceaccounts/<name>/token: 201 with the TokenRequest and its token. */
export function createToken(scope: RequestScope, t: Target, q: URLSearchParams, req: IncomingMessage, body: Buffer, render: Render, res: ServerResponse): void {
  const opts = createOptions(q, req, 'CreateOptions');
  const name = t.name!;
  const apiVersion = 'authentication.k8s.io/v1';
  const sent = parseBody(req, body, 'TokenRequest');
  const tr = decodeReview(req, body, apiVersion, 'TokenRequest');
  tokenRequestDefaults(tr);
  // Managed fields record what the request set (and its defaults), not the zero values of the Go struct.
  tokenRequestDefaults(sent);
  const sa = scope.storage.get('serviceaccounts', objectKey(t.namespace, name));
  if (sa === undefined) throw notFound({ group: '', resource: 'serviceaccounts' }, name);
  const errors = validateTokenRequest(tr);
  if (errors.length > 0) throw invalid('authentication.k8s.io', 'TokenRequest', '', causesOf(errors));
  const meta = metaOf(tr);
  meta.name = name;
  meta.namespace = t.namespace;
  meta.creationTimestamp = scope.now();
  const recorded = trackUpdate(undefined, { apiVersion, kind: 'TokenRequest', spec: sent.spec }, { manager: opts.manager, now: scope.now(), apiVersion, subresource: 'token' });
  const managed = tr;
  metaOf(managed).managedFields = metaOf(recorded).managedFields;
  const spec = isObject(managed.spec) ? managed.spec : {};
  const audiences = Array.isArray(spec.audiences) && spec.audiences.length > 0 ? spec.audiences.map(String) : [issuer];
  spec.audiences = audiences;
  const seconds = typeof spec.expirationSeconds === 'number' ? spec.expirationSeconds : 3600;
  const nowMs = scope.config.clock.now();
  const nowSeconds = Math.floor(nowMs / 1000);
  managed.spec = spec;
  managed.status = { token: serviceAccountToken(t.namespace, sa.obj, audiences, nowSeconds, seconds), expirationTimestamp: new Date((nowSeconds + seconds) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') };
  sendObject(res, 201, JSON.stringify(decodeTyped(structOfKind(apiVersion, 'TokenRequest')!, managed)), render);
}
