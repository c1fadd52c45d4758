/**
 * The dynamic client's paths and its apply precondition (client-go dynamic/simple.go), against a
 * server that records what it is asked.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { RestClient } from '../rest/client.ts';
import { RequestConstructionError } from '../rest/request.ts';
import { DynamicClient } from './dynamic-client.ts';
import { ObjectClient } from './object-client.ts';

async function withServer(fn: (dyn: DynamicClient, seen: string[]) => Promise<void>): Promise<void> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(req.url!.includes('watch=true') ? '' : '{"apiVersion":"v1","kind":"Thing","metadata":{"name":"x"},"items":[]}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const rest = new RestClient({ host: `http://127.0.0.1:${port}`, qps: -1 });
  try {
    await fn(new DynamicClient(rest), seen);
  } finally {
    await rest.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const pods = { group: '', version: 'v1', resource: 'pods' };

test("namespace('') addresses the paths without a namespace, as upstream's makeURLSegments", async () => {
  await withServer(async (dyn, seen) => {
    const none = dyn.resource(pods).namespace('');
    await none.get('p');
    await none.list();
    await none.delete('p');
    await none.patch('p', 'application/merge-patch+json', {});
    await none.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } });
    await dyn.resource(pods).namespace('ns').get('p');
    assert.deepEqual(seen, ['GET /api/v1/pods/p', 'GET /api/v1/pods', 'DELETE /api/v1/pods/p', 'PATCH /api/v1/pods/p', 'POST /api/v1/pods', 'GET /api/v1/namespaces/ns/pods/p']);
  });
});

test('apply of an object that carries managedFields is refused before anything is sent', async () => {
  await withServer(async (dyn, seen) => {
    const read = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns', managedFields: [{ manager: 'kubectl', operation: 'Apply' }] }, data: { a: '1' } };
    const cms = dyn.resource({ group: '', version: 'v1', resource: 'configmaps' });
    await assert.rejects(cms.namespace('ns').apply(read, { fieldManager: 'me' }), (e) => e instanceof RequestConstructionError && /managed fields/.test(e.message));
    // dynamic/simple.go Apply's message, word for word (a Go raw string with a line break and two tabs).
    await assert.rejects(cms.namespace('ns').apply(read, { fieldManager: 'me' }), {
      message:
        'cannot apply an object with managed fields already set.\n\t\tUse the client-go/applyconfigurations "UnstructructuredExtractor" to obtain the unstructured ApplyConfiguration for the given field manager that you can use/modify here to apply',
    });
    await assert.rejects(cms.namespace('ns').applyStatus(read, { fieldManager: 'me' }), RequestConstructionError);
    await assert.rejects(cms.apply(read, { fieldManager: 'me' }), RequestConstructionError);
    await assert.rejects(new ObjectClient(dyn.rest).apply(read, { fieldManager: 'me' }), RequestConstructionError);
    assert.deepEqual(seen, []);
    // An empty list is no managed fields.
    await cms.namespace('ns').apply({ ...read, metadata: { ...read.metadata, managedFields: [] } }, { fieldManager: 'me' });
    assert.deepEqual(seen, ['PATCH /api/v1/namespaces/ns/configmaps/c?fieldManager=me']);
  });
});
