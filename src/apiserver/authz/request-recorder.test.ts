import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startApiServer } from '../server.ts';
import type { RecordedRequest } from './request-recorder.ts';

test('the server records each distinct request once, with the authorizer’s verb, resource, subresource, namespace, name, user and User-Agent', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'kubeloom-recorder-'));
  const file = path.join(dir, 'requests.jsonl');
  const server = await startApiServer({ recordRequestsTo: file, users: [{ name: 'alice', token: 'alice-token', groups: ['dev'] }] });
  t.after(async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });
  const call = async (method: string, p: string, userAgent: string, body?: unknown): Promise<void> => {
    const r = await fetch(`${server.url}${p}`, {
      method,
      headers: { authorization: 'Bearer alice-token', 'user-agent': userAgent, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    await r.body?.cancel();
  };
  await call('POST', '/api/v1/namespaces/default/configmaps', 'op', { metadata: { name: 'c' } });
  await call('GET', '/api/v1/namespaces/default/configmaps/c', 'op');
  await call('GET', '/api/v1/namespaces/default/configmaps/c', 'op'); // the same again: not written twice
  await call('GET', '/api/v1/configmaps?limit=1', 'op');
  await call('GET', '/apis/apps/v1/namespaces/default/deployments/d/status', 'op');
  await call('DELETE', '/api/v1/namespaces/default/configmaps', 'setup');
  await call('GET', '/healthz', 'op');
  const ac = new AbortController();
  const watch = fetch(`${server.url}/api/v1/secrets?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`, { headers: { authorization: 'Bearer alice-token', 'user-agent': 'op' }, signal: ac.signal });
  await (await watch).body?.getReader().read();
  ac.abort();
  const lines = (await readFile(file, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as RecordedRequest);
  const brief = lines.map((r) => [r.userAgent, r.verb, r.resourceRequest ? `${r.apiGroup}/${r.resource}${r.subresource === '' ? '' : `/${r.subresource}`}` : r.path, r.namespace, r.name, r.sendInitialEvents ?? false].join(' '));
  assert.deepEqual(brief, [
    'op create /configmaps default  false',
    'op get /configmaps default c false',
    'op list /configmaps   false',
    'op get apps/deployments/status default d false',
    'setup deletecollection /configmaps default  false',
    'op get /healthz   false',
    'op watch /secrets   true',
  ]);
  assert.deepEqual([lines[0]!.user, lines[0]!.groups], ['alice', ['dev', 'system:authenticated']]);
});
