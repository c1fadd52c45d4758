/**
 * The discovery client against a scripted server: partial failures, legacy and aggregated
 * discovery, its own rate limiter and timeout (client-go discovery/discovery_client.go,
 * aggregated_discovery.go, discovery/cached/memory/memcache.go).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { isForbidden, isNotFound, isServiceUnavailable } from '../apimachinery/errors.ts';
import { FakeClock } from '../util/clock/clock.ts';
import { RestClient } from '../rest/client.ts';
import { acceptDiscoveryFormats, AcceptV2, StaleGroupVersionError } from './aggregated-discovery.ts';
import { DiscoveryClient, EmptyDiscoveryResponseError, GroupDiscoveryFailedError, isGroupDiscoveryFailedError } from './discovery-client.ts';
import { RestMapper } from './rest-mapper.ts';

type Reply = { status: number; body: unknown; contentType?: string };
type Routes = Record<string, Reply | ((req: http.IncomingMessage) => Reply)>;

interface Scripted {
  url: string;
  requests: Array<{ path: string; accept: string | undefined; query: string }>;
  close(): Promise<void>;
}

async function serve(routes: Routes): Promise<Scripted> {
  const requests: Scripted['requests'] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    requests.push({ path: url.pathname, accept: req.headers.accept, query: url.search });
    const route = routes[url.pathname];
    const reply: Reply = route === undefined ? { status: 404, body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'the server could not find the requested resource' } } : typeof route === 'function' ? route(req) : route;
    res.writeHead(reply.status, { 'content-type': reply.contentType ?? 'application/json' });
    res.end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const ok = (body: unknown): Reply => ({ status: 200, body });
const status = (code: number, reason: string, message: string): Reply => ({ status: code, body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message } });
const resource = (name: string, kind: string, namespaced = true, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ name, singularName: kind.toLowerCase(), namespaced, kind, verbs: ['get', 'list'], ...extra });
const group = (name: string, ...versions: string[]): Record<string, unknown> => ({
  name,
  versions: versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v })),
  preferredVersion: { groupVersion: `${name}/${versions[0]}`, version: versions[0] },
});

/** A legacy-discovery cluster with an aggregated metrics API whose backend is down. */
const legacyCluster: Routes = {
  '/api': ok({ kind: 'APIVersions', versions: ['v1'] }),
  '/apis': ok({ kind: 'APIGroupList', apiVersion: 'v1', groups: [group('apps', 'v1'), group('metrics.k8s.io', 'v1beta1'), group('example.com', 'v1', 'v1beta1')] }),
  '/api/v1': ok({ kind: 'APIResourceList', groupVersion: 'v1', resources: [resource('pods', 'Pod', true, { shortNames: ['po'] }), resource('pods/status', 'Pod'), resource('namespaces', 'Namespace', false)] }),
  '/apis/apps/v1': ok({ kind: 'APIResourceList', groupVersion: 'apps/v1', resources: [resource('deployments', 'Deployment', true, { shortNames: ['deploy'] })] }),
  '/apis/metrics.k8s.io/v1beta1': status(503, 'ServiceUnavailable', 'the server is currently unable to handle the request'),
  '/apis/example.com/v1': ok({ kind: 'APIResourceList', groupVersion: 'example.com/v1', resources: [resource('widgets', 'Widget'), resource('gadgets', 'Gadget')] }),
  '/apis/example.com/v1beta1': ok({ kind: 'APIResourceList', groupVersion: 'example.com/v1beta1', resources: [resource('widgets', 'Widget'), resource('gizmos', 'Gizmo')] }),
};

function clientFor(s: Scripted, config: { qps?: number; burst?: number; timeoutMs?: number } = {}, clock = new FakeClock()): RestClient {
  return new RestClient({ host: s.url, ...config }, { clock, warningHandler: { handleWarning: () => undefined } });
}

