/**
 * The paths that name no resource: /version, the health checks, discovery (/api, /apis, group and
 * group-version documents) and OpenAPI v3. Anything outside /api and /apis is 404.
 */
import type { ServerResponse } from 'node:http';
import { aggregatedApi, aggregatedApis, aggregatedDiscoveryContentType, apiGroup, apiGroupList, apiResourceList, apiVersions, serverVersion, wantsAggregatedDiscovery } from '../discovery.ts';
import { openApiV3GroupVersion, openApiV3Root } from '../openapi.ts';
import type { ResourceRegistry } from '../resources.ts';
import { methodNotAllowed, resourceNotFound } from '../status.ts';
import { send } from './response.ts';
import type { Obj } from './scope.ts';

/**
 * Answers a non-resource path and returns true, or returns false for a resource path under /api or
 * /apis. `serverAddress` is what /api reports in serverAddressByClientCIDRs; `accept` selects
 * aggregated discovery at /api and /apis.
 */
export function serveNonResource(registry: ResourceRegistry, serverAddress: string, method: string, path: string, res: ServerResponse, accept?: string): boolean {
  const answer = (o: Obj | undefined): boolean => {
    if (method !== 'GET') throw methodNotAllowed();
    if (o === undefined) throw resourceNotFound();
    send(res, 200, JSON.stringify(o));
    return true;
  };
  if (path === '/version') return answer({ ...serverVersion });
  if (path === '/healthz' || path === '/livez' || path === '/readyz') {
    send(res, 200, 'ok', 'text/plain; charset=utf-8');
    return true;
  }
  if ((path === '/api' || path === '/apis') && method === 'GET' && wantsAggregatedDiscovery(accept)) {
    send(res, 200, JSON.stringify(path === '/api' ? aggregatedApi(registry) : aggregatedApis(registry)), aggregatedDiscoveryContentType);
    return true;
  }
  if (path === '/api') return answer(apiVersions(serverAddress));
  if (path === '/apis') return answer(apiGroupList(registry));
  if (path === '/api/v1') return answer(apiResourceList(registry, '', 'v1'));
  const parts = path.split('/').filter((s) => s !== '');
  if (path === '/openapi/v3') return answer(openApiV3Root(registry));
  if (parts[0] === 'openapi' && parts[1] === 'v3') {
    if (parts[2] === 'api' && parts.length === 4) return answer(openApiV3GroupVersion(registry, '', parts[3]!));
    if (parts[2] === 'apis' && parts.length === 5) return answer(openApiV3GroupVersion(registry, parts[3]!, parts[4]!));
    throw resourceNotFound();
  }
  if (parts[0] === 'apis' && parts.length === 2) return answer(apiGroup(registry, parts[1]!));
  if (parts[0] === 'apis' && parts.length === 3) return answer(apiResourceList(registry, parts[1]!, parts[2]!));
  if (parts[0] !== 'api' && parts[0] !== 'apis') throw resourceNotFound();
  return false;
}
