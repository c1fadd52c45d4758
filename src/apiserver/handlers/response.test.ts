import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../apimachinery/errors.ts';
import { negotiate, withApiVersion, type Render } from './response.ts';

test('negotiate picks the first clause the server can produce: a media type or a meta.k8s.io conversion', () => {
  const table: Render = { as: 'table', apiVersion: 'meta.k8s.io/v1', format: 'json' };
  const json: Render = { as: 'object', format: 'json' };
  const cases: Array<[string | undefined, Render]> = [
    [undefined, json],
    ['', json],
    ['application/json', json],
    ['*/*', json],
    ['application/yaml', { as: 'object', format: 'yaml' }],
    ['application/vnd.kubernetes.protobuf', { as: 'object', format: 'protobuf' }],
    ['application/vnd.kubernetes.protobuf, application/json', { as: 'object', format: 'protobuf' }],
    ['application/json;as=Table;v=v1;g=meta.k8s.io', table],
    ['application/json; as=Table; v=v1beta1; g=meta.k8s.io', { as: 'table', apiVersion: 'meta.k8s.io/v1beta1', format: 'json' }],
    ['application/json;as=Table;v=v1;g=meta.k8s.io, application/json', table],
    // Tables have no protobuf form: the next clause decides.
    ['application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io, application/json;as=Table;v=v1;g=meta.k8s.io', table],
    ['application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io', { as: 'metadata', format: 'json', list: false }],
    ['application/json;as=PartialObjectMetadataList;v=v1beta1;g=meta.k8s.io', { as: 'metadata', format: 'json', list: true }],
    ['application/json;as=Table;v=v2;g=meta.k8s.io, application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io', { as: 'metadata', format: 'json', list: false }],
    ['application/json;as=APIGroupDiscoveryList;v=v2;g=apidiscovery.k8s.io, application/json', json],
  ];
  for (const [header, expected] of cases) assert.deepEqual(negotiate(header), expected, String(header));
});

test('negotiate answers 406 as the router (no producible media type) or the negotiator (unknown conversion)', () => {
  const failure = (header: string, protobuf = true): string => {
    try {
      negotiate(header, { protobuf });
    } catch (err) {
      if (err instanceof StatusError) return `${err.status.code}: ${err.status.message}`;
      throw err;
    }
    return 'no failure';
  };
  assert.equal(failure('text/plain'), '406: 406: Not Acceptable');
  assert.equal(failure('application/*'), '406: 406: Not Acceptable');
  assert.equal(failure('application/json;as=Table;v=v9;g=meta.k8s.io'), '406: only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf');
  // Custom resources have no protobuf form.
  assert.equal(failure('application/vnd.kubernetes.protobuf', false), '406: only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf');
  assert.deepEqual(negotiate('application/vnd.kubernetes.protobuf, application/json', { protobuf: false }), { as: 'object', format: 'json' });
});

test('withApiVersion rewrites the leading apiVersion in place and leaves everything else byte for byte', () => {
  const stored = '{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"apiVersion":"x"}}';
  assert.equal(withApiVersion(stored, 'example.com/v1'), stored);
  assert.equal(withApiVersion(stored, 'example.com/v2'), '{"apiVersion":"example.com/v2","kind":"Widget","metadata":{"name":"w"},"spec":{"apiVersion":"x"}}');
  // Not first: decoded, set and re-encoded (the key keeps its place).
  assert.equal(withApiVersion('{"kind":"Widget","apiVersion":"example.com/v1"}', 'example.com/v2'), '{"kind":"Widget","apiVersion":"example.com/v2"}');
  assert.equal(withApiVersion('{"kind":"Widget"}', 'example.com/v2'), '{"kind":"Widget","apiVersion":"example.com/v2"}');
});
