import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { RestClient } from '../rest/client.ts';
import { DiscoveryClient } from './discovery-client.ts';
import { RestMapper } from './rest-mapper.ts';
import { builtinRestMappings, compareKubeVersions } from './builtin-mappings.ts';

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('versions sort as Kubernetes prefers them: GA, then beta, then alpha, higher first', () => {
  assert.deepEqual(['v1alpha1', 'v1beta1', 'v2', 'v1', 'v1beta2', 'v2alpha1'].sort(compareKubeVersions), ['v2', 'v1', 'v1beta2', 'v1beta1', 'v2alpha1', 'v1alpha1']);
});

test('the built-in mappings come from the generated table, core group first', () => {
  const mappings = builtinRestMappings();
  assert.deepEqual(mappings[0]!.groupVersionKind.group, '');
  const deployments = mappings.find((m) => m.resource.resource === 'deployments')!;
  assert.deepEqual(deployments, {
    resource: { group: 'apps', version: 'v1', resource: 'deployments' },
    groupVersionKind: { group: 'apps', version: 'v1', kind: 'Deployment' },
    namespaced: true,
    singularName: 'deployment',
    shortNames: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    categories: [],
  });
  const resourceClaims = mappings.filter((m) => m.resource.resource === 'resourceclaims').map((m) => m.resource.version);
  assert.deepEqual(resourceClaims, ['v1', 'v1beta2', 'v1beta1']);
});

test('without a reachable server the RESTMapper still maps built-in kinds and resources', async () => {
  const rest = new RestClient({ host: `http://127.0.0.1:${await closedPort()}`, qps: -1 });
  try {
    const mapper = new RestMapper(new DiscoveryClient(rest));
    const m = await mapper.restMapping({ group: 'apps', kind: 'Deployment' });
    assert.deepEqual([m.resource, m.namespaced], [{ group: 'apps', version: 'v1', resource: 'deployments' }, true]);
    assert.deepEqual(await mapper.kindFor({ resource: 'events' }), { group: '', version: 'v1', kind: 'Event' });
    assert.equal((await mapper.resourceFor({ resource: 'clusterroles' })).namespaced, false);
    // Unknown to the table: the network error surfaces, not a NoKindMatch.
    await assert.rejects(mapper.restMapping({ group: 'example.com', kind: 'Widget' }), (e: Error) => e.name !== 'NoKindMatchError');
    const strict = new RestMapper(new DiscoveryClient(rest), { offlineFallback: [] });
    await assert.rejects(strict.restMapping({ group: 'apps', kind: 'Deployment' }), (e: Error) => e.name !== 'NoKindMatchError');
  } finally {
    await rest.close();
  }
});
