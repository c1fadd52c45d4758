import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { StatusError } from '../../apimachinery/errors.ts';
import { ResourceRegistry } from '../resources.ts';
import { checkType, decodeObject, parseBody, readBody } from './request-body.ts';
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

const registry = new ResourceRegistry();
const target = (group: string, resource: string): Target => ({ r: registry.lookup(group, 'v1', resource)!, namespace: 'default', name: undefined, subresource: undefined, watchPath: false });

test('parseBody reads JSON (also without Content-Type), YAML 1.1 and words failures as the apiserver', () => {
  assert.deepEqual(parseBody(ofType(undefined), Buffer.from('{"a":1}'), 'ConfigMap'), { a: 1 });
  assert.deepEqual(parseBody(ofType('application/json; charset=utf-8'), Buffer.from('{"a":1}'), 'ConfigMap'), { a: 1 });
  // YAML 1.1, as sigs.k8s.io/yaml: `y` is a boolean, and becomes the key "true".
  assert.deepEqual(parseBody(ofType('application/yaml'), Buffer.from('a: 1\nb: [x]\ny: n\n'), 'ConfigMap'), { a: 1, b: ['x'], true: false });
  // A repeated key merges into the first, as decoding into a Go map does.
  assert.deepEqual(parseBody(ofType('application/json'), Buffer.from('{"data":{"a":"1"},"data":{"b":"2"}}'), 'ConfigMap'), { data: { a: '1', b: '2' } });
  assert.equal(
    failure(() => parseBody(ofType('application/json'), Buffer.from('[1,2]'), 'ConfigMap')),
    '400: the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" } (5b312c325d)',
  );
  assert.equal(failure(() => parseBody(ofType('application/json'), Buffer.from(''), 'Pod')), "400: the object provided is unrecognized (must be of type Pod): couldn't get version/kind; json parse error: unexpected end of JSON input (<empty>)");
  assert.equal(failure(() => parseBody(ofType('application/json'), Buffer.from('nope'), 'Pod')), "400: the object provided is unrecognized (must be of type Pod): couldn't get version/kind; json parse error: invalid character 'o' in literal null (expecting 'u') (6e6f7065)");
  assert.match(failure(() => parseBody(ofType('application/json'), Buffer.from(`{"data":"${'x'.repeat(40)}`), 'Pod')), / \(\{"data":"x{21} \.\.\.\)$/);
  assert.equal(failure(() => parseBody(ofType('text/plain'), Buffer.from('x'), 'Pod')), '415: the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf');
  assert.equal(
    failure(() => parseBody(ofType('application/vnd.kubernetes.protobuf'), Buffer.from('hello'), 'Pod')),
    '400: the object provided is unrecognized (must be of type Pod): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] (68656c6c6f)',
  );
});

test('checkType defaults kind and apiVersion and rejects another kind or version with the decoder messages', () => {
  const t = target('apps', 'deployments');
  const defaulted: Obj = { spec: {} };
  checkType(registry, t, defaulted);
  assert.deepEqual(defaulted, { spec: {}, kind: 'Deployment', apiVersion: 'apps/v1', metadata: {} });
  assert.equal(failure(() => checkType(registry, t, { kind: 'ReplicaSet', apiVersion: 'apps/v1' })), '400: ReplicaSet in version "v1" cannot be handled as a Deployment: converting (v1.ReplicaSet) to (apps.Deployment): unknown conversion');
  // A version the scheme still knows is refused as another version; one it does not know, as unregistered.
  assert.equal(failure(() => checkType(registry, t, { kind: 'Deployment', apiVersion: 'extensions/v1beta1' })), '400: the API version in the data (extensions/v1beta1) does not match the expected API version (apps/v1)');
  assert.equal(failure(() => checkType(registry, t, { kind: 'Deployment', apiVersion: 'v1' })), '400: Deployment in version "v1" cannot be handled as a Deployment: no kind "Deployment" is registered for version "v1" in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"');
});

test('decodeObject decodes a built-in kind into its Go shape with defaults, and refuses wrong JSON types in Go\'s words', () => {
  const t = target('', 'configmaps');
  const json = (o: unknown): Buffer => Buffer.from(JSON.stringify(o));
  assert.deepEqual(decodeObject(registry, ofType('application/json'), json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', bogus: 1 }, data: { a: null }, unknown: true }), t), {
    kind: 'ConfigMap',
    apiVersion: 'v1',
    metadata: { name: 'c', creationTimestamp: null },
    data: { a: '' },
  });
  assert.equal(
    failure(() => decodeObject(registry, ofType('application/json'), json({ metadata: { name: 'c', labels: { a: 1 } } }), t)),
    '400: ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string',
  );
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
