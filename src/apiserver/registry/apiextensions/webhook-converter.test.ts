import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { FakeClock } from '../../../util/clock/clock.ts';
import { generateServingCertificates } from '../../../webhook/certificates.ts';
import { convertWithWebhook, ConversionWebhookError, type ConversionWebhookConfig } from './webhook-converter.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

type Obj = Record<string, unknown>;

/** A webhook answering with `answer(review)`; records the reviews. */
async function webhook(t: { after(fn: () => Promise<void>): void }, answer: (review: Obj) => Obj): Promise<{ config: ConversionWebhookConfig; reviews: Obj[] }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kubeloom-conv-'));
  const certs = await generateServingCertificates({ certDir: dir, hosts: ['127.0.0.1'] });
  const reviews: Obj[] = [];
  const server: Server = createServer({ key: certs.key, cert: certs.cert }, (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const review = JSON.parse(body) as Obj;
      reviews.push(review);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer(review)));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    await rm(dir, { recursive: true, force: true });
  });
  const port = (server.address() as AddressInfo).port;
  return { config: { crdName: 'widgets.example.com', clientConfig: { url: `https://127.0.0.1:${port}/convert`, caBundle: certs.caBundle }, conversionReviewVersions: ['v1'] }, reviews };
}

const ctx = { clock: new FakeClock(), resolveService: () => undefined };
const widget = (v: string, name: string, extra: Obj = {}): Obj => ({ apiVersion: `example.com/${v}`, kind: 'Widget', metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: '5', labels: { a: '1' } }, ...extra });

// A converter that bumps the version and lets a test change the answer.
function answerWith(edit: (o: Obj) => Obj = (o) => o) {
  return (review: Obj): Obj => {
    const request = review.request as { uid: string; desiredAPIVersion: string; objects: Obj[] };
    return { apiVersion: review.apiVersion, kind: 'ConversionReview', response: { uid: request.uid, result: { status: 'Success' }, convertedObjects: request.objects.map((o) => edit({ ...o, apiVersion: request.desiredAPIVersion })) } };
  };
}

test('convertWithWebhook sends only objects not yet in the desired version, keeps the order, and converts empty objects without a call', async (t) => {
  const hook = await webhook(t, answerWith());
  const objects = [widget('v1', 'a'), widget('v2', 'b'), widget('v1', 'c')];
  const out = await convertWithWebhook(hook.config, objects, 'example.com/v2', ctx, 'example.com/v1, Kind=WidgetList');
  assert.deepEqual(out.map((o) => [(o.metadata as Obj).name, o.apiVersion]), [['a', 'example.com/v2'], ['b', 'example.com/v2'], ['c', 'example.com/v2']]);
  assert.equal(hook.reviews.length, 1);
  const request = hook.reviews[0]!.request as Obj;
  assert.deepEqual((request.objects as Obj[]).map((o) => (o.metadata as Obj).name), ['a', 'c']);
  assert.deepEqual(hook.reviews[0]!.response, { uid: '', convertedObjects: null, result: { metadata: {} } });
  assert.deepEqual(await convertWithWebhook(hook.config, [{ apiVersion: 'example.com/v1', kind: 'Widget' }], 'example.com/v2', ctx), [{ apiVersion: 'example.com/v2', kind: 'Widget' }]);
  assert.equal(hook.reviews.length, 1);
});

test('convertWithWebhook takes labels and annotations from the answer and every other metadata field from the object sent', async (t) => {
  const hook = await webhook(
    t,
    answerWith((o) => ({ ...o, metadata: { ...(o.metadata as Obj), resourceVersion: '99', labels: { b: '2' }, annotations: { note: 'x' }, generation: 7 }, spec: { converted: true } })),
  );
  const [out] = await convertWithWebhook(hook.config, [widget('v1', 'a')], 'example.com/v2', ctx);
  assert.deepEqual(out, { apiVersion: 'example.com/v2', kind: 'Widget', metadata: { name: 'a', namespace: 'ns', uid: 'uid-a', resourceVersion: '5', labels: { b: '2' }, annotations: { note: 'x' } }, spec: { converted: true } });
});

