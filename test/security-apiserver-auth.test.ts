/**
 * The embedded API server with a token rejects every unauthenticated request, on every path and verb:
 * discovery, resources, watches, pod logs, OpenAPI, health checks, and paths that do not exist.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { startApiServer } from '../src/testing/index.ts';

const paths = [
  '/',
  '/version',
  '/api',
  '/api/v1',
  '/apis',
  '/apis/apps',
  '/apis/apps/v1',
  '/openapi/v2',
  '/openapi/v3',
  '/openapi/v3/api/v1',
  '/healthz',
  '/livez',
  '/readyz',
  '/api/v1/namespaces',
  '/api/v1/namespaces/default',
  '/api/v1/namespaces/default/configmaps',
  '/api/v1/namespaces/default/configmaps/secret-cm',
  '/api/v1/namespaces/default/configmaps?watch=true',
  '/api/v1/watch/namespaces/default/configmaps',
  '/api/v1/namespaces/default/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true',
  '/api/v1/namespaces/default/pods/p/log',
  '/api/v1/namespaces/default/pods/p/log?follow=true',
  '/api/v1/namespaces/default/pods/p/status',
  '/apis/apps/v1/namespaces/default/deployments',
  '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
  '/api/v1/secrets',
  '/does/not/exist',
  '/api/v1/namespaces/default/configmaps/../../../version',
];
const verbs = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const agent = new Agent({ keepAlive: true });

/** One raw request; resolves with the status and body (never follows streams beyond the head). */
function raw(url: string, method: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const body = method === 'GET' || method === 'HEAD' || method === 'OPTIONS' ? undefined : '{"metadata":{"name":"x"}}';
  const bodyHeaders: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method, agent, headers: { ...headers, ...bodyHeaders } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      // A stream that was wrongly let through would never end: stop after the head.
      if (res.statusCode === 200) {
        resolve({ status: 200, body: '' });
        res.destroy();
      }
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('every path and verb without the right bearer token gets 401 and leaks nothing', async () => {
  const server = await startApiServer({ token: 'the-SECRET', tls: false });
  try {
    // Something to protect, created with the token.
    const ok = await raw(server.url, 'POST', '/api/v1/namespaces/default/configmaps', { authorization: 'Bearer the-SECRET' });
    assert.equal(ok.status, 201);
    server.setPodLogs('default', 'p', ['log line']);
    const wrongCredentials: Array<Record<string, string>> = [
      {},
      { authorization: '' },
      { authorization: 'Bearer' },
      { authorization: 'Bearer ' },
      { authorization: 'Bearer wrong' },
      { authorization: 'Bearer the-SECRE' },
      { authorization: 'Bearer the-SECRETx' },
      { authorization: 'Bearer  the-SECRET' },
      { authorization: 'Basic dGhlLVNFQ1JFVA==' },
      { authorization: 'the-SECRET' },
      { 'x-authorization': 'Bearer the-SECRET' },
    ];
    // Every path and verb without credentials and with a wrong token; every malformed header on a few.
    const cases: Array<[string, string, Record<string, string>]> = [];
    for (const path of paths) for (const verb of verbs) for (const headers of wrongCredentials.slice(0, 5)) cases.push([verb, path, headers]);
    for (const path of ['/version', '/api/v1/namespaces/default/configmaps?watch=true', '/api/v1/namespaces/default/pods/p/log']) {
      for (const verb of ['GET', 'POST']) for (const headers of wrongCredentials.slice(5)) cases.push([verb, path, headers]);
    }
    let checked = 0;
    for (const [verb, path, headers] of cases) {
      const r = await raw(server.url, verb, path, headers);
      const what = `${verb} ${path} ${JSON.stringify(headers)}`;
      assert.equal(r.status, 401, what);
      if (verb !== 'HEAD') {
        const status = JSON.parse(r.body) as { kind: string; code: number; reason: string };
        assert.deepEqual([status.kind, status.code, status.reason], ['Status', 401, 'Unauthorized'], what);
        assert.doesNotMatch(r.body, /SECRET|log line|secret-cm/, what);
      }
      checked++;
    }
    assert.equal(checked, cases.length);
  } finally {
    agent.destroy();
    await server.stop();
  }
});
