/**
 * ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding (admission/validating-admission-policy.ts):
 * served, defaulted and validated as objects, and enforced with CEL on writes.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer, type ApiServer } from '../src/testing/index.ts';
import { call, configMap, create, type Json } from './apiserver-helpers.ts';

let server: ApiServer;
before(async () => {
  server = await startApiServer();
});
after(async () => {
  await server.stop();
});

const policies = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const bindings = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';

function deployment(name: string, replicas: number, labels: Record<string, string> = {}): Json {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  };
}

const deploymentsRule = { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] };

async function policy(name: string, spec: Json): Promise<Json> {
  return create(server, policies, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec });
}

async function binding(name: string, spec: Json): Promise<Json> {
  return create(server, bindings, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec });
}

async function ns(name: string, labels: Record<string, string> = {}): Promise<string> {
  await create(server, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
  return name;
}

test('a policy is defaulted and validated as upstream: failurePolicy Fail, matchPolicy Equivalent, expressions must compile', async () => {
  const p = await policy('defaults.example.com', { matchConstraints: { resourceRules: [deploymentsRule] }, validations: [{ expression: 'true' }] });
  assert.equal(p.spec.failurePolicy, 'Fail');
  assert.deepEqual(p.spec.matchConstraints, { resourceRules: [{ ...deploymentsRule, scope: '*' }], matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} });
  assert.equal(p.metadata.generation, 1);
  const bad = await call(server, 'POST', policies, { body: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'bad' }, spec: { matchConstraints: { resourceRules: [deploymentsRule] }, validations: [{ expression: 'object.spec.replicas >' }] } } });
  assert.equal(bad.status, 422);
  assert.equal(bad.body.details.causes[0].field, 'spec.validations[0].expression');
  assert.match(bad.body.details.causes[0].message, /compilation failed/);
  const both = await call(server, 'POST', bindings, { body: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'both' }, spec: { policyName: 'x', validationActions: ['Deny', 'Warn'] } } });
  assert.equal(both.status, 422);
});

test('Deny refuses a write whose validation fails, with the policy, binding and message; Warn adds a warning header', async () => {
  const space = await ns('vap-deny');
  await policy('replicas.example.com', {
    matchConstraints: { resourceRules: [deploymentsRule], namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': space } } },
    validations: [{ expression: 'object.spec.replicas <= 5' }, { expression: "object.metadata.name != 'forbidden'", message: 'this name is reserved', reason: 'Forbidden' }],
  });
  await binding('replicas-deny.example.com', { policyName: 'replicas.example.com', validationActions: ['Deny'] });
  const path = `/apis/apps/v1/namespaces/${space}/deployments`;
  assert.equal((await call(server, 'POST', path, { body: deployment('small', 3) })).status, 201);
  const big = await call(server, 'POST', path, { body: deployment('big', 6) });
  assert.equal(big.status, 422);
  assert.equal(big.body.reason, 'Invalid');
  const message = "ValidatingAdmissionPolicy 'replicas.example.com' with binding 'replicas-deny.example.com' denied request: failed expression: object.spec.replicas <= 5";
  assert.equal(big.body.message, `deployments.apps "big" is forbidden: ${message}`);
  assert.deepEqual(big.body.details, { name: 'big', group: 'apps', kind: 'deployments', causes: [{ message }] });
  const reserved = await call(server, 'POST', path, { body: deployment('forbidden', 1) });
  assert.equal(reserved.status, 403);
  assert.match(reserved.body.message, /denied request: this name is reserved$/);
  // An update is checked too.
  const small = (await call(server, 'GET', `${path}/small`)).body;
  assert.equal((await call(server, 'PUT', `${path}/small`, { body: { ...small, spec: { ...small.spec, replicas: 9 } } })).status, 422);
  // Elsewhere (namespaceSelector) the policy does not apply.
  const other = await ns('vap-elsewhere');
  assert.equal((await call(server, 'POST', `/apis/apps/v1/namespaces/${other}/deployments`, { body: deployment('big', 6) })).status, 201);

  // The same rule elsewhere, bound to warn only in that namespace (the binding's matchResources narrows it).
  await policy('replicas-anywhere.example.com', { matchConstraints: { resourceRules: [deploymentsRule] }, validations: [{ expression: 'object.spec.replicas <= 5' }] });
  await binding('replicas-warn.example.com', { policyName: 'replicas-anywhere.example.com', validationActions: ['Warn'], matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': other } } } });
  const warned = await call(server, 'POST', `/apis/apps/v1/namespaces/${other}/deployments`, { body: deployment('bigger', 7) });
  assert.equal(warned.status, 201);
  assert.equal(warned.headers.get('warning'), `299 - "Validation failed for ValidatingAdmissionPolicy 'replicas-anywhere.example.com' with binding 'replicas-warn.example.com': failed expression: object.spec.replicas <= 5"`);
});

test('params by name with parameterNotFoundAction, matchConditions, variables and messageExpression', async () => {
  const space = await ns('vap-params');
  await create(server, `/api/v1/namespaces/${space}/configmaps`, configMap('limits', { max: '2' }));
  await policy('max-from-params.example.com', {
    paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    matchConstraints: { resourceRules: [deploymentsRule], namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': space } } },
    matchConditions: [{ name: 'not-exempt', expression: "!has(object.metadata.labels) || !('exempt' in object.metadata.labels)" }],
    variables: [{ name: 'max', expression: 'int(params.data.max)' }],
    validations: [{ expression: 'object.spec.replicas <= variables.max', messageExpression: "'replicas must be at most ' + string(variables.max) + ' for ' + request.userInfo.username" }],
  });
  await binding('max-from-params.example.com', { policyName: 'max-from-params.example.com', validationActions: ['Deny'], paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' } });
  const path = `/apis/apps/v1/namespaces/${space}/deployments`;
  const r = await call(server, 'POST', path, { body: deployment('three', 3) });
  assert.equal(r.status, 422);
  assert.match(r.body.message, /denied request: replicas must be at most 2 for system:anonymous$/);
  assert.equal((await call(server, 'POST', path, { body: deployment('two', 2) })).status, 201);
  assert.equal((await call(server, 'POST', path, { body: deployment('exempt', 3, { exempt: 'yes' }) })).status, 201);
  // Without the params object: Deny.
  assert.equal((await call(server, 'DELETE', `/api/v1/namespaces/${space}/configmaps/limits`)).status, 200);
  const none = await call(server, 'POST', path, { body: deployment('one', 1) });
  assert.equal(none.status, 422);
  assert.match(none.body.message, /no params found for policy binding with `Deny` parameterNotFoundAction/);
});

test('failurePolicy decides what an evaluation error does; DELETE sees oldObject', async () => {
  const space = await ns('vap-errors');
  const rule = { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'DELETE'], resources: ['configmaps'] };
  const constraints = { resourceRules: [rule], namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': space } } };
  await policy('erroring-ignored.example.com', { failurePolicy: 'Ignore', matchConstraints: constraints, validations: [{ expression: "object.data.missing == 'x'" }] });
  await binding('erroring-ignored.example.com', { policyName: 'erroring-ignored.example.com', validationActions: ['Deny'] });
  assert.equal((await call(server, 'POST', `/api/v1/namespaces/${space}/configmaps`, { body: configMap('a', { k: 'v' }) })).status, 201);
  await policy('keep-protected.example.com', { matchConstraints: constraints, validations: [{ expression: "request.operation != 'DELETE' || !has(oldObject.data.protected)", message: 'protected' }] });
  await binding('keep-protected.example.com', { policyName: 'keep-protected.example.com', validationActions: ['Deny'] });
  await create(server, `/api/v1/namespaces/${space}/configmaps`, configMap('p', { protected: 'yes' }));
  const del = await call(server, 'DELETE', `/api/v1/namespaces/${space}/configmaps/p`);
  assert.equal(del.status, 422);
  assert.match(del.body.message, /^configmaps "p" is forbidden: .*denied request: protected$/);
  await policy('erroring-fails.example.com', { matchConstraints: constraints, validations: [{ expression: "object.data.missing == 'x'" }] });
  await binding('erroring-fails.example.com', { policyName: 'erroring-fails.example.com', validationActions: ['Deny'] });
  const failed = await call(server, 'POST', `/api/v1/namespaces/${space}/configmaps`, { body: configMap('b', { k: 'v' }) });
  assert.equal(failed.status, 422);
  assert.match(failed.body.message, /expression 'object.data.missing == 'x'' resulted in error/);
});
