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
  // A denial without a reason has none in its Status (v1.24 answered the same).
  assert.deepEqual([denied.status, denied.body.message, 'reason' in denied.body], [403, 'admission webhook "guard.example.com" denied the request: forbidden key', false]);
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
    { name: 'second.example.com', clientConfig: { url: second.url, caBundle: second.caBundle }, rules: podRule, sideEffects: 'NoneOnDryRun' },
  ]));
  // v1 configurations only take side-effect-free webhooks, so dry runs reach every webhook, flagged as such.
  const some = await call(s, 'POST', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', { body: config('Mutating', 'c-some', [{ name: 'some.example.com', clientConfig: { url: first.url, caBundle: first.caBundle }, rules: podRule, sideEffects: 'Some' }]) });
  assert.equal(some.body.message, 'MutatingWebhookConfiguration.admissionregistration.k8s.io "c-some" is invalid: webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"');
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
  const dry = await call(s, 'POST', '/api/v1/namespaces/default/pods?dryRun=All', { body: pod });
  assert.equal(dry.status, 201);
  assert.deepEqual([second.reviews.at(-1).request.dryRun, second.reviews.at(-1).request.options.dryRun], [true, ['All']]);
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

// The checks below repeat requests made against kube-apiserver v1.24 with a webhook server recording what it
// was sent; the assertions are what the real server sent and answered.

test('a create is mutated before the registry names and stamps the object; validation sees the final object', async (t) => {
  const s = await startApiServer();
  const hook = await webhookServer(() => ({ allowed: true }));
  t.after(async () => {
    await s.stop();
    await hook.close();
  });
  const all = [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }];
  await install(s, config('Mutating', 'm', [{ name: 'm.example.com', clientConfig: { url: `${hook.url}/m`, caBundle: hook.caBundle }, rules: all }]));
  await install(s, config('Validating', 'v', [{ name: 'v.example.com', clientConfig: { url: `${hook.url}/v`, caBundle: hook.caBundle }, rules: all }]));
  const created = await call(s, 'POST', '/api/v1/namespaces/default/configmaps?fieldManager=fm', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-', labels: { l: '1' } }, data: { a: '1' } } });
  assert.equal(created.status, 201);
  const [mutating, validating] = hook.reviews.map((r) => r.request);
  // Mutating: no name yet (so none in the request), no uid, creationTimestamp null, managedFields already tracked.
  assert.equal(mutating.name, undefined);
  assert.deepEqual(Object.keys(mutating.object.metadata).sort(), ['creationTimestamp', 'generateName', 'labels', 'managedFields', 'namespace']);
  assert.equal(mutating.object.metadata.creationTimestamp, null);
  assert.deepEqual([mutating.object.metadata.managedFields[0].manager, mutating.options], ['fm', { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'fm' }]);
  // Validating: the object as it will be stored.
  assert.deepEqual([validating.name, validating.object.metadata.uid, validating.object.metadata.creationTimestamp], [created.body.metadata.name, created.body.metadata.uid, created.body.metadata.creationTimestamp]);
  assert.equal(validating.object.metadata.managedFields[0].manager, 'fm');
  hook.reviews.length = 0;
  // Patches are admitted with UpdateOptions; an apply that creates is a CREATE with CreateOptions.
  await call(s, 'PATCH', `/api/v1/namespaces/default/configmaps/${created.body.metadata.name}`, { body: { data: { b: '2' } }, contentType: 'application/merge-patch+json' });
  const applied = await call(s, 'PATCH', '/api/v1/namespaces/default/configmaps/c2?fieldManager=applier', { raw: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c2\ndata:\n  x: z\n', contentType: 'application/apply-patch+yaml' });
  assert.equal(applied.status, 201);
  assert.deepEqual(hook.reviews.map((r) => [r.request.operation, r.request.options.kind, r.request.options.fieldManager]), [
    ['UPDATE', 'UpdateOptions', undefined],
    ['UPDATE', 'UpdateOptions', undefined],
    ['CREATE', 'CreateOptions', 'applier'],
    ['CREATE', 'CreateOptions', 'applier'],
  ]);
  assert.equal(hook.reviews[3].request.object.metadata.managedFields[0].operation, 'Apply');
});

test('the scale subresource is admitted with autoscaling/v1 Scale objects', async (t) => {
  const s = await startApiServer();
  const hook = await webhookServer(() => ({ allowed: true }));
  t.after(async () => {
    await s.stop();
    await hook.close();
  });
  await install(s, config('Validating', 'scale', [{ name: 's.example.com', clientConfig: { url: hook.url, caBundle: hook.caBundle }, rules: [{ operations: ['*'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments/scale'] }] }]));
  const deployments = '/apis/apps/v1/namespaces/default/deployments';
  const d = await call(s, 'POST', deployments, { body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd1' }, spec: { replicas: 1, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } } } });
  assert.equal(hook.reviews.length, 0, 'the main resource does not match deployments/scale');
  await call(s, 'PATCH', `${deployments}/d1/scale`, { body: { spec: { replicas: 3 } }, contentType: 'application/merge-patch+json' });
  const r = hook.reviews[0].request;
  assert.deepEqual([r.kind, r.resource, r.subResource, r.requestKind, r.requestSubResource, r.operation, r.options.kind], [
    { group: 'autoscaling', version: 'v1', kind: 'Scale' },
    { group: 'apps', version: 'v1', resource: 'deployments' },
    'scale',
    { group: 'autoscaling', version: 'v1', kind: 'Scale' },
    'scale',
    'UPDATE',
    'UpdateOptions',
  ]);
  const meta = { name: 'd1', namespace: 'default', uid: d.body.metadata.uid, resourceVersion: d.body.metadata.resourceVersion, creationTimestamp: d.body.metadata.creationTimestamp };
  assert.deepEqual(r.object, { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: meta, spec: { replicas: 3 }, status: { replicas: 0, selector: 'a=b' } });
  assert.deepEqual(r.oldObject.spec, { replicas: 1 });
});

test('warnings are sent once; denials without a reason carry none; failures are worded as Go words them', async (t) => {
  const s = await startApiServer();
  const warn = await webhookServer(() => ({ allowed: true, warnings: ['first warning', 'second "quoted" warning'] }));
  const garbage = await webhookServer(() => 'this is not json');
  const beta = await webhookServer((review) => JSON.stringify({ apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: true } }));
  const badPatch = await webhookServer(() => patch([{ op: 'replace', path: '/nope/x', value: 1 }]));
  const notArray = await webhookServer(() => ({ allowed: true, patchType: 'JSONPatch', patch: Buffer.from('{"op":"add"}').toString('base64') }));
  t.after(async () => {
    await s.stop();
    for (const h of [warn, garbage, beta, badPatch, notArray]) await h.close();
  });
  const rule = (resource: string): Json[] => [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: [resource] }];
  await install(s, config('Mutating', 'mw', [
    { name: 'mw.example.com', clientConfig: { url: warn.url, caBundle: warn.caBundle }, rules: rule('configmaps') },
    { name: 'bad-patch.example.com', clientConfig: { url: badPatch.url, caBundle: badPatch.caBundle }, rules: rule('secrets') },
    { name: 'not-array.example.com', clientConfig: { url: notArray.url, caBundle: notArray.caBundle }, rules: rule('serviceaccounts') },
  ]));
  await install(s, config('Validating', 'vw', [
    { name: 'vw.example.com', clientConfig: { url: warn.url, caBundle: warn.caBundle }, rules: rule('configmaps') },
    { name: 'garbage.example.com', clientConfig: { url: garbage.url, caBundle: garbage.caBundle }, rules: rule('endpoints') },
    { name: 'beta.example.com', clientConfig: { url: beta.url, caBundle: beta.caBundle }, rules: rule('events') },
  ]));
  const warned = await call(s, 'POST', '/api/v1/namespaces/default/configmaps', { body: configMap('c1') });
  assert.equal(warned.headers.get('warning'), '299 - "first warning", 299 - "second \\"quoted\\" warning"');
  const message = async (resource: string, body: Json): Promise<string> => (await call(s, 'POST', `/api/v1/namespaces/default/${resource}`, { body })).body.message;
  assert.equal(await message('endpoints', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'e' } }), 'Internal error occurred: failed calling webhook "garbage.example.com": failed to call webhook: couldn\'t get version/kind; json parse error: json: cannot unmarshal string into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }');
  assert.equal(await message('events', { apiVersion: 'v1', kind: 'Event', metadata: { name: 'ev' }, involvedObject: {} }), 'Internal error occurred: failed calling webhook "beta.example.com": failed to call webhook: converting (v1beta1.AdmissionReview) to (v1.AdmissionReview): unknown conversion');
  assert.equal(await message('secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } }), 'Internal error occurred: replace operation does not apply: doc is missing path: /nope/x: missing value');
  assert.equal(await message('serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa' } }), 'Internal error occurred: json: cannot unmarshal object into Go value of type jsonpatch.Patch');
});

test('webhook configurations are defaulted and validated as upstream', async () => {
  const s = await startApiServer();
  try {
    const hook = (extra: Json = {}): Json => ({ name: 'v.example.com', clientConfig: { url: 'https://127.0.0.1/x' }, rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }], sideEffects: 'None', admissionReviewVersions: ['v1'], ...extra });
    const post = (webhooks: Json[]): Promise<Json> => call(s, 'POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', { body: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'cv' }, webhooks } });
    const causes = async (webhooks: Json[]): Promise<string[]> => (await post(webhooks)).body.details.causes.map((c: Json) => `${c.field}: ${c.message}`);
    assert.deepEqual(await causes([hook({ sideEffects: undefined, admissionReviewVersions: ['v2'], timeoutSeconds: 31 })]), [
      'webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun',
      'webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds',
      'webhooks[0].admissionReviewVersions: Invalid value: []string{"v2"}: must include at least one of v1, v1beta1',
    ]);
    assert.deepEqual(await causes([hook({ name: 'short', clientConfig: { url: 'http://127.0.0.1/x?a=b#f' } }), hook({ name: 'short' })]), [
      'webhooks[0].name: Invalid value: "short": should be a domain with at least three segments separated by dots',
      "webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
      'webhooks[0].clientConfig.url: Invalid value: "f": fragments are not permitted in the URL',
      'webhooks[0].clientConfig.url: Invalid value: "a=b": query parameters are not permitted in the URL',
      'webhooks[1].name: Invalid value: "short": should be a domain with at least three segments separated by dots',
      'webhooks[1].name: Duplicate value: "short"',
    ]);
    assert.deepEqual(await causes([hook({ failurePolicy: 'Maybe', rules: [{ operations: ['GET'], apiGroups: [], apiVersions: ['v1'], resources: ['pods'], scope: 'Galaxy' }], namespaceSelector: { matchExpressions: [{ key: 'a', operator: 'Nope' }] } })]), [
      'webhooks[0].rules[0].operations[0]: Unsupported value: "GET": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
      'webhooks[0].rules[0].apiGroups: Required value',
      'webhooks[0].rules[0].scope: Unsupported value: "Galaxy": supported values: "*", "Cluster", "Namespaced"',
      'webhooks[0].failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"',
      'webhooks[0].namespaceSelector.matchExpressions[0].operator: Invalid value: "Nope": not a valid selector operator',
    ]);
    const ok = await post([hook()]);
    assert.equal(ok.status, 201);
    const stored = ok.body.webhooks[0];
    assert.deepEqual([stored.failurePolicy, stored.matchPolicy, stored.namespaceSelector, stored.objectSelector, stored.timeoutSeconds, stored.rules[0].scope], ['Fail', 'Equivalent', {}, {}, 10, '*']);
  } finally {
    await s.stop();
  }
});
