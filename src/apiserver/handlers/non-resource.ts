/**
 * The paths that name no resource: the root path list, /version, the health checks (/healthz, /livez,
 * /readyz with their named checks and verbose forms), discovery (/api, /apis, group and group-version
 * documents) and OpenAPI (v2 and v3). Anything else outside /api and /apis is the mux's plain 404.
 *
 * Upstream: `apiserver/pkg/server/healthz/healthz.go`, `apiserver/pkg/server/routes`,
 * `apiserver/pkg/endpoints/discovery`.
 */
import type { ServerResponse } from 'node:http';
import { aggregatedApi, aggregatedApis, aggregatedDiscoveryContentType, apiGroup, apiGroupList, apiResourceList, apiVersions, serverVersion, wantsAggregatedDiscovery } from '../discovery.ts';
import { openApiV2, openApiV3GroupVersion, openApiV3Root, type CrdLookup } from '../openapi.ts';
import { encodeOpenApiV2, openApiV2ProtobufMediaType } from '../openapi-v2-protobuf.ts';
import type { ResourceRegistry } from '../resources.ts';
import { methodNotAllowed, pageNotFound, resourceNotFound } from '../status.ts';
import { send, sendText } from './response.ts';
import type { Obj } from './scope.ts';

// The checks this server reports: the generic server's, and the post-start hooks of what it runs.
const sharedChecks = [
  'ping',
  'log',
  'etcd',
  'poststarthook/generic-apiserver-start-informers',
  'poststarthook/start-apiextensions-informers',
  'poststarthook/start-apiextensions-controllers',
  'poststarthook/crd-informer-synced',
  'poststarthook/scheduling/bootstrap-system-priority-classes',
];

function checksOf(endpoint: string): string[] {
  if (endpoint === 'readyz') return [...sharedChecks.slice(0, 3), 'informer-sync', ...sharedChecks.slice(3), 'shutdown'];
  return sharedChecks;
}

/** GET (any method) of /healthz, /livez, /readyz, their verbose forms and named checks. */
function health(endpoint: string, check: string | undefined, q: URLSearchParams, res: ServerResponse): void {
  const checks = checksOf(endpoint);
  if (check !== undefined) {
    if (!checks.includes(check)) throw pageNotFound();
    sendText(res, 200, 'ok');
    return;
  }
  if (!q.has('verbose')) {
    sendText(res, 200, 'ok');
    return;
  }
  const excluded = new Set(q.getAll('exclude'));
  const lines = checks.map((c) => (excluded.has(c) ? `[+]${c} excluded: ok` : `[+]${c} ok`));
  sendText(res, 200, `${lines.join('\n')}\n${endpoint} check passed\n`);
}

/** The root document: every path the server serves. */
function rootPaths(registry: ResourceRegistry): Obj {
  const paths = ['/api', '/api/v1', '/apis', '/apis/'];
  for (const g of registry.groups()) {
    paths.push(`/apis/${g.name}`);
    for (const v of g.versions) paths.push(`/apis/${g.name}/${v}`);
  }
  for (const endpoint of ['healthz', 'livez', 'readyz']) {
    paths.push(`/${endpoint}`);
    for (const c of checksOf(endpoint)) paths.push(`/${endpoint}/${c}`);
  }
  paths.push('/openapi/v2', '/openapi/v3', '/openapi/v3/', '/version');
  return { paths: paths.sort() };
}

/** An OpenAPI document as kube-openapi serves it: http.ServeContent sniffs JSON as text/plain. */
function openApiAnswer(res: ServerResponse, doc: Obj): boolean {
  const body = Buffer.from(JSON.stringify(doc));
  res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': body.length });
  res.end(body);
  return true;
}

/**
 * Answers a non-resource path and returns true, or returns false for a resource path under /api or
 * /apis. `serverAddress` is what /api reports in serverAddressByClientCIDRs; `accept` selects
 * aggregated discovery at /api and /apis.
 */
export function serveNonResource(registry: ResourceRegistry, crdOf: CrdLookup, serverAddress: string, method: string, path: string, q: URLSearchParams, accept: string | undefined, res: ServerResponse): boolean {
  const answer = (o: Obj | undefined): boolean => {
    if (method !== 'GET') throw methodNotAllowed();
    if (o === undefined) throw resourceNotFound();
    send(res, 200, JSON.stringify(o));
    return true;
  };
  const parts = path.split('/').filter((s) => s !== '');
  if (parts[0] === 'healthz' || parts[0] === 'livez' || parts[0] === 'readyz') {
    health(parts[0], parts.length > 1 ? parts.slice(1).join('/') : undefined, q, res);
    return true;
  }
  if (path === '/') return answer(rootPaths(registry));
  if (path === '/version') return answer({ ...serverVersion });
  if ((path === '/api' || path === '/apis') && method === 'GET' && wantsAggregatedDiscovery(accept)) {
    send(res, 200, JSON.stringify(path === '/api' ? aggregatedApi(registry) : aggregatedApis(registry)), aggregatedDiscoveryContentType);
    return true;
  }
  if (path === '/api') return answer(apiVersions(serverAddress));
  if (path === '/apis') return answer(apiGroupList(registry));
  if (path === '/api/v1') return answer(apiResourceList(registry, '', 'v1'));
  if (path === '/openapi/v2') {
    if (method !== 'GET') throw methodNotAllowed();
    const doc = openApiV2(registry, accept, crdOf);
    // kubectl asks for the protobuf form (for client-side validation); anything else gets JSON.
    if (accept?.includes(openApiV2ProtobufMediaType) === true) {
      const body = Buffer.from(encodeOpenApiV2(doc));
      // http.ServeContent sniffs the type of the bytes it serves.
      res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': body.length });
      res.end(body);
      return true;
    }
    return openApiAnswer(res, doc);
  }
  if (path === '/openapi/v3') {
    if (method !== 'GET') throw methodNotAllowed();
    return openApiAnswer(res, openApiV3Root(registry, crdOf));
  }
  if (parts[0] === 'openapi' && parts[1] === 'v3') {
    if (method !== 'GET') throw methodNotAllowed();
    const doc = parts[2] === 'api' && parts.length === 4 ? openApiV3GroupVersion(registry, '', parts[3]!, crdOf) : parts[2] === 'apis' && parts.length === 5 ? openApiV3GroupVersion(registry, parts[3]!, parts[4]!, crdOf) : undefined;
    if (doc === undefined) {
      // The v3 handler answers an unknown group version with a bare 404.
      res.writeHead(404, { 'Content-Length': 0 });
      res.end();
      return true;
    }
    return openApiAnswer(res, doc);
  }
  if (parts[0] === 'apis' && parts.length === 2) {
    const g = apiGroup(registry, parts[1]!);
    if (g === undefined) throw pageNotFound();
    return answer(g);
  }
  if (parts[0] === 'apis' && parts.length === 3) {
    const list = apiResourceList(registry, parts[1]!, parts[2]!);
    // A built-in group answers its unknown versions itself; anything else is the mux's 404.
    if (list === undefined) throw registry.isBuiltinGroup(parts[1]!) ? resourceNotFound() : pageNotFound();
    return answer(list);
  }
  if (parts[0] === 'api' && parts.length === 2) return answer(apiResourceList(registry, '', parts[1]!));
  if (parts[0] !== 'api' && parts[0] !== 'apis') throw pageNotFound();
  return false;
}
