/**
 * From a request line to what it asks for: the resource path parsed into a {@link Target} and the HTTP
 * method mapped onto an API verb, as the apiserver's RequestInfoFactory and its routes do. A group
 * version that is not served is the mux's plain-text 404; a resource or subresource the group version
 * does not have is a 404 Status; methods a resource or subresource does not support are 405.
 */
import type { Verb } from '../faults.ts';
import type { ResourceRegistry } from '../resources.ts';
import { badRequest, methodNotAllowed, notFound, pageNotFound, resourceNotFound } from '../status.ts';
import type { Target } from './scope.ts';

/**
 * A boolean query parameter as the apiserver's parameter codec reads it (Convert_Slice_string_To_bool):
 * absent is false, `0`, `f` and `false` (any case) are false, anything else — `maybe` or nothing — is true.
 */
export function boolParam(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  return v !== null && !(v === '0' || /^f(alse)?$/i.test(v));
}

/**
 * Splits the decoded segments of an API path into its group, version and the segments after them:
 * `api/{v}/...` (the legacy core group, '') or `apis/{g}/{v}/...`; undefined for any other path.
 */
export function splitApiPath(parts: readonly string[]): { group: string; version: string; rest: string[] } | undefined {
  if (parts[0] === 'api' && parts.length >= 2) return { group: '', version: parts[1]!, rest: parts.slice(2) };
  if (parts[0] === 'apis' && parts.length >= 3) return { group: parts[1]!, version: parts[2]!, rest: parts.slice(3) };
  return undefined;
}

/** Parses `/api/{v}/...` or `/apis/{g}/{v}/...` into the served resource, namespace, name and subresource. */
export function route(registry: ResourceRegistry, path: string): Target {
  const parts = path
    .split('/')
    .filter((s) => s !== '')
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        throw badRequest(`invalid escape in path segment: ${s}`);
      }
    });
  const groupVersion = splitApiPath(parts);
  if (groupVersion === undefined) throw pageNotFound();
  const { group, version } = groupVersion;
  let rest = groupVersion.rest;
  // Nothing is registered for a group version that is not served: the mux answers (the legacy /api
  // prefix has a handler of its own, which answers with a Status).
  if (!registry.hasGroupVersion(group, version)) throw registry.isBuiltinGroup(group) ? resourceNotFound() : pageNotFound();
  let watchPath = false;
  if (rest[0] === 'watch') {
    watchPath = true;
    rest = rest.slice(1);
  }
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length > 1) {
    namespace = rest[1]!;
    // namespaces/<ns>/status and /finalize are the namespace's own subresources.
    if (rest.length > 2 && rest[2] !== 'status' && rest[2] !== 'finalize') rest = rest.slice(2);
    else {
      rest = ['namespaces', ...rest.slice(1)];
      namespace = '';
    }
  }
  const [resource, name, subresource, ...extra] = rest;
  if (resource === undefined || extra.length > 0) throw resourceNotFound();
  const r = registry.lookup(group, version, resource);
  if (r === undefined) throw resourceNotFound();
  if (r.namespaced !== (namespace !== '') && !(r.namespaced && name === undefined)) {
    // The custom resource handler answers a path of the wrong scope with the mux's 404.
    if (r.custom) throw pageNotFound();
    throw resourceNotFound();
  }
  if (subresource !== undefined && !r.subresources.some((s) => s.name === subresource)) {
    // The custom resource handler serves /status and /scale of every resource and answers NotFound for the object.
    if (r.custom && (subresource === 'status' || subresource === 'scale') && name !== undefined) throw notFound(r, name);
    throw resourceNotFound();
  }
  return { r, namespace, name, subresource, watchPath };
}

const verbOfMethod: Readonly<Record<string, Verb>> = { POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete', GET: 'get' };

/** The API verb of a request on a target; throws 405 when the resource or subresource does not support it. */
export function verbOf(method: string, t: Target, q: URLSearchParams): Verb {
  if (t.subresource !== undefined) {
    const sub = t.r.subresources.find((s) => s.name === t.subresource)!;
    const v = verbOfMethod[method];
    if (v === undefined || !sub.verbs.includes(v)) throw methodNotAllowed();
    return v;
  }
  const allowed = (v: Verb): Verb => {
    if (!t.r.verbs.includes(v)) throw methodNotAllowed();
    return v;
  };
  if (t.watchPath) {
    if (method !== 'GET') throw methodNotAllowed();
    return allowed('watch');
  }
  switch (method) {
    case 'GET':
      if (t.name !== undefined) return allowed('get');
      return allowed(boolParam(q, 'watch') ? 'watch' : 'list');
    case 'POST':
      // Only subresources such as serviceaccounts/<name>/token and pods/<name>/binding are created on a named object.
      if (t.name !== undefined && t.subresource === undefined) throw methodNotAllowed();
      return allowed('create');
    case 'PUT':
      if (t.name === undefined) throw methodNotAllowed();
      return allowed('update');
    case 'PATCH':
      if (t.name === undefined) throw methodNotAllowed();
      return allowed('patch');
    case 'DELETE':
      return allowed(t.name === undefined ? 'deletecollection' : 'delete');
    default:
      throw methodNotAllowed();
  }
}
