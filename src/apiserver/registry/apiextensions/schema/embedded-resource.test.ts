import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateEmbeddedResources } from './embedded-resource.ts';
import type { JSONSchemaProps } from './json-schema-props.ts';

const schema: JSONSchemaProps = { type: 'object', properties: { template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } } };
const messages = (value: unknown): string[] => validateEmbeddedResources(schema, value, 'spec').map((e) => `${e.field}: ${e.message}`);

test('embedded resources need apiVersion and kind', () => {
  assert.deepEqual(messages({ template: {} }), ['spec.template.apiVersion: Required value: must not be empty', 'spec.template.kind: Required value: must not be empty']);
});

test("an embedded resource's kind is a DNS-1035 label but for its case, and its apiVersion a group-version", () => {
  assert.deepEqual(messages({ template: { apiVersion: 'a/b/c', kind: 'Config_Map' } }), [
    'spec.template.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
    `spec.template.kind: Invalid value: "Config_Map": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
  ]);
});

test("an embedded resource's metadata is ObjectMeta: names only need to fit a path segment, labels are checked", () => {
  assert.deepEqual(messages({ template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Bad_Name' } } }), []);
  assert.deepEqual(messages({ template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a/b' } } }), ["spec.template.metadata.name: Invalid value: \"a/b\": may not contain '/'"]);
  assert.equal(messages({ template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { labels: { 'bad key!': 'v' } } } })[0]?.startsWith('spec.template.metadata.labels: Invalid value: "bad key!": name part must consist of'), true);
});