test('convertWithWebhook refuses answers that rename, re-kind, drop objects or carry non-string labels, with kube-apiserver messages', async (t) => {
  const cases: [string, (o: Obj) => Obj, string][] = [
    ['name', (o) => ({ ...o, metadata: { ...(o.metadata as Obj), name: 'other' } }), 'conversion webhook for example.com/v1, Kind=Widget returned invalid object: must have the same name: a != other'],
    ['kind', (o) => ({ ...o, kind: 'Gadget' }), 'conversion webhook for example.com/v1, Kind=Widget returned invalid object at index 0: invalid kind (expected Widget, received Gadget)'],
    ['label', (o) => ({ ...o, metadata: { ...(o.metadata as Obj), labels: { n: 1 } } }), 'conversion webhook for example.com/v1, Kind=Widget returned invalid metadata: metadata.labels[n] must be a string, but is float64 in converted object'],
  ];
  for (const [name, edit, message] of cases) {
    const hook = await webhook(t, answerWith(edit));
    await assert.rejects(convertWithWebhook(hook.config, [widget('v1', 'a')], 'example.com/v2', ctx), (e: unknown) => e instanceof ConversionWebhookError && e.message === message, name);
  }
  const empty = await webhook(t, (review) => ({ ...answerWith()(review), response: { uid: (review.request as Obj).uid, result: { status: 'Success' }, convertedObjects: [] } }));
  await assert.rejects(convertWithWebhook(empty.config, [widget('v1', 'a'), widget('v1', 'b')], 'example.com/v2', ctx, 'example.com/v1, Kind=WidgetList'), {
    message: 'conversion webhook for example.com/v1, Kind=WidgetList returned 0 objects, expected 2',
  });
});

test('convertWithWebhook: v1beta1 reviews are not checked for apiVersion or uid; a review version the server does not know fails', async (t) => {
  const hook = await webhook(t, (review) => ({ response: { uid: 'whatever', result: { status: 'Success' }, convertedObjects: ((review.request as Obj).objects as Obj[]).map((o) => ({ ...o, apiVersion: 'example.com/v2' })) } }));
  const config = { ...hook.config, conversionReviewVersions: ['v1beta1', 'v1'] };
  const [out] = await convertWithWebhook(config, [widget('v1', 'a')], 'example.com/v2', ctx);
  assert.equal(out!.apiVersion, 'example.com/v2');
  assert.equal(hook.reviews[0]!.apiVersion, 'apiextensions.k8s.io/v1beta1');
  await assert.rejects(convertWithWebhook({ ...hook.config, conversionReviewVersions: ['v2'] }, [widget('v1', 'a')], 'example.com/v2', ctx), { message: 'no supported conversion review versions' });
  await assert.rejects(convertWithWebhook(hook.config, [widget('v1', 'a')], 'example.com/v2', ctx), {
    message: 'conversion webhook for example.com/v1, Kind=Widget failed: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got , Kind=',
  });
});

test('convertWithWebhook gives up after the client timeout of 30 s on the server clock', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kubeloom-conv-'));
  const certs = await generateServingCertificates({ certDir: dir, hosts: ['127.0.0.1'] });
  let received!: () => void;
  const arrived = new Promise<void>((r) => (received = r));
  const server: Server = createServer({ key: certs.key, cert: certs.cert }, () => received()); // never answers
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    await rm(dir, { recursive: true, force: true });
  });
  const port = (server.address() as AddressInfo).port;
  const clock = new FakeClock();
  const config: ConversionWebhookConfig = { crdName: 'widgets.example.com', clientConfig: { url: `https://127.0.0.1:${port}/convert`, caBundle: certs.caBundle }, conversionReviewVersions: ['v1'] };
  const call = convertWithWebhook(config, [widget('v1', 'a')], 'example.com/v2', { clock, resolveService: () => undefined });
  let pending = true;
  const outcome = call.then(
    () => new Error('resolved'),
    (err: unknown) => err as Error,
  );
  void outcome.finally(() => (pending = false));
  await arrived;
  await clock.step(29_999);
  assert.equal(pending, true, 'still waiting before 30 s');
  await clock.step(1);
  assert.equal((await outcome).message, `conversion webhook for example.com/v1, Kind=Widget failed: Post "https://127.0.0.1:${port}/convert?timeout=30s": context deadline exceeded`);
});
