import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAccept, withApiVersion, type Render } from './response.ts';

test('parseAccept picks the first acceptable encoding and falls back to plain JSON', () => {
  const table: Render = { as: 'table', apiVersion: 'meta.k8s.io/v1' };
  const cases: Array<[string | undefined, Render]> = [
    [undefined, { as: 'object' }],
    ['', { as: 'object' }],
    ['application/json', { as: 'object' }],
    ['*/*', { as: 'object' }],
    ['application/json;as=Table;v=v1;g=meta.k8s.io', table],
    ['application/json; as=Table; v=v1beta1; g=meta.k8s.io', { as: 'table', apiVersion: 'meta.k8s.io/v1beta1' }],
    ['application/json;as=Table;v=v1;g=meta.k8s.io, application/json', table],
    ['application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io, application/json;as=Table;v=v1;g=meta.k8s.io', table],
    ['application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io', { as: 'metadata' }],
    ['application/json;as=PartialObjectMetadataList;v=v1beta1;g=meta.k8s.io', { as: 'metadata' }],
    // Unknown conversions are skipped; the next acceptable entry decides.
    ['application/json;as=Table;v=v2;g=meta.k8s.io, application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io', { as: 'metadata' }],
    ['application/json;as=Table;v=v1;g=other.io', { as: 'object' }],
    ['application/json;as=APIGroupDiscoveryList;v=v2;g=apidiscovery.k8s.io', { as: 'object' }],
    ['application/vnd.kubernetes.protobuf', { as: 'object' }],
  ];
  for (const [header, expected] of cases) assert.deepEqual(parseAccept(header), expected, String(header));
});

test('withApiVersion rewrites the leading apiVersion in place and leaves everything else byte for byte', () => {
  const stored = '{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"apiVersion":"x"}}';
  assert.equal(withApiVersion(stored, 'example.com/v1'), stored);
  assert.equal(withApiVersion(stored, 'example.com/v2'), '{"apiVersion":"example.com/v2","kind":"Widget","metadata":{"name":"w"},"spec":{"apiVersion":"x"}}');
  // Not first: decoded, set and re-encoded (the key keeps its place).
  assert.equal(withApiVersion('{"kind":"Widget","apiVersion":"example.com/v1"}', 'example.com/v2'), '{"kind":"Widget","apiVersion":"example.com/v2"}');
  assert.equal(withApiVersion('{"kind":"Widget"}', 'example.com/v2'), '{"kind":"Widget","apiVersion":"example.com/v2"}');
});
