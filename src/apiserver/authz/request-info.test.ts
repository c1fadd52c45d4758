import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requestInfo } from './request-info.ts';

const show = (method: string, url: string): string => {
  const u = new URL(url, 'http://x');
  const i = requestInfo(method, u.pathname, u.searchParams);
  if (!i.resourceRequest) return `nonresource ${i.verb} ${i.path}`;
  return [i.verb, i.apiGroup || '-', i.apiVersion, i.resource, i.subresource || '-', `ns=${i.namespace || '-'}`, `name=${i.name || '-'}`].join(' ');
};

test('requestInfo derives verb, group, resource, subresource, namespace and name from the path alone, as RequestInfoFactory', () => {
  const cases: Array<[string, string, string]> = [
    ['GET', '/api/v1/namespaces/ns/pods', 'list - v1 pods - ns=ns name=-'],
    ['GET', '/api/v1/namespaces/ns/pods?watch=true', 'watch - v1 pods - ns=ns name=-'],
    ['GET', '/api/v1/namespaces/ns/pods?watch=false', 'list - v1 pods - ns=ns name=-'],
    ['GET', '/api/v1/watch/namespaces/ns/pods', 'watch - v1 pods - ns=ns name=-'],
    ['GET', '/api/v1/watch/namespaces/ns/pods/p', 'watch - v1 pods - ns=ns name=p'],
    ['GET', '/api/v1/namespaces/ns/pods?fieldSelector=metadata.name%3Dp1', 'list - v1 pods - ns=ns name=p1'],
    ['GET', '/api/v1/namespaces/ns/pods?fieldSelector=metadata.name%3D%3Dp1,status.phase%3DRunning', 'list - v1 pods - ns=ns name=p1'],
    ['GET', '/api/v1/namespaces/ns/pods/p1', 'get - v1 pods - ns=ns name=p1'],
    ['GET', '/api/v1/namespaces/ns/pods/p1/log', 'get - v1 pods log ns=ns name=p1'],
    ['POST', '/api/v1/namespaces/ns/serviceaccounts/sa/token', 'create - v1 serviceaccounts token ns=ns name=sa'],
    ['PUT', '/apis/apps/v1/namespaces/ns/deployments/d/scale', 'update apps v1 deployments scale ns=ns name=d'],
    ['PATCH', '/apis/demo.io/v1/namespaces/ns/widgets/w/status', 'patch demo.io v1 widgets status ns=ns name=w'],
    ['DELETE', '/api/v1/namespaces/ns/configmaps', 'deletecollection - v1 configmaps - ns=ns name=-'],
    ['DELETE', '/api/v1/namespaces/ns', 'delete - v1 namespaces - ns=ns name=ns'],
    ['GET', '/api/v1/namespaces', 'list - v1 namespaces - ns=- name=-'],
    ['PUT', '/api/v1/namespaces/ns/finalize', 'update - v1 namespaces finalize ns=ns name=ns'],
    ['GET', '/api/v1/namespaces/ns/status', 'get - v1 namespaces status ns=ns name=ns'],
    ['GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/admin', 'get rbac.authorization.k8s.io v1 clusterroles - ns=- name=admin'],
    ['POST', '/apis/nothing.io/v9/bars', 'create nothing.io v9 bars - ns=- name=-'],
    ['GET', '/api', 'nonresource get /api'],
    ['GET', '/api/v1', 'nonresource get /api/v1'],
    ['GET', '/apis/apps/v1', 'nonresource get /apis/apps/v1'],
    ['GET', '/version', 'nonresource get /version'],
    ['POST', '/healthz', 'nonresource post /healthz'],
  ];
  for (const [method, url, expected] of cases) assert.equal(show(method, url), expected, `${method} ${url}`);
});