test('one group version answering 503 does not hide the others: the healthy groups come with a GroupDiscoveryFailedError', async () => {
  const s = await serve(legacyCluster);
  const rest = clientFor(s, { qps: -1 });
  try {
    const discovery = new DiscoveryClient(rest);
    const { groups, resources, error } = await discovery.serverGroupsAndResources();
    assert.deepEqual(
      groups.map((g) => g.name),
      ['', 'apps', 'metrics.k8s.io', 'example.com'],
    );
    assert.deepEqual(
      resources.map((l) => l.groupVersion),
      ['v1', 'apps/v1', 'example.com/v1', 'example.com/v1beta1'],
    );
    assert.ok(isGroupDiscoveryFailedError(error));
    assert.deepEqual([...error.groups.keys()], ['metrics.k8s.io/v1beta1']);
    assert.ok(isServiceUnavailable(error.groups.get('metrics.k8s.io/v1beta1')));
    assert.equal(error.message, 'unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: the server is currently unable to handle the request');
    // The failure is transient (5xx), so it was asked again: once by the cache fill, then by each of
    // the two attempts (discovery's withRetries).
    assert.equal(s.requests.filter((r) => r.path === '/apis/metrics.k8s.io/v1beta1').length, 3);
    assert.equal(s.requests.filter((r) => r.path === '/apis/apps/v1').length, 1, 'healthy group versions come from the cache');

    const mapper = new RestMapper(discovery);
    assert.deepEqual((await mapper.restMapping({ group: 'apps', kind: 'Deployment' })).resource, { group: 'apps', version: 'v1', resource: 'deployments' });
    assert.equal((await mapper.resourceFor({ resource: 'po' })).groupVersionKind.kind, 'Pod');

    const preferred = await discovery.serverPreferredResources();
    assert.ok(preferred.error instanceof GroupDiscoveryFailedError);
    assert.deepEqual(
      preferred.resources.map((l) => [l.groupVersion, l.resources.map((r) => r.name)]),
      [
        ['v1', ['pods', 'namespaces']],
        ['apps/v1', ['deployments']],
        // widgets come from the preferred v1; gizmos exist only in v1beta1, so they come from there.
        ['example.com/v1', ['widgets', 'gadgets']],
        ['example.com/v1beta1', ['gizmos']],
      ],
    );
    const namespaced = await discovery.serverPreferredNamespacedResources();
    assert.deepEqual(namespaced.resources[0]!.resources.map((r) => r.name), ['pods']);
  } finally {
    await rest.close();
    await s.close();
  }
});

test('404 and 403 for a named group version are failures, not empty lists; a 404 for /api means no core group', async () => {
  const s = await serve({
    '/apis': ok({ kind: 'APIGroupList', groups: [group('apps', 'v1'), group('gone.example.com', 'v1'), group('secret.example.com', 'v1'), group('empty.example.com', 'v1')] }),
    '/apis/apps/v1': legacyCluster['/apis/apps/v1']!,
    '/apis/secret.example.com/v1': status(403, 'Forbidden', 'forbidden: User "x" cannot get path "/apis/secret.example.com/v1"'),
    '/apis/empty.example.com/v1': ok({ kind: 'APIResourceList', groupVersion: 'empty.example.com/v1', resources: [] }),
  });
  const rest = clientFor(s, { qps: -1 });
  try {
    const discovery = new DiscoveryClient(rest);
    const { groups, resources, error } = await discovery.serverGroupsAndResources();
    assert.deepEqual(
      groups.map((g) => g.name),
      ['apps', 'gone.example.com', 'secret.example.com', 'empty.example.com'],
    );
    assert.ok(error !== undefined);
    assert.ok(isNotFound(error.groups.get('gone.example.com/v1')));
    assert.ok(isForbidden(error.groups.get('secret.example.com/v1')));
    assert.ok(error.groups.get('empty.example.com/v1') instanceof EmptyDiscoveryResponseError);
    // An empty list is still handed out, as upstream's cache keeps it next to its error.
    assert.deepEqual(
      resources.map((l) => l.groupVersion),
      ['apps/v1', 'empty.example.com/v1'],
    );
    await assert.rejects(discovery.serverResourcesForGroupVersion('gone.example.com/v1'), (e) => isNotFound(e));
    // Not transient: asked once by the cache fill only.
    assert.equal(s.requests.filter((r) => r.path === '/apis/gone.example.com/v1').length, 1);
  } finally {
    await rest.close();
    await s.close();
  }
});

test('discovery has its own limiter (burst 300) and a 32 s timeout, sent to the server; the clientset limiter is left alone', async () => {
  const routes: Routes = {
    '/api': ok({ kind: 'APIVersions', versions: ['v1'] }),
    '/api/v1': ok({ kind: 'APIResourceList', groupVersion: 'v1', resources: [resource('pods', 'Pod')] }),
  };
  const names = Array.from({ length: 25 }, (_, i) => `g${i}.example.com`);
  routes['/apis'] = ok({ kind: 'APIGroupList', groups: names.map((n) => group(n, 'v1')) });
  for (const n of names) routes[`/apis/${n}/v1`] = ok({ kind: 'APIResourceList', groupVersion: `${n}/v1`, resources: [resource('things', 'Thing')] });
  const s = await serve(routes);
  const clock = new FakeClock();
  // Client-go's defaults: qps 5, burst 10. 27 discovery requests would need 3.4 s of tokens.
  const rest = clientFor(s, {}, clock);
  try {
    const discovery = new DiscoveryClient(rest);
    const { resources } = await discovery.serverGroupsAndResources();
    assert.equal(resources.length, 26);
    assert.equal(clock.hasWaiters(), false);
    assert.ok(s.requests.every((r) => r.query === '?timeout=32s'), 'every discovery request carries the 32 s timeout');
    // The main client still has its full burst of 10.
    const before = s.requests.length;
    await Promise.all(Array.from({ length: 10 }, () => rest.json({ verb: 'GET', path: '/api/v1', query: [], headers: {} })));
    assert.equal(s.requests.length - before, 10);
    assert.equal(clock.hasWaiters(), false);
  } finally {
    await rest.close();
    await s.close();
  }
});

