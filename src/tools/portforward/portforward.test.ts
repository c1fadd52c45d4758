import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PortForwardError, buildPortForward, parsePortSpec } from './portforward.ts';

test('port specs parse as kubectl parses them', () => {
  assert.deepEqual(parsePortSpec('8080:80'), { local: 8080, remote: 80 });
  assert.deepEqual(parsePortSpec('80'), { local: 80, remote: 80 });
  assert.deepEqual(parsePortSpec(':80'), { local: 0, remote: 80 });
  assert.deepEqual(parsePortSpec({ local: 0, remote: 443 }), { local: 0, remote: 443 });
  for (const bad of ['a:80', '80:', '1:2:3', '70000', '80:0', '-1:80']) assert.throws(() => parsePortSpec(bad), PortForwardError, bad);
  assert.throws(() => parsePortSpec({ local: 1, remote: 0 }), PortForwardError);
});

test('the port-forward request is a GET of the pod portforward subresource', () => {
  assert.deepEqual(buildPortForward('ns', 'web'), { verb: 'GET', path: '/api/v1/namespaces/ns/pods/web/portforward', query: [], headers: {} });
});
