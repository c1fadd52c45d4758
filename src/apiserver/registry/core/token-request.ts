/**
 * serviceaccounts/<name>/token: TokenRequest (pkg/registry/core/serviceaccount/storage/token.go). Issues
 * a signed token for the ServiceAccount, for the requested audiences (default: the API audiences) and
 * lifetime (default 3600 s, at least 600), optionally bound to a Pod (which must run as that
 * ServiceAccount) or a Secret, whose deletion invalidates the token. Nothing is stored.
 */
import type { ServiceAccountTokens } from '../../authn/service-account-token.ts';
import { StatusError, StatusReason, newStatus } from '../../../apimachinery/errors.ts';
import { badRequest, invalid, invalidCause, notFound } from '../../status.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

// The v1 default of spec.expirationSeconds.
const defaultExpirationSeconds = 3600;

/** Reads the stored objects a TokenRequest refers to. */
export type StoredObjectGetter = (resource: 'serviceaccounts' | 'pods' | 'secrets', namespace: string, name: string) => Obj | undefined;

/** Serves a TokenRequest for ServiceAccount `name` in `namespace`; returns the answered TokenRequest. */
export async function createToken(request: Obj, namespace: string, name: string, get: StoredObjectGetter, tokens: ServiceAccountTokens, now: () => string): Promise<Obj> {
  const meta = isObj(request.metadata) ? request.metadata : {};
  if (str(meta.name) !== '' && meta.name !== name) throw invalid('authentication.k8s.io', 'TokenRequest', name, [invalidCause('metadata.name', meta.name, 'must match the service account name if specified')]);
  if (str(meta.namespace) !== '' && meta.namespace !== namespace) throw invalid('authentication.k8s.io', 'TokenRequest', name, [invalidCause('metadata.namespace', meta.namespace, 'must match the service account namespace if specified')]);
  const sa = get('serviceaccounts', namespace, name);
  if (sa === undefined) throw notFound({ group: '', resource: 'serviceaccounts' }, name);
  const spec: Obj = isObj(request.spec) ? { ...request.spec } : {};
  const audiences = Array.isArray(spec.audiences) && spec.audiences.length > 0 ? spec.audiences.map(str) : [...tokens.apiAudiences];
  spec.audiences = audiences;
  const expirationSeconds = typeof spec.expirationSeconds === 'number' ? spec.expirationSeconds : defaultExpirationSeconds;
  spec.expirationSeconds = expirationSeconds;
  const causes = [];
  if (expirationSeconds < 600) causes.push(invalidCause('spec.expirationSeconds', expirationSeconds, 'may not specify a duration less than 10 minutes'));
  if (expirationSeconds > 2 ** 32) causes.push(invalidCause('spec.expirationSeconds', expirationSeconds, 'may not specify a duration larger than 2^32 seconds'));
  if (causes.length > 0) throw invalid('authentication.k8s.io', 'TokenRequest', '', causes);
  let pod: { name: string; uid: string } | undefined;
  let secret: { name: string; uid: string } | undefined;
  const ref = spec.boundObjectRef;
  if (isObj(ref)) {
    const kind = str(ref.kind);
    const apiVersion = str(ref.apiVersion);
    const refName = str(ref.name);
    const group = apiVersion.includes('/') ? apiVersion.split('/')[0]! : '';
    let uid: string;
    if (group === '' && kind === 'Pod') {
      const p = get('pods', namespace, refName);
      if (p === undefined) throw notFound({ group: '', resource: 'pods' }, refName);
      if (str(isObj(p.spec) ? p.spec.serviceAccountName : undefined) !== name) throw badRequest(`cannot bind token for serviceaccount ${JSON.stringify(name)} to pod running with different serviceaccount name.`);
      uid = str((p.metadata as Obj).uid);
      pod = { name: refName, uid };
    } else if (group === '' && kind === 'Secret') {
      const s = get('secrets', namespace, refName);
      if (s === undefined) throw notFound({ group: '', resource: 'secrets' }, refName);
      uid = str((s.metadata as Obj).uid);
      secret = { name: refName, uid };
    } else {
      const version = apiVersion.includes('/') ? apiVersion.split('/')[1]! : apiVersion;
      throw badRequest(`cannot bind token to object of type ${group === '' ? '' : `${group}/`}${version}, Kind=${kind}`);
    }
    if (str(ref.uid) !== '' && ref.uid !== uid) {
      throw new StatusError(
        newStatus(409, StatusReason.Conflict, `Operation cannot be fulfilled on ${kind} ${JSON.stringify(refName)}: the UID in the bound object reference (${str(ref.uid)}) does not match the UID in record. The object might have been deleted and then recreated`, {
          name: refName,
          kind,
        }),
      );
    }
  }
  const saUid = str((sa.metadata as Obj).uid);
  const { token, expiresAtMs } = await tokens.generate({ namespace, serviceAccount: { name, uid: saUid }, pod, secret, audiences, expirationSeconds });
  return {
    kind: 'TokenRequest',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { name, namespace, creationTimestamp: now() },
    spec,
    status: { token, expirationTimestamp: new Date(expiresAtMs).toISOString().replace(/\.\d{3}Z$/, 'Z') },
  };
}
