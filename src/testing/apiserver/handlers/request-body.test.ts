import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { StatusError } from '../../../apimachinery/errors.ts';
import { ResourceRegistry } from '../resources.ts';
import { checkType, decodeObject, readBody } from './request-body.ts';
import type { Obj, Target } from './scope.ts';

const ofType = (contentType: string | undefined): IncomingMessage => ({ headers: contentType === undefined ? {} : { 'content-type': contentType } }) as IncomingMessage;

/** The code and message of the Status `fn` throws. */
function failure(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof StatusError) return `${err.status.code}: ${err.status.message}`;
    throw err;
  }
  return 'no failure';
}

test('decodeObject reads JSON (also without Content-Type) and YAML, and words failures as the apiserver', () => {
  assert.deepEqual(decodeObject(ofType(undefined), Buffer.from('{"a":1}'), 'ConfigMap'), { a: 1 });
  assert.deepEqual(decodeObject(ofType('application/json; charset=utf-8'), Buffer.from('{"a":1}'), 'ConfigMap'), { a: 1 });
  assert.deepEqual(decodeObject(ofType('application/yaml'), Buffer.from('a: 1\nb: [x]\n'), 'ConfigMap'), { a: 1, b: ['x'] });
  assert.equal(
    failure(() => decodeObject(ofType('application/json'), Buffer.from('[1,2]'), 'ConfigMap')),
    "400: the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: the body is not a JSON object (5b312c325d)",
  );
  assert.equal(
    failure(() => decodeObject(ofType('application/json'), Buffer.from(''), 'Pod')),
    "400: the object provided is unrecognized (must be of type Pod): couldn't get version/kind; json parse error: Unexpected end of JSON input (<empty>)",
  );
  assert.match(failure(() => decodeObject(ofType('application/json'), Buffer.from(`{"data":"${'x'.repeat(40)}`), 'Pod')), / \(\{"data":"x{21} \.\.\.\)$/);
  assert.equal(failure(() => decodeObject(ofType('text/plain'), Buffer.from('x'), 'Pod')), '415: the body of the request was in an unknown format - accepted media types include: application/json, application/yaml');
});

test('checkType defaults kind and apiVersion and rejects another kind or group with the decoder messages', () => {
  const registry = new ResourceRegistry();
  const t: Target = { r: registry.lookup('apps', 'v1', 'deployments')!, namespace: 'default', name: undefined, subresource: undefined, watchPath: false };
  const defaulted: Obj = { spec: {} };
  checkType(registry, t, defaulted);
  assert.deepEqual(defaulted, { spec: {}, kind: 'Deployment', apiVersion: 'apps/v1', metadata: {} });
  assert.equal(
    failure(() => checkType(registry, t, { kind: 'ReplicaSet', apiVersion: 'apps/v1' })),
    '400: ReplicaSet in version "v1" cannot be handled as a Deployment: converting (v1.ReplicaSet) to (apps.Deployment): unknown conversion',
  );
  assert.equal(failure(() => checkType(registry, t, { kind: 'Deployment', apiVersion: 'extensions/v1beta1' })), '400: the API version in the data (extensions/v1beta1) does not match the expected API version (apps/v1)');
  assert.equal(failure(() => checkType(registry, t, { kind: 'Deployment', apiVersion: 'v1' })), '400: the API version in the data (v1) does not match the expected API version (apps/v1)');
});

test('readBody returns the body and answers 413 past the limit, declared or received', async () => {
  const request = (chunks: string[], contentLength?: number): IncomingMessage =>
    Object.assign(Readable.from(chunks.map((c) => Buffer.from(c))), { headers: contentLength === undefined ? {} : { 'content-length': String(contentLength) } }) as unknown as IncomingMessage;
  assert.equal((await readBody(request(['ab', 'cd']), 4)).toString(), 'abcd');
  assert.equal((await readBody(request([]), 4)).length, 0);
  for (const [req, label] of [
    [request(['ab'], 5), 'declared'],
    [request(['abc', 'de']), 'received'],
  ] as const) {
    await assert.rejects(
      readBody(req, 4),
      (err: unknown) => err instanceof StatusError && err.status.code === 413 && err.status.message === 'Request entity too large: limit is 4',
      label,
    );
  }
});
