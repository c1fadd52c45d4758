/**
 * From a request line to what it asks for: the resource path parsed into a {@link Target} and the HTTP
 * method mapped onto an API verb, as the apiserver's RequestInfoFactory does. Paths that name no served
 * resource are 404, methods a resource or subresource does not support are 405.
 */
import type { Verb } from '../faults.ts';
import type { ResourceRegistry } from '../resources.ts';
import { badRequest, methodNotAllowed, resourceNotFound } from '../status.ts';
import type { Target } from './scope.ts';

/** A boolean query parameter: `true` or `1`. */
export function boolParam(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  return v === 'true' || v === '1';
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
  let group: string;
  let version: string;
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 2) {
    group = '';
    version = parts[1]!;
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 3) {
    group = parts[1]!;
    version = parts[2]!;
    rest = parts.slice(3);
  } else throw resourceNotFound();
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
  if (r.namespaced !== (namespace !== '') && !(r.namespaced && name === undefined)) throw resourceNotFound();
  const core = (resource: string): boolean => r.group === '' && r.resource === resource;
  const known =
    (subresource === 'status' && r.hasStatus) ||
    (subresource === 'scale' && r.hasScale) ||
    ((subresource === 'log' || subresource === 'binding') && core('pods')) ||
    (subresource === 'finalize' && core('namespaces')) ||
    (subresource === 'token' && core('serviceaccounts'));
  if (subresource !== undefined && !known) throw resourceNotFound();
  return { r, namespace, name, subresource, watchPath };
}

/** The API verb of a request on a target; throws 405 when the resource or subresource does not support it. */
export function verbOf(method: string, t: Target, q: URLSearchParams): Verb {
  const allowed = (v: Verb): Verb => {
    if (t.subresource === undefined && !t.r.verbs.includes(v)) throw methodNotAllowed();
    if (t.subresource === 'log' && v !== 'get') throw methodNotAllowed();
    if (t.subresource === 'token' && v !== 'create') throw methodNotAllowed();
    if ((t.subresource === 'status' || t.subresource === 'scale') && v !== 'get' && v !== 'update' && v !== 'patch') throw methodNotAllowed();
    // namespaces/finalize only updates (FinalizeREST), pods/binding only creates (BindingREST).
    if (t.subresource === 'finalize' && v !== 'update') throw methodNotAllowed();
    if (t.subresource === 'binding' && v !== 'create') throw methodNotAllowed();
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
      if (t.subresource !== undefined) throw methodNotAllowed();
      return allowed(t.name === undefined ? 'deletecollection' : 'delete');
    default:
      throw methodNotAllowed();
  }
}
