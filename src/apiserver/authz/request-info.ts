/**
 * What a request asks to do, as the authorizer sees it: k8s.io/apiserver's RequestInfoFactory
 * (pkg/endpoints/request/requestinfo.go) turns the method and path into a verb, API group, version,
 * resource, subresource, namespace and name, without knowing which resources exist — so an
 * unauthorized request for something that is not served gets 403, not 404, as upstream.
 */
import type { UserInfo } from '../authn/user.ts';

/** The attributes an authorizer decides on (authorizer.Attributes). */
export interface Attributes {
  user: UserInfo;
  verb: string;
  /** True for /api and /apis resource paths; false for everything else (non-resource URLs). */
  resourceRequest: boolean;
  /** The URL path (non-resource requests). */
  path: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

/** A request's attributes without the user. */
export type RequestInfo = Omit<Attributes, 'user'>;

// Verbs carried in the path (`/api/v1/watch/...`, `/proxy/`); `proxy` takes no subresource.
const specialVerbs: ReadonlySet<string> = new Set(['proxy', 'watch']);
// Subresources of a namespace itself (`namespaces/<ns>/status`), not namespaced resources.
const namespaceSubresources: ReadonlySet<string> = new Set(['status', 'finalize']);

// A name a fieldSelector may carry into the attributes (path.IsValidPathSegmentName).
function validPathSegment(name: string): boolean {
  return name !== '.' && name !== '..' && !name.includes('/') && !name.includes('%');
}

// `metadata.name=<x>` or `metadata.name==<x>` as the only requirement on metadata.name.
function exactName(fieldSelector: string | null): string | undefined {
  if (fieldSelector === null) return undefined;
  for (const term of fieldSelector.split(',')) {
    const m = /^\s*metadata\.name\s*==?\s*(.*?)\s*$/.exec(term);
    if (m !== null) return m[1];
  }
  return undefined;
}

/** Parses a request into authorizer attributes (RequestInfoFactory.NewRequestInfo). */
export function requestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const info: RequestInfo = { verb: method.toLowerCase(), resourceRequest: false, path, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' };
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  let parts = trimmed === '' ? [] : trimmed.split('/');
  if (parts.length < 3) return info;
  const prefix = parts[0];
  if (prefix !== 'api' && prefix !== 'apis') return info;
  parts = parts.slice(1);
  if (prefix === 'apis') {
    if (parts.length < 3) return info;
    info.apiGroup = parts[0]!;
    parts = parts.slice(1);
  }
  info.resourceRequest = true;
  info.apiVersion = parts[0]!;
  parts = parts.slice(1);
  if (specialVerbs.has(parts[0]!)) {
    if (parts.length < 2) return info;
    info.verb = parts[0]!;
    parts = parts.slice(1);
  } else {
    const verbs: Record<string, string> = { POST: 'create', GET: 'get', HEAD: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };
    info.verb = verbs[method.toUpperCase()] ?? '';
  }
  if (parts[0] === 'namespaces') {
    if (parts.length > 1) {
      info.namespace = parts[1]!;
      if (parts.length > 2 && !namespaceSubresources.has(parts[2]!)) parts = parts.slice(2);
    }
  }
  const decode = (s: string): string => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  if (parts.length >= 3 && info.verb !== 'proxy') info.subresource = decode(parts[2]!);
  if (parts.length >= 2) info.name = decode(parts[1]!);
  if (parts.length >= 1) info.resource = decode(parts[0]!);
  if (info.name === '' && info.verb === 'get') {
    const w = query.get('watch');
    info.verb = w !== null && w.toLowerCase() !== 'false' && w !== '0' ? 'watch' : 'list';
    const name = exactName(query.get('fieldSelector'));
    if (name !== undefined && validPathSegment(name)) info.name = name;
  }
  if (info.name === '' && info.verb === 'delete') info.verb = 'deletecollection';
  return info;
}
