import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../apimachinery/errors.ts';
import { ResourceRegistry } from '../resources.ts';
import { route, verbOf } from './request-info.ts';
import type { Target } from './scope.ts';

const registry = new ResourceRegistry();

/** The outcome of a call as one comparable line: its result, or the code and message of the Status it threw. */
function outcome<T>(fn: () => T, show: (v: T) => string): string {
  try {
    return show(fn());
  } catch (err) {
    if (err instanceof StatusError) return `${err.status.code}: ${err.status.message}`;
    throw err;
  }
}

const showTarget = (t: Target): string =>
  [`${t.r.group === '' ? 'core' : t.r.group}/${t.r.version}/${t.r.resource}`, `ns=${t.namespace}`, `name=${t.name ?? '-'}`, `sub=${t.subresource ?? '-'}`, t.watchPath ? 'watch-path' : ''].join(' ').trim();

const notFound = '404: the server could not find the requested resource';
// What the mux answers for paths that are no resource path at all (discovery serves /api and /apis/<group> before routing).
const pageNotFound = '404: 404 page not found';
const notAllowed = '405: the server does not allow this method on the requested resource';

test('route resolves resource paths to resource, namespace, name and subresource, and 404s what is not served', () => {
  const cases: Array<[string, string]> = [
    ['/api/v1/pods', 'core/v1/pods ns= name=- sub=-'],
    ['/api/v1/namespaces/default/pods', 'core/v1/pods ns=default name=- sub=-'],
    ['/api/v1/namespaces/default/pods/p1', 'core/v1/pods ns=default name=p1 sub=-'],
    ['/api/v1/namespaces/default/pods/p1/status', 'core/v1/pods ns=default name=p1 sub=status'],
    ['/api/v1/namespaces/default/pods/p1/log', 'core/v1/pods ns=default name=p1 sub=log'],
    ['/api/v1/watch/namespaces/default/pods', 'core/v1/pods ns=default name=- sub=- watch-path'],
    ['/api/v1/namespaces', 'core/v1/namespaces ns= name=- sub=-'],
    ['/api/v1/namespaces/kube-system', 'core/v1/namespaces ns= name=kube-system sub=-'],
    ['/api/v1/namespaces/kube-system/status', 'core/v1/namespaces ns= name=kube-system sub=status'],
    ['/api/v1/nodes/n1', 'core/v1/nodes ns= name=n1 sub=-'],
    ['/apis/apps/v1/namespaces/default/deployments/d1/scale', 'apps/v1/deployments ns=default name=d1 sub=scale'],
    ['/api/v1/namespaces/default/configmaps/a%2Fb', 'core/v1/configmaps ns=default name=a/b sub=-'],
    ['/api/v1/namespaces/default/configmaps/%zz', '400: invalid escape in path segment: %zz'],
    ['/api', pageNotFound],
    ['/apis/apps', pageNotFound],
    ['/api/v2/pods', notFound],
    ['/apis/apps/v1/widgets', notFound],
    ['/api/v1/pods/p1', notFound],
    ['/api/v1/namespaces/default/nodes', notFound],
    ['/api/v1/namespaces/kube-system/finalize', 'core/v1/namespaces ns= name=kube-system sub=finalize'],
    ['/api/v1/namespaces/default/pods/p1/binding', 'core/v1/pods ns=default name=p1 sub=binding'],
    ['/api/v1/namespaces/default/configmaps/c1/binding', notFound],
    ['/api/v1/namespaces/default/configmaps/c1/log', notFound],
    ['/api/v1/namespaces/default/configmaps/c1/status', notFound],
    ['/apis/apps/v1/namespaces/default/daemonsets/d1/scale', notFound],
    ['/api/v1/namespaces/default/pods/p1/log/more', notFound],
  ];
  for (const [path, expected] of cases) assert.equal(outcome(() => route(registry, path), showTarget), expected, path);
});

test('verbOf maps methods onto verbs and answers 405 where the resource or subresource does not allow them', () => {
  const cases: Array<[string, string, string]> = [
    ['GET', '/api/v1/namespaces/default/pods/p1', 'get'],
    ['GET', '/api/v1/namespaces/default/pods', 'list'],
    ['GET', '/api/v1/namespaces/default/pods?watch=true', 'watch'],
    ['GET', '/api/v1/namespaces/default/pods?watch=1', 'watch'],
    ['GET', '/api/v1/namespaces/default/pods?watch=false', 'list'],
    ['GET', '/api/v1/watch/namespaces/default/pods', 'watch'],
    ['POST', '/api/v1/watch/namespaces/default/pods', notAllowed],
    ['POST', '/api/v1/namespaces/default/pods', 'create'],
    ['POST', '/api/v1/namespaces/default/pods/p1', notAllowed],
    ['PUT', '/api/v1/namespaces/default/pods', notAllowed],
    ['PUT', '/api/v1/namespaces/default/pods/p1', 'update'],
    ['PATCH', '/api/v1/namespaces/default/pods/p1', 'patch'],
    ['PATCH', '/api/v1/namespaces/default/pods', notAllowed],
    ['DELETE', '/api/v1/namespaces/default/pods/p1', 'delete'],
    ['DELETE', '/api/v1/namespaces/default/pods', 'deletecollection'],
    ['DELETE', '/api/v1/namespaces', notAllowed],
    ['DELETE', '/api/v1/namespaces/default/pods/p1/status', notAllowed],
    ['PUT', '/api/v1/namespaces/default/pods/p1/status', 'update'],
    ['GET', '/api/v1/namespaces/default/pods/p1/log', 'get'],
    ['PUT', '/api/v1/namespaces/default/pods/p1/log', notAllowed],
    ['PATCH', '/apis/apps/v1/namespaces/default/deployments/d1/scale', 'patch'],
    ['POST', '/api/v1/namespaces/default/pods/p1/binding', 'create'],
    ['GET', '/api/v1/namespaces/default/pods/p1/binding', notAllowed],
    ['PUT', '/api/v1/namespaces/kube-system/finalize', 'update'],
    ['GET', '/api/v1/namespaces/kube-system/finalize', notAllowed],
    ['PATCH', '/api/v1/namespaces/kube-system/finalize', notAllowed],
    ['OPTIONS', '/api/v1/namespaces/default/pods', notAllowed],
  ];
  for (const [method, pathAndQuery, expected] of cases) {
    const url = new URL(pathAndQuery, 'http://localhost');
    const t = route(registry, url.pathname);
    assert.equal(
      outcome(() => verbOf(method, t, url.searchParams), (v) => v),
      expected,
      `${method} ${pathAndQuery}`,
    );
  }
});
