import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StatusError, newStatus } from '../../apimachinery/errors.ts';
import { applyJsonPatch } from '../../apiserver/patch/index.ts';
import { noopLogger } from '../../tools/events/logger.ts';
import {
  AdmissionWebhook,
  createPatch,
  denied,
  generateMutatePath,
  generateValidatePath,
  multiMutatingHandler,
  multiValidatingHandler,
  withCustomDefaulter,
  withCustomValidator,
  type AdmissionRequest,
} from './index.ts';

type Obj = Record<string, unknown>;
interface Widget {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec: { size?: number; tags?: string[] };
}

const widget = (spec: Widget['spec']): Widget => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec });

function req(operation: AdmissionRequest['operation'], object: unknown, oldObject?: unknown): AdmissionRequest {
  return {
    uid: 'u-1',
    kind: { group: 'example.com', version: 'v1', kind: 'Widget' },
    resource: { group: 'example.com', version: 'v1', resource: 'widgets' },
    operation,
    userInfo: { username: 'admin' },
    object: (object ?? null) as Obj | null,
    oldObject: (oldObject ?? null) as Obj | null,
  };
}

async function serve(hook: AdmissionWebhook, t: { after(fn: () => Promise<void>): void }): Promise<(body: string, contentType?: string) => Promise<{ status: number; json: Obj }>> {
  const server: Server = createServer((rq, rs) => void hook.serveHTTP(rq, rs));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => server.close(() => r())));
  const port = (server.address() as AddressInfo).port;
  return (body, contentType = 'application/json') =>
    new Promise((resolve, reject) => {
      const rq = request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers: contentType === '' ? {} : { 'content-type': contentType } }, (rs) => {
        let text = '';
        rs.setEncoding('utf8');
        rs.on('data', (c: string) => (text += c));
        rs.on('end', () => resolve({ status: rs.statusCode ?? 0, json: JSON.parse(text) as Obj }));
      });
      rq.on('error', reject);
      rq.end(body);
    });
}

test('createPatch produces RFC 6902 operations that turn the original into the current document', () => {
  const cases: [unknown, unknown][] = [
    [{ a: 1, b: { c: [1, 2, 3] } }, { a: 2, b: { c: [1, 5] }, d: 'x' }],
    [{ a: [1] }, { a: [1, 2, 3] }],
    [{ 'we/ird~key': 1, keep: true }, { 'we/ird~key': 2 }],
    [{ spec: { x: null } }, { spec: { x: { y: 1 } } }],
    [[1, 2], { a: 1 }],
  ];
  for (const [a, b] of cases) assert.deepEqual(applyJsonPatch(structuredClone(a), createPatch(a, b)), b);
  assert.deepEqual(createPatch({ a: 1, b: [1] }, { b: [1], a: 1 }), []);
  assert.deepEqual(createPatch({ m: { 'a/b': 1 } }, { m: { 'a/b': 2 } }), [{ op: 'replace', path: '/m/a~1b', value: 2 }]);
  assert.deepEqual(createPatch({ l: [1, 2, 3] }, { l: [1] }), [
    { op: 'remove', path: '/l/2' },
    { op: 'remove', path: '/l/1' },
  ]);
});

test('a defaulter mutates a copy and the answer is the JSONPatch from the received object; DELETE is admitted untouched', async () => {
  let seen: Widget | undefined;
  const hook = new AdmissionWebhook(
    withCustomDefaulter<Widget>({
      default(w) {
        seen = w;
        w.spec.size ??= 3;
        w.metadata.labels = { ...w.metadata.labels, defaulted: 'true' };
      },
    }),
  );
  const original = widget({ tags: ['a'] });
  const r = await hook.handle(req('CREATE', original));
  assert.notEqual(seen, original, 'the defaulter gets a copy');
  assert.deepEqual(original, widget({ tags: ['a'] }), 'the request is left alone');
  assert.equal(r.allowed, true);
  assert.deepEqual(r.patches, [
    { op: 'add', path: '/metadata/labels', value: { defaulted: 'true' } },
    { op: 'add', path: '/spec/size', value: 3 },
  ]);
  assert.deepEqual(await hook.handle(req('DELETE', null, original)), { allowed: true, result: { code: 200 } });
  const unchanged = await hook.handle(req('CREATE', { ...widget({ size: 1 }), metadata: { name: 'w', labels: { defaulted: 'true' } } }));
  assert.deepEqual(unchanged.patches, []);
});