test('an explicit burst and timeout are kept; an explicit qps shares the client limiter, as a clientset shares it', async () => {
  const s = await serve(legacyCluster);
  const clock = new FakeClock();
  const rest = clientFor(s, { qps: 1, burst: 2, timeoutMs: 5000 }, clock);
  try {
    const discovery = new DiscoveryClient(rest);
    assert.equal(discovery.rest.rateLimiter, rest.rateLimiter);
    const pending = discovery.serverGroups();
    // The burst of 2 is spent on /api and /apis; each group version then waits for a token.
    let done = false;
    void pending.finally(() => (done = true));
    while (s.requests.length < 2) await new Promise((r) => setImmediate(r));
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    assert.equal(s.requests.length, 2);
    let waited = 0;
    while (!done) {
      await clock.step(100);
      waited += 100;
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    }
    await pending;
    assert.equal(s.requests.length, 7);
    assert.ok(waited >= 4000, `five group versions at 1 qps took ${waited} ms`);
    assert.ok(s.requests.every((r) => r.query === '?timeout=5s'));
  } finally {
    await rest.close();
    await s.close();
  }
});

/** The same cluster as aggregated discovery documents. */
function aggregated(items: unknown[]): Reply {
  return { status: 200, contentType: AcceptV2, body: { kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {}, items } };
}
const kind = (k: string, g = '', v = ''): Record<string, string> => ({ group: g, version: v, kind: k });

