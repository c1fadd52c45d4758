import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorString } from '../field-errors.ts';
import { admitWebhookConfiguration, defaultWebhookConfiguration } from './webhook-configuration.ts';

const hook = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: 'v.example.com',
  clientConfig: { url: 'https://127.0.0.1/x' },
  rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  ...extra,
});
const errors = (kind: string, ...webhooks: Array<Record<string, unknown>>): string[] => (admitWebhookConfiguration('admissionregistration.k8s.io', kind, { webhooks }) ?? []).map(errorString);

test('webhook configuration defaults are the v1 ones', () => {
  const c = { webhooks: [hook({ clientConfig: { service: { namespace: 'a', name: 'b' } } })] };
  defaultWebhookConfiguration(c, true);
  assert.deepEqual(c.webhooks[0], {
    ...hook(),
    clientConfig: { service: { namespace: 'a', name: 'b', port: 443 } },
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: '*' }],
    failurePolicy: 'Fail',
    matchPolicy: 'Equivalent',
    namespaceSelector: {},
    objectSelector: {},
    timeoutSeconds: 10,
    reinvocationPolicy: 'Never',
  });
});

test('webhook configurations are validated with upstream paths and messages (recorded from kube-apiserver v1.24)', () => {
  const validating = 'validatingwebhookconfigurations';
  const cases: Array<[string, string, Record<string, unknown>, string[]]> = [
    ['a valid webhook', validating, {}, []],
    ['side effects', validating, { sideEffects: 'Some' }, ['webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"']],
    ['no review versions', validating, { admissionReviewVersions: [] }, ['webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1']],
    ['no client config', validating, { clientConfig: {} }, ['webhooks[0].clientConfig: Required value: exactly one of url or service is required']],
    ['url and service', validating, { clientConfig: { url: 'https://a/b', service: { namespace: 'a', name: 'b' } } }, ['webhooks[0].clientConfig: Required value: exactly one of url or service is required']],
    ['match policy', validating, { matchPolicy: 'Sometimes' }, ['webhooks[0].matchPolicy: Unsupported value: "Sometimes": supported values: "Equivalent", "Exact"']],
    ['reinvocation policy', 'mutatingwebhookconfigurations', { reinvocationPolicy: 'Always' }, ['webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"']],
    ['service port and path', validating, { clientConfig: { service: { namespace: 'a', name: 'b', path: 'nolead', port: 70000 } } }, [
      'webhooks[0].clientConfig.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive',
      "webhooks[0].clientConfig.service.path: Invalid value: \"nolead\": must start with a '/'",
    ]],
    ['wildcard resources', validating, { rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*', 'pods'] }] }, [
      "webhooks[0].rules[0].resources: Invalid value: []string{\"*\", \"pods\"}: if '*' is present, must not specify other resources without subresources",
    ]],
  ];
  for (const [name, kind, extra, expected] of cases) assert.deepEqual(errors(kind, hook(extra)), expected, name);
  assert.equal(admitWebhookConfiguration('', 'configmaps', {}), undefined);
});
