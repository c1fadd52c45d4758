/**
 * GuaranteedUpdate (apiserver/pkg/storage/etcd3/store.go) end to end: an update or patch without a
 * resourceVersion precondition that loses the race against another writer runs again on the fresh object
 * (patch, managed fields, admission webhooks, validation) and succeeds; one that pins a resourceVersion
 * answers 409 Conflict. The race is made deterministic with a mutating webhook that, on its first call,
 * writes the same object through another client before it answers. In memory on one server, and on a test
 * etcd with the other writer being a second server (skipped without an etcd binary).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { startApiServer, type ApiServer } from '../src/testing/index.ts';
import { call, type Json } from './apiserver-helpers.ts';
import { etcdSkipReason, startTestEtcd, type TestEtcd } from './support/etcd.ts';

interface Racer {
  url: string;
  caBundle: string;
  /** The operations of the reviews seen, with the labels of the object under review. */
  calls: string[];
  /** The next review of `name` first writes through `write`, then answers. */
  armed: { name: string; write: () => Promise<void> } | undefined;
  close(): Promise<void>;
}

// A mutating webhook that allows everything without a patch, and can be armed to race the request it reviews.
async function racingWebhook(): Promise<Racer> {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    extensions: [{ name: 'basicConstraints', cA: true }, { name: 'subjectAltName', altNames: [{ type: 2 as const, value: 'localhost' }, { type: 7 as const, ip: '127.0.0.1' }] }],
  });
  const racer: Racer = { url: '', caBundle: Buffer.from(pems.cert).toString('base64'), calls: [], armed: undefined, close: async () => {} };
  const server: Server = createServer({ key: pems.private, cert: pems.cert }, (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      void (async () => {
        const review = JSON.parse(body) as Json;
        const labels = Object.keys(review.request.object?.metadata?.labels ?? {}).sort().join(',');
        racer.calls.push(`${review.request.operation} ${review.request.name} [${labels}]`);
        const armed = racer.armed;
        if (armed !== undefined && armed.name === review.request.name) {
          racer.armed = undefined;
          await armed.write();
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: true } }));
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  racer.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/mutate`;
  racer.close = () => new Promise((r) => server.close(() => r()));
  return racer;
}

const rules = [{ operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], scope: 'Namespaced' }];

async function installWebhook(s: ApiServer, racer: Racer): Promise<void> {
  const r = await call(s, 'POST', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', {
    body: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'racer' },
      webhooks: [{ name: 'racer.example.com', sideEffects: 'None', admissionReviewVersions: ['v1'], clientConfig: { url: racer.url, caBundle: racer.caBundle }, rules }],
    },
  });
  assert.equal(r.status, 201, r.text);
}

const path = (name: string): string => `/api/v1/namespaces/default/configmaps/${name}`;
const labelPatch = (key: string, rv?: string): Json => ({ metadata: { labels: { [key]: 'y' }, ...(rv === undefined ? {} : { resourceVersion: rv }) } });

// Each case: the request that races (on `a`), whether it pins the resourceVersion, what it answers.
interface Case {
  name: string;
  /** The ConfigMap it races on. */
  object: string;
  /** The labels it ends with when it succeeds (default: both writers'; a PUT replaces the other's). */
  labels?: string[];
  request: (a: ApiServer, current: Json) => Promise<{ status: number; body: Json; text: string }>;
  pinned: boolean;
}

const cases: Case[] = [
  { name: 'merge patch', object: 'merge', pinned: false, request: (a) => call(a, 'PATCH', path('merge'), { body: labelPatch('mine'), contentType: 'application/merge-patch+json' }) },
  { name: 'strategic merge patch', object: 'strategic', pinned: false, request: (a) => call(a, 'PATCH', path('strategic'), { body: labelPatch('mine'), contentType: 'application/strategic-merge-patch+json' }) },
  {
    name: 'server-side apply', object: 'apply',
    pinned: false,
    request: (a) => call(a, 'PATCH', `${path('apply')}?fieldManager=racer-test`, { raw: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'apply', labels: { mine: 'y' } } }), contentType: 'application/apply-patch+yaml' }),
  },
  {
    name: 'update without resourceVersion', object: 'put', labels: ['mine'],
    pinned: false,
    request: (a, current) => {
      const meta = { ...(current.metadata as Json), labels: { ...((current.metadata as Json).labels ?? {}), mine: 'y' } };
      delete meta.resourceVersion;
      return call(a, 'PUT', path('put'), { body: { ...current, metadata: meta } });
    },
  },
  { name: 'merge patch with a resourceVersion', object: 'pinned-patch', pinned: true, request: (a, current) => call(a, 'PATCH', path('pinned-patch'), { body: labelPatch('mine', (current.metadata as Json).resourceVersion as string), contentType: 'application/merge-patch+json' }) },
  {
    name: 'update with a resourceVersion', object: 'pinned-put',
    pinned: true,
    request: (a, current) => call(a, 'PUT', path('pinned-put'), { body: { ...current, metadata: { ...(current.metadata as Json), labels: { mine: 'y' } } } }),
  },
];

// Creates the object the case races on, arms the webhook so another client (`other`) labels it `theirs`
// during the review, and runs the case's request.
async function race(a: ApiServer, other: ApiServer, racer: Racer, c: Case): Promise<void> {
  const name = c.object;
  const created = await call(a, 'POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } } });
  assert.equal(created.status, 201, created.text);
  racer.calls.length = 0;
  racer.armed = {
    name,
    write: async () => {
      const r = await call(other, 'PATCH', path(name), { body: labelPatch('theirs'), contentType: 'application/merge-patch+json' });
      assert.equal(r.status, 200, r.text);
    },
  };
  const r = await c.request(a, created.body);
  if (c.pinned) {
    assert.equal(r.status, 409, r.text);
    assert.equal(r.body.reason, 'Conflict');
    assert.match(r.body.message as string, /the object has been modified/);
    return;
  }
  assert.equal(r.status, 200, `${c.name}: ${r.text}`);
  // Both writes are in: the request ran again on the object the other client had labelled.
  const labels = c.labels ?? ['mine', 'theirs'];
  const expected = Object.fromEntries(labels.map((l) => [l, 'y']));
  assert.deepEqual(r.body.metadata.labels, expected, c.name);
  const got = await call(a, 'GET', path(name));
  assert.deepEqual(got.body.metadata.labels, expected);
  // The webhook saw: the first attempt (no `theirs` yet), the other client's patch, the second attempt.
  assert.deepEqual(racer.calls, [`UPDATE ${name} [mine]`, `UPDATE ${name} [theirs]`, `UPDATE ${name} [${labels.join(',')}]`], c.name);
}

describe('in memory, one server', () => {
  let s: ApiServer;
  let racer: Racer;
  before(async () => {
    s = await startApiServer();
    racer = await racingWebhook();
    await installWebhook(s, racer);
  });
  after(async () => {
    await s.stop();
    await racer.close();
  });
  for (const c of cases) {
    test(`${c.name} that loses the race to another writer ${c.pinned ? 'answers 409 Conflict' : 'runs again on the fresh object and succeeds'}`, async () => {
      await race(s, s, racer, c);
    });
  }
});

const skip = etcdSkipReason();
describe('on one etcd, two servers', { ...(skip === undefined ? {} : { skip }) }, () => {
  let etcd: TestEtcd;
  let a: ApiServer;
  let b: ApiServer;
  let racer: Racer;
  before(async () => {
    etcd = await startTestEtcd();
    a = await startApiServer({ etcdServers: [etcd.url] });
    b = await startApiServer({ etcdServers: [etcd.url] });
    racer = await racingWebhook();
    await installWebhook(a, racer);
    // B serves the webhook configuration too once its watch delivered it (its patch is reviewed as well).
    while ((await call(b, 'GET', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/racer')).status !== 200) await new Promise<void>((r) => setImmediate(r));
  });
  after(async () => {
    await a.stop();
    await b.stop();
    await racer.close();
    await etcd.stop();
  });
  for (const c of cases) {
    test(`${c.name} on server A that loses the race to server B ${c.pinned ? 'answers 409 Conflict' : 'runs again on the fresh object and succeeds'}`, async () => {
      await race(a, b, racer, c);
    });
  }
});