test('aggregated discovery: two requests for everything; stale group versions are failures; resources without a kind are dropped', async () => {
  const s = await serve({
    '/api': aggregated([
      {
        metadata: { name: '' },
        versions: [
          {
            version: 'v1',
            freshness: 'Current',
            resources: [
              { resource: 'pods', responseKind: kind('Pod'), scope: 'Namespaced', singularResource: 'pod', verbs: ['get'], shortNames: ['po'], subresources: [{ subresource: 'status', responseKind: kind('Pod'), verbs: ['get'] }] },
              { resource: 'bindings', responseKind: kind(''), scope: 'Namespaced', singularResource: 'binding', verbs: ['create'] },
            ],
          },
        ],
      },
    ]),
    '/apis': aggregated([
      {
        metadata: { name: 'apps' },
        versions: [
          {
            version: 'v1',
            freshness: 'Current',
            resources: [{ resource: 'deployments', responseKind: kind('Deployment'), scope: 'Namespaced', singularResource: 'deployment', verbs: ['get'], subresources: [{ subresource: 'scale', responseKind: kind('Scale', 'autoscaling', 'v1'), verbs: ['get'] }] }],
          },
        ],
      },
      { metadata: { name: 'metrics.k8s.io' }, versions: [{ version: 'v1beta1', freshness: 'Stale', resources: [] }] },
    ]),
  });
  const rest = clientFor(s, { qps: -1 });
  try {
    const discovery = new DiscoveryClient(rest);
    const { groups, resources, error } = await discovery.serverGroupsAndResources();
    assert.deepEqual(
      s.requests.map((r) => [r.path, r.accept]),
      [
        ['/api', acceptDiscoveryFormats],
        ['/apis', acceptDiscoveryFormats],
      ],
    );
    assert.equal(acceptDiscoveryFormats, 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json');
    assert.deepEqual(groups, [
      { name: '', versions: [{ groupVersion: 'v1', version: 'v1' }], preferredVersion: { groupVersion: 'v1', version: 'v1' } },
      { name: 'apps', versions: [{ groupVersion: 'apps/v1', version: 'v1' }], preferredVersion: { groupVersion: 'apps/v1', version: 'v1' } },
      { name: 'metrics.k8s.io', versions: [] },
    ]);
    assert.deepEqual(resources, [
      {
        groupVersion: 'v1',
        resources: [
          { name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['get'], shortNames: ['po'] },
          { name: 'pods/status', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['get'] },
        ],
      },
      {
        groupVersion: 'apps/v1',
        resources: [
          { name: 'deployments', singularName: 'deployment', namespaced: true, kind: 'Deployment', verbs: ['get'] },
          { name: 'deployments/scale', singularName: 'deployment', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get'] },
        ],
      },
    ]);
    assert.ok(error?.groups.get('metrics.k8s.io/v1beta1') instanceof StaleGroupVersionError);
    assert.equal(error.groups.get('metrics.k8s.io/v1beta1')!.message, 'stale GroupVersion discovery: metrics.k8s.io/v1beta1');
    const mapper = new RestMapper(discovery);
    assert.deepEqual((await mapper.restMapping({ group: 'apps', kind: 'Deployment' })).resource, { group: 'apps', version: 'v1', resource: 'deployments' });
    assert.equal(s.requests.length, 2, 'nothing was fetched per group version');
  } finally {
    await rest.close();
    await s.close();
  }
});

test('a server without aggregated discovery, or with it on only one of /api and /apis, is read the legacy way; legacy: true never asks for it', async () => {
  const halfAggregated: Routes = {
    ...legacyCluster,
    '/api': aggregated([{ metadata: { name: '' }, versions: [{ version: 'v1', resources: [{ resource: 'pods', responseKind: kind('Pod'), scope: 'Namespaced', singularResource: 'pod', verbs: ['get'] }] }] }]),
  };
  for (const [routes, options] of [
    [legacyCluster, {}],
    [halfAggregated, {}],
    [legacyCluster, { legacy: true }],
  ] as const) {
    const s = await serve(routes);
    const rest = clientFor(s, { qps: -1 });
    try {
      const { resources } = await new DiscoveryClient(rest, options).serverGroupsAndResources();
      assert.ok(resources.some((l) => l.groupVersion === 'apps/v1'));
      assert.ok(s.requests.some((r) => r.path === '/api/v1'), 'core/v1 read from its own document');
      const expectedAccept = 'legacy' in options ? 'application/json' : acceptDiscoveryFormats;
      assert.equal(s.requests.find((r) => r.path === '/apis')!.accept, expectedAccept);
    } finally {
      await rest.close();
      await s.close();
    }
  }
});

test('a failed read of /apis is not cached; invalidate() drops the cache', async () => {
  let apisUp = false;
  const s = await serve({ ...legacyCluster, '/apis': () => (apisUp ? legacyCluster['/apis'] as Reply : status(500, 'InternalError', 'etcd is down')) });
  const rest = clientFor(s, { qps: -1 });
  try {
    const discovery = new DiscoveryClient(rest);
    await assert.rejects(discovery.serverGroups(), /etcd is down/);
    assert.equal(discovery.fresh(), false);
    apisUp = true;
    assert.equal((await discovery.serverGroups()).length, 4);
    assert.equal(discovery.fresh(), true);
    const reads = s.requests.length;
    await discovery.serverGroups();
    assert.equal(s.requests.length, reads);
    discovery.invalidate();
    await discovery.serverGroups();
    assert.ok(s.requests.length > reads);
  } finally {
    await rest.close();
    await s.close();
  }
});

test('a 404 for /api/v1 is an empty core list (ServerResourcesForGroupVersion tolerates it), which the cache reports as an empty response next to the other groups', async () => {
  // discovery_client.go ServerResourcesForGroupVersion: `groupVersion == "v1" && errors.IsNotFound(err)`
  // returns the empty list; memcache.go serverResourcesForGroupVersion turns an empty list into
  // emptyResponseError, which ServerGroupsAndResources reports in ErrGroupDiscoveryFailed.
  const s = await serve({
    '/api': ok({ kind: 'APIVersions', versions: ['v1'] }),
    '/apis': ok({ kind: 'APIGroupList', groups: [group('apps', 'v1')] }),
    '/apis/apps/v1': legacyCluster['/apis/apps/v1']!,
  });
  const rest = clientFor(s, { qps: -1 });
  try {
    const discovery = new DiscoveryClient(rest);
    const { groups, resources, error } = await discovery.serverGroupsAndResources();
    assert.deepEqual(groups.map((g) => g.name), ['', 'apps']);
    assert.deepEqual(resources.map((l) => [l.groupVersion, l.resources.length]), [['v1', 0], ['apps/v1', 1]]);
    assert.ok(isGroupDiscoveryFailedError(error));
    assert.deepEqual([...error.groups.keys()], ['v1']);
    assert.equal(error.message, 'unable to retrieve the complete list of server APIs: v1: received empty response for: v1');
    await assert.rejects(discovery.serverResourcesForGroupVersion('v1'), EmptyDiscoveryResponseError);
    // Not transient: /api/v1 was asked once, by the cache fill.
    assert.equal(s.requests.filter((r) => r.path === '/api/v1').length, 1);
  } finally {
    await rest.close();
    await s.close();
  }
});
