/**
 * The RESTMapper's resolution rules (client-go restmapper/discovery.go over apimachinery's
 * DefaultRESTMapper and PriorityRESTMapper), read from a scripted discovery server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { RestClient } from '../rest/client.ts';
import { DiscoveryClient } from './discovery-client.ts';
import { NoKindMatchError, NoResourceMatchError, RestMapper } from './rest-mapper.ts';

const resource = (name: string, kind: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ name, singularName: kind.toLowerCase(), namespaced: true, kind, verbs: ['get'], ...extra });
const group = (name: string, ...versions: string[]): Record<string, unknown> => ({
  name,
  versions: versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v })),
  preferredVersion: { groupVersion: `${name}/${versions[0]}`, version: versions[0] },
});

const documents: Record<string, unknown> = {
  '/api': { kind: 'APIVersions', versions: ['v1'] },
  '/api/v1': { groupVersion: 'v1', resources: [resource('events', 'Event', { shortNames: ['ev'] }), resource('pods', 'Pod')] },
  '/apis': { groups: [group('events.k8s.io', 'v1'), group('storage.k8s.io', 'v1'), group('example.com', 'v2', 'v1'), group('broken.example.com', 'v1')] },
  '/apis/events.k8s.io/v1': { groupVersion: 'events.k8s.io/v1', resources: [resource('events', 'Event', { shortNames: ['ev'] })] },
  '/apis/storage.k8s.io/v1': { groupVersion: 'storage.k8s.io/v1', resources: [resource('storageclasses', 'StorageClass', { namespaced: false, shortNames: ['sc'] })] },
  // A resource listing its own group and version (as scale subresources do) is still mapped under the discovery group version.
  '/apis/example.com/v2': { groupVersion: 'example.com/v2', resources: [resource('widgets', 'Widget', { group: 'other.example.com', version: 'v9', singularName: '' })] },
  '/apis/example.com/v1': { groupVersion: 'example.com/v1', resources: [resource('widgets', 'Widget'), resource('oldthings', 'OldThing')] },
};

async function withMapper(fn: (mapper: RestMapper, requests: string[]) => Promise<void>): Promise<void> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const path = new URL(req.url!, 'http://x').pathname;
    requests.push(path);
    const doc = documents[path];
    res.writeHead(doc === undefined ? 503 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(doc ?? { kind: 'Status', status: 'Failure', code: 503, reason: 'ServiceUnavailable', message: 'no endpoints' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const rest = new RestClient({ host: `http://127.0.0.1:${port}`, qps: -1 });
  try {
    await fn(new RestMapper(new DiscoveryClient(rest)), requests);
  } finally {
    await rest.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

test('kinds match as written and lower-cased; versions narrow the search; the preferred version wins otherwise', async () => {
  await withMapper(async (mapper) => {
    assert.deepEqual((await mapper.restMapping({ group: 'storage.k8s.io', kind: 'StorageClass' })).resource, { group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses' });
    assert.equal((await mapper.restMapping({ group: 'storage.k8s.io', kind: 'storageclass' })).namespaced, false);
    await assert.rejects(mapper.restMapping({ group: 'storage.k8s.io', kind: 'STORAGECLASS' }), NoKindMatchError);
    assert.equal((await mapper.restMapping({ group: 'example.com', kind: 'Widget' })).resource.version, 'v2');
    assert.equal((await mapper.restMapping({ group: 'example.com', kind: 'Widget' }, ['v1'])).resource.version, 'v1');
    assert.equal((await mapper.restMapping({ group: 'example.com', kind: 'OldThing' })).resource.version, 'v1', 'a kind only an older version serves');
    const widget = await mapper.restMapping({ group: 'example.com', kind: 'Widget' });
    assert.deepEqual(widget.groupVersionKind, { group: 'example.com', version: 'v2', kind: 'Widget' }, 'mapped under the discovery group version');
    assert.equal(widget.singularName, 'widget', 'a missing singular name is guessed from the kind');
  });
});

test('NoKindMatchError says what was searched, as upstream words it', async () => {
  await withMapper(async (mapper) => {
    const messages: string[] = [];
    for (const versions of [[], ['v3'], ['v4', 'v3']]) {
      const err = await mapper.restMapping({ group: 'example.com', kind: 'Nothing' }, versions).catch((e: unknown) => e);
      assert.ok(err instanceof NoKindMatchError);
      messages.push(err.message);
    }
    assert.deepEqual(messages, [
      'no matches for kind "Nothing" in group "example.com"',
      'no matches for kind "Nothing" in version "example.com/v3"',
      'no matches for kind "Nothing" in versions ["example.com/v3" "example.com/v4"]',
    ]);
    const core = await mapper.restMapping({ group: '', kind: 'Nothing' }, ['v1']).catch((e: unknown) => e);
    assert.equal((core as Error).message, 'no matches for kind "Nothing" in version "v1"');
  });
});

test('names resolve as kubectl resolves them: core first, then discovery order; a group may be given by its prefix', async () => {
  await withMapper(async (mapper) => {
    assert.equal((await mapper.resourceFor({ resource: 'events' })).resource.group, '');
    assert.equal((await mapper.resourceFor({ resource: 'ev' })).resource.group, '');
    assert.equal((await mapper.resourceFor({ resource: 'events.events.k8s.io' })).resource.group, 'events.k8s.io');
    assert.equal((await mapper.resourceFor({ resource: 'storageclasses.storage' })).resource.group, 'storage.k8s.io');
    assert.equal((await mapper.resourceFor({ resource: 'storageclass', group: 'storage' })).resource.resource, 'storageclasses');
    assert.equal((await mapper.resourceFor({ resource: 'widgets.v1.example.com' })).resource.version, 'v1');
    await assert.rejects(mapper.resourceFor({ resource: 'storageclasses', group: 'storage', version: 'v1' }), NoResourceMatchError);
  });
});

test('a group version that fails discovery is left out; its kinds are unknown, the rest is mapped; a miss with a fresh cache does not re-run discovery (DeferredDiscoveryRESTMapper over memcache)', async () => {
  await withMapper(async (mapper, requests) => {
    assert.equal((await mapper.restMapping({ group: '', kind: 'Pod' })).resource.resource, 'pods');
    const before = requests.length;
    await assert.rejects(mapper.restMapping({ group: 'broken.example.com', kind: 'Thing' }), NoKindMatchError);
    assert.equal(requests.filter((p, i) => i >= before && p === '/apis').length, 0, 'no refresh');
    // reset() forgets the cache: the next lookup reads discovery again.
    mapper.reset();
    await mapper.restMapping({ group: '', kind: 'Pod' });
    assert.equal(requests.filter((p, i) => i >= before && p === '/apis').length, 1);
  });
});

test('with refreshOnMiss (controller-runtime\'s mapper) a miss refreshes discovery once', async () => {
  await withMapper(async (mapper, requests) => {
    const refreshing = new RestMapper(mapper.discovery, { refreshOnMiss: true });
    assert.equal((await refreshing.restMapping({ group: '', kind: 'Pod' })).resource.resource, 'pods');
    const before = requests.length;
    await assert.rejects(refreshing.restMapping({ group: 'broken.example.com', kind: 'Thing' }), NoKindMatchError);
    assert.equal(requests.filter((p, i) => i >= before && p === '/apis').length, 1, 'one refresh');
  });
});