test('defaulter errors deny: a StatusError keeps its Status, any other error is 403 Forbidden with its message', async () => {
  const invalid = new StatusError({ ...newStatus(422, 'Invalid', 'Widget "w" is invalid: spec.size: Invalid value: -1'), details: { name: 'w', kind: 'Widget', causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: -1', field: 'spec.size' }] } });
  const hook = new AdmissionWebhook(
    withCustomDefaulter<Widget>({
      default(w) {
        if (w.spec.size === -1) throw invalid;
        throw new Error('no defaults today');
      },
    }),
  );
  const a = await hook.handle(req('CREATE', widget({ size: -1 })));
  assert.equal(a.allowed, false);
  assert.equal(a.result?.code, 422);
  assert.deepEqual(a.result?.details?.causes, [{ reason: 'FieldValueInvalid', message: 'Invalid value: -1', field: 'spec.size' }]);
  assert.deepEqual(await hook.handle(req('CREATE', widget({}))), { allowed: false, result: { code: 403, reason: 'Forbidden', message: 'no defaults today' } });
  assert.deepEqual(await hook.handle(req('CREATE', null)), { allowed: false, result: { code: 400, message: 'there is no content to decode' } });
});

test('a validator sees create, update (old and new) and delete (the old object), returns warnings, and denies by throwing', async () => {
  const calls: string[] = [];
  const hook = new AdmissionWebhook(
    withCustomValidator<Widget>({
      validateCreate(w) {
        calls.push(`create ${w.spec.size}`);
        if ((w.spec.size ?? 0) > 10) throw new Error('spec.size: too big');
        return ['size is large-ish'];
      },
      validateUpdate(oldW, newW) {
        calls.push(`update ${oldW.spec.size}->${newW.spec.size}`);
        if (newW.spec.size !== oldW.spec.size) throw Object.assign(new StatusError(newStatus(422, 'Invalid', 'spec.size: Forbidden: immutable')), { warnings: ['check the size'] });
      },
      validateDelete(w) {
        calls.push(`delete ${w.spec.size}`);
      },
    }),
  );
  assert.deepEqual(await hook.handle(req('CREATE', widget({ size: 5 }))), { allowed: true, result: { code: 200 }, warnings: ['size is large-ish'] });
  assert.deepEqual(await hook.handle(req('CREATE', widget({ size: 11 }))), { allowed: false, result: { code: 403, reason: 'Forbidden', message: 'spec.size: too big' } });
  const upd = await hook.handle(req('UPDATE', widget({ size: 2 }), widget({ size: 1 })));
  assert.deepEqual([upd.allowed, upd.result?.code, upd.result?.reason, upd.result?.message, upd.warnings], [false, 422, 'Invalid', 'spec.size: Forbidden: immutable', ['check the size']]);
  assert.equal((await hook.handle(req('DELETE', null, widget({ size: 7 })))).allowed, true);
  assert.deepEqual((await hook.handle(req('CONNECT', null))).allowed, true);
  assert.deepEqual(await hook.handle({ ...req('CREATE', widget({})), operation: 'PATCH' as 'CREATE' }), { allowed: false, result: { code: 400, message: 'unknown operation "PATCH"' } });
  assert.deepEqual(calls, ['create 5', 'create 11', 'update 1->2', 'delete 7']);
});

test('over HTTP: v1 and v1beta1 reviews are answered in their own version with the uid, a coded Status and a base64 JSONPatch', async (t) => {
  const hook = new AdmissionWebhook(withCustomDefaulter<Widget>({ default: (w) => void (w.spec.size = 1) }));
  const post = await serve(hook, t);
  for (const apiVersion of ['admission.k8s.io/v1', 'admission.k8s.io/v1beta1']) {
    const { status, json } = await post(JSON.stringify({ apiVersion, kind: 'AdmissionReview', request: req('CREATE', widget({})) }));
    assert.equal(status, 200);
    const response = json.response as Obj;
    assert.deepEqual({ ...json, response: { ...response, patch: undefined } }, { apiVersion, kind: 'AdmissionReview', response: { uid: 'u-1', allowed: true, status: { metadata: {}, code: 200 }, patch: undefined, patchType: 'JSONPatch' } });
    assert.deepEqual(JSON.parse(Buffer.from(response.patch as string, 'base64').toString()), [{ op: 'add', path: '/spec/size', value: 1 }]);
  }
});

test('over HTTP: bad requests get errored 400 answers without uid, apiVersion or kind, and a throwing handler a 500 answer', async (t) => {
  const post = await serve(
    new AdmissionWebhook(
      (r) => {
        if (r.name === 'boom') throw new TypeError('cannot read properties of undefined');
        return denied('nope');
      },
      { logger: noopLogger },
    ),
    t,
  );
  const bad = async (body: string, contentType?: string): Promise<Obj> => {
    const { status, json } = await post(body, contentType);
    assert.equal(status, 200);
    return json.response as Obj;
  };
  assert.deepEqual(await bad('{}', 'text/plain'), { uid: '', allowed: false, status: { metadata: {}, message: 'contentType=text/plain, expected application/json', code: 400 } });
  assert.deepEqual(await bad(''), { uid: '', allowed: false, status: { metadata: {}, message: 'request body is empty', code: 400 } });
  assert.match(((await bad('{nope')).status as Obj).message as string, /^couldn't get version\/kind; json parse error: /);
  assert.deepEqual(((await bad(JSON.stringify({ apiVersion: 'admission.k8s.io/v2', kind: 'AdmissionReview', request: {} }))).status as Obj).message, 'no kind "AdmissionReview" is registered for version "admission.k8s.io/v2"');
  // Errors before the handler runs carry no apiVersion or kind (upstream's writeResponse).
  assert.deepEqual(Object.keys((await post('{}', 'text/plain')).json), ['response']);
  // A review without a request reaches the handler with an empty one, as upstream's decoder leaves it.
  assert.deepEqual((await post(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }))).json, {
    kind: 'AdmissionReview',
    apiVersion: 'admission.k8s.io/v1',
    response: { uid: '', allowed: false, status: { metadata: {}, message: 'nope', reason: 'Forbidden', code: 403 } },
  });
  const denial = await bad(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: req('CREATE', widget({})) }));
  assert.deepEqual(denial, { uid: 'u-1', allowed: false, status: { metadata: {}, message: 'nope', reason: 'Forbidden', code: 403 } });
  const boom = await bad(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { ...req('CREATE', widget({})), name: 'boom' } }));
  assert.deepEqual(boom, { uid: 'u-1', allowed: false, status: { metadata: {}, message: 'panic: cannot read properties of undefined [recovered]', code: 500 } });
});

