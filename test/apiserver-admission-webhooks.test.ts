/**
 * Admission webhooks end to end: the embedded server calls HTTPS webhook servers run by the test with
 * AdmissionReview v1, applies JSONPatch responses, refuses what validating webhooks deny with
 * upstream's messages, passes warnings on, and handles webhooks that cannot be called by failurePolicy.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { startApiServer, type ApiServer } from '../src/testing/index.ts';
import { call, configMap, type Json } from './apiserver-helpers.ts';

interface Hook {
  url: string;
  caBundle: string;
  reviews: Json[];
  close(): Promise<void>;
}

async function webhookServer(answer: (review: Json) => Json, names: string[] = ['localhost']): Promise<Hook> {
  const pems = await generate([{ name: 'commonName', value: names[0]! }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    extensions: [{ name: 'basicConstraints', cA: true }, { name: 'subjectAltName', altNames: [...names.map((n) => ({ type: 2 as const, value: n })), { type: 7 as const, ip: '127.0.0.1' }] }],
  });
  const reviews: Json[] = [];
  const server: Server = createServer({ key: pems.private, cert: pems.cert }, (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const review = JSON.parse(body);
      reviews.push({ ...review, path: req.url });
      const out = answer(review);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(typeof out === 'string' ? out : JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, ...out } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { url: `https://127.0.0.1:${port}`, caBundle: Buffer.from(pems.cert).toString('base64'), reviews, close: () => new Promise((r) => server.close(() => r())) };
}

const patch = (ops: unknown[]): Json => ({ allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') });
const cmRule = [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], scope: 'Namespaced' }];

function config(kind: 'Mutating' | 'Validating', name: string, webhooks: Json[]): Json {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: `${kind}WebhookConfiguration`, metadata: { name }, webhooks: webhooks.map((w) => ({ sideEffects: 'None', admissionReviewVersions: ['v1'], ...w })) };
}

async function install(s: ApiServer, c: Json): Promise<void> {
  const plural = c.kind === 'MutatingWebhookConfiguration' ? 'mutatingwebhookconfigurations' : 'validatingwebhookconfigurations';
  const r = await call(s, 'POST', `/apis/admissionregistration.k8s.io/v1/${plural}`, { body: c });
  assert.equal(r.status, 201, r.text);
}

test('mutating webhooks patch after defaulting, validating webhooks deny with upstream messages, warnings become headers', async (t) => {
  const s = await startApiServer();
  const mutator = await webhookServer((review) => ({ ...patch([{ op: 'add', path: '/data/stamped', value: review.request.operation }]), warnings: ['stamped by the webhook'] }));
  const validator = await webhookServer((review) => (review.request.object.data?.forbidden === undefined ? { allowed: true } : { allowed: false, status: { code: 403, message: 'forbidden key' } }));
  t.after(async () => {
    await s.stop();
    await mutator.close();
    await validator.close();
  });
  await install(s, config('Mutating', 'stamp', [{ name: 'stamp.example.com', clientConfig: { url: `${mutator.url}/mutate`, caBundle: mutator.caBundle }, rules: cmRule }]));
  await install(s, config('Validating', 'guard', [{ name: 'guard.example.com', clientConfig: { url: `${validator.url}/validate`, caBundle: validator.caBundle }, rules: cmRule }]));
  const created = await call(s, 'POST', '/api/v1/namespaces/default/configmaps', { body: configMap('c1', { a: '1' }) });
  assert.equal(created.status, 201);
  assert.deepEqual(created.body.data, { a: '1', stamped: 'CREATE' });
  assert.equal(created.headers.get('warning'), '299 - "stamped by the webhook"');
  const review = mutator.reviews[0];
  assert.equal(review.path, '/mutate?timeout=10s');
  assert.deepEqual(
    [review.apiVersion, review.kind, review.request.operation, review.request.kind, review.request.resource, review.request.namespace, review.request.name, review.request.dryRun, review.request.oldObject],
    ['admission.k8s.io/v1', 'AdmissionReview', 'CREATE', { group: '', version: 'v1', kind: 'ConfigMap' }, { group: '', version: 'v1', resource: 'configmaps' }, 'default', 'c1', false, null],
  );
  assert.equal(review.request.options.kind, 'CreateOptions');
  // The validating webhook saw the mutated object.
  assert.equal(validator.reviews[0].request.object.data.stamped, 'CREATE');
  const denied = await call(s, 'POST', '/api/v1/namespaces/default/configmaps', { body: configMap('c2', { forbidden: 'x' }) });
  assert.deepEqual([denied.status, denied.body.message, denied.body.reason], [403, 'admission webhook "guard.example.com" denied the request: forbidden key', '']);
  assert.equal((await call(s, 'GET', '/api/v1/namespaces/default/configmaps/c2')).status, 404);
  const updated = await call(s, 'PATCH', '/api/v1/namespaces/default/configmaps/c1', { contentType: 'application/merge-patch+json', body: { data: { b: '2' } } });
  assert.deepEqual(updated.body.data, { a: '1', b: '2', stamped: 'UPDATE' });
  assert.equal(mutator.reviews.at(-1).request.oldObject.data.stamped, 'CREATE');
  // Other resources are not sent to these webhooks.
  const before = mutator.reviews.length;
  await call(s, 'POST', '/api/v1/namespaces/default/secrets', { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } } });
  assert.equal(mutator.reviews.length, before);
});

test('webhooks that cannot be called fail the request under failurePolicy Fail and are skipped under Ignore', async (t) => {
  const s = await startApiServer();
  const garbage = await webhookServer(() => 'this is not json');
  const wrongUid = await webhookServer(() => ({ uid: 'nope', allowed: true }));
  const stranger = await webhookServer(() => ({ allowed: true }));
  t.after(async () => {
    await s.stop();
    await garbage.close();
    await wrongUid.close();
    await stranger.close();
  });
  const closed = await webhookServer(() => ({ allowed: true }));
  await closed.close();
  const rule = (resource: string): Json[] => [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: [resource] }];
  await install(s, config('Validating', 'broken', [
    { name: 'refused.example.com', clientConfig: { url: closed.url, caBundle: closed.caBundle }, rules: rule('configmaps'), failurePolicy: 'Fail' },
    { name: 'ignored.example.com', clientConfig: { url: closed.url, caBundle: closed.caBundle }, rules: rule('secrets'), failurePolicy: 'Ignore' },
    { name: 'garbage.example.com', clientConfig: { url: garbage.url, caBundle: garbage.caBundle }, rules: rule('serviceaccounts') },
    { name: 'uid.example.com', clientConfig: { url: wrongUid.url, caBundle: wrongUid.caBundle }, rules: rule('endpoints') },
    { name: 'ca.example.com', clientConfig: { url: stranger.url, caBundle: garbage.caBundle }, rules: rule('events') },
  ]));
  const port = new URL(closed.url).port;
  const refused = await call(s, 'POST', '/api/v1/namespaces/default/configmaps', { body: configMap('c') });
  assert.deepEqual([refused.status, refused.body.reason, refused.body.message], [500, 'InternalError', `Internal error occurred: failed calling webhook "refused.example.com": failed to call webhook: Post "https://127.0.0.1:${port}/?timeout=10s": dial tcp 127.0.0.1:${port}: connect: connection refused`]);
  assert.equal((await call(s, 'POST', '/api/v1/namespaces/default/secrets', { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } } })).status, 201);
  const bad = await call(s, 'POST', '/api/v1/namespaces/default/serviceaccounts', { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa' } } });
  assert.match(bad.body.message, /^Internal error occurred: failed calling webhook "garbage\.example\.com": failed to call webhook: couldn't get version\/kind; json parse error: /);
  const uid = await call(s, 'POST', '/api/v1/namespaces/default/endpoints', { body: { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'e' } } });
  assert.match(uid.body.message, /^Internal error occurred: failed calling webhook "uid\.example\.com": received invalid webhook response: expected response\.uid="[-0-9a-f]+", got "nope"$/);
  const ca = await call(s, 'POST', '/api/v1/namespaces/default/events', { body: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'ev' }, involvedObject: {} } });
  assert.match(ca.body.message, /failed calling webhook "ca\.example\.com": failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/\?timeout=10s": x509: certificate signed by unknown authority$/);
});

test('service references resolve through webhookServices; dry run needs side-effect-free webhooks; reinvocation IfNeeded', async (t) => {
  const svc = await webhookServer(() => patch([{ op: 'add', path: '/metadata/labels', value: { seen: 'yes' } }]), ['hooks.system.svc']);
  const order: string[] = [];
  const first = await webhookServer((review) => {
    order.push(`first:${review.request.object.metadata.labels?.second ?? '-'}`);
    return { allowed: true };
  });
  const second = await webhookServer((review) => {
    order.push('second');
    return review.request.object.metadata.labels?.second === undefined ? patch([{ op: 'add', path: '/metadata/labels/second', value: 'x' }]) : { allowed: true };
  });
  const s = await startApiServer({ webhookServices: { 'system/hooks': svc.url } });
  t.after(async () => {
    await s.stop();
    await svc.close();
    await first.close();
    await second.close();
  });
  const podRule = [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }];
  await install(s, config('Mutating', 'a-svc', [{ name: 'svc.example.com', clientConfig: { service: { namespace: 'system', name: 'hooks', path: '/label' }, caBundle: svc.caBundle }, rules: podRule }]));
  await install(s, config('Mutating', 'b-order', [
    { name: 'first.example.com', clientConfig: { url: first.url, caBundle: first.caBundle }, rules: podRule, reinvocationPolicy: 'IfNeeded' },
    { name: 'second.example.com', clientConfig: { url: second.url, caBundle: second.caBundle }, rules: podRule, sideEffects: 'Some' },
  ]));
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
  const dry = await call(s, 'POST', '/api/v1/namespaces/default/pods?dryRun=All', { body: pod });
  assert.deepEqual([dry.status, dry.body.message], [400, 'admission webhook "second.example.com" does not support dry run']);
  order.length = 0;
  const r = await call(s, 'POST', '/api/v1/namespaces/default/pods', { body: pod });
  assert.equal(r.status, 201, r.text);
  assert.deepEqual(r.body.metadata.labels, { seen: 'yes', second: 'x' });
  assert.equal(svc.reviews.at(-1).path, '/label?timeout=10s');
  // The webhook saw the defaulted pod.
  assert.equal(svc.reviews.at(-1).request.object.spec.restartPolicy, 'Always');
  // first ran, second changed the object, so first (IfNeeded) ran again and saw the change.
  assert.deepEqual(order, ['first:-', 'second', 'first:x']);
});