test('multiple handlers: mutating patches are concatenated and the first denial wins; validating stops at the first denial', async () => {
  const label = (k: string) => withCustomDefaulter<Widget>({ default: (w) => void (w.metadata.labels = { ...w.metadata.labels, [k]: 'y' }) });
  const m = new AdmissionWebhook(multiMutatingHandler(label('a'), { handle: () => ({ allowed: true, warnings: ['w1'] }) }, label('b')));
  const r = await m.handle(req('CREATE', widget({})));
  assert.deepEqual(r, {
    allowed: true,
    result: { code: 200 },
    patches: [
      { op: 'add', path: '/metadata/labels', value: { a: 'y' } },
      { op: 'add', path: '/metadata/labels', value: { b: 'y' } },
    ],
    warnings: ['w1'],
  });
  let third = false;
  const v = new AdmissionWebhook(multiValidatingHandler({ handle: () => ({ allowed: true }) }, { handle: () => denied('second says no') }, { handle: () => ((third = true), { allowed: true }) }));
  assert.deepEqual(await v.handle(req('CREATE', widget({}))), { allowed: false, result: { code: 403, reason: 'Forbidden', message: 'second says no' } });
  assert.equal(third, false);
});

test('the builder paths: /mutate-<group with dashes>-<version>-<kind>, /validate-…', () => {
  assert.equal(generateMutatePath({ group: 'batch.tutorial.kubebuilder.io', version: 'v1', kind: 'CronJob' }), '/mutate-batch-tutorial-kubebuilder-io-v1-cronjob');
  assert.equal(generateValidatePath({ group: 'batch.tutorial.kubebuilder.io', version: 'v1', kind: 'CronJob' }), '/validate-batch-tutorial-kubebuilder-io-v1-cronjob');
  assert.equal(generateMutatePath({ group: '', version: 'v1', kind: 'Pod' }), '/mutate--v1-pod');
});
