/**
 * CRD conversion webhooks end to end, on both backends: a CRD with `conversion.strategy: Webhook`
 * pointing at a kubeloom WebhookServer (https://127.0.0.1:PORT/convert, its development CA as
 * caBundle) serving a hub-and-spoke ConversionWebhook. What kube-apiserver v1.24 does is the
 * reference: which calls it makes (reviews, versions, objects), what reads and writes return, and how
 * a failing webhook surfaces to clients.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CustomResourceDefinition } from '../src/api/apiextensions/v1.ts';
import { statusOf } from '../src/apimachinery/errors.ts';
import { DynamicClient } from '../src/dynamic/index.ts';
import { RestClient } from '../src/rest/index.ts';
import { noopLogger } from '../src/tools/events/logger.ts';
import { generateServingCertificates, WebhookServer } from '../src/webhook/index.ts';
import { ConversionWebhook } from '../src/webhook/conversion/index.ts';
import { sortKeysDeep } from '../src/apiserver/storage.ts';
import { e2eTest, type E2eEnv } from './support/backend.ts';

type Obj = Record<string, unknown>;

interface Call {
  apiVersion: string;
  desiredAPIVersion: string;
  objects: { apiVersion: string; name: string; object: Obj }[];
}

type Mode = 'convert' | 'failure' | 'http400' | 'wrongUid' | 'wrongVersion';

/** A conversion webhook server whose answers the test can switch, recording every review. */
async function conversionServer(env: E2eEnv, group: string, kind: string): Promise<{ url: string; caBundle: string; calls: Call[]; setMode(m: Mode): void }> {
  const certDir = await env.tmpDir();
  const certs = await generateServingCertificates({ certDir, hosts: ['127.0.0.1'] });
  const convert = new ConversionWebhook({ logger: noopLogger }).register({
    group,
    kind,
    hub: 'v1',
    spokes: {
      v2: {
        convertTo: (v2: Obj) => ({ ...v2, spec: { size: Number((v2.spec as Obj).size) } }),
        convertFrom: (v1: Obj) => ({ ...v1, spec: { size: String((v1.spec as Obj).size) } }),
      },
    },
  });
  const calls: Call[] = [];
  let mode: Mode = 'convert';
  const server = new WebhookServer({ certDir, host: '127.0.0.1', port: 0, logger: noopLogger });
  server.register('/convert', async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req as AsyncIterable<Buffer>) chunks.push(c);
    const review = JSON.parse(Buffer.concat(chunks).toString()) as { apiVersion: string; request: { uid: string; desiredAPIVersion: string; objects: Obj[] } };
    calls.push({ apiVersion: review.apiVersion, desiredAPIVersion: review.request.desiredAPIVersion, objects: review.request.objects.map((o) => ({ apiVersion: o.apiVersion as string, name: (o.metadata as Obj).name as string, object: o })) });
    const answer = (response: Obj): void => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'ConversionReview', response }));
    };
    switch (mode) {
      case 'convert':
        answer({ ...(await convert.convert(review.request)) });
        return;
      case 'failure':
        answer({ uid: review.request.uid, convertedObjects: null, result: { status: 'Failure', message: 'the size does not fit' } });
        return;
      case 'http400':
        res.writeHead(400).end();
        return;
      case 'wrongUid':
        answer({ ...(await convert.convert(review.request)), uid: 'not-the-uid' });
        return;
      case 'wrongVersion': {
        const r = await convert.convert(review.request);
        answer({ ...r, convertedObjects: (r.convertedObjects ?? []).map((o) => ({ ...o, apiVersion: `${group}/v3` })) });
        return;
      }
    }
  });
  const ac = new AbortController();
  const running = server.start(ac.signal);
  const { port } = await server.whenStarted();
  env.defer(async () => {
    ac.abort();
    await running;
  });
  return { url: `https://127.0.0.1:${port}/convert`, caBundle: certs.caBundle, calls, setMode: (m) => (mode = m) };
}

function widgetCrd(sfx: string, url: string, caBundle: string): CustomResourceDefinition {
  const group = `${sfx}.example.com`;
  const plural = `widgets${sfx}`;
  const schema = (size: 'integer' | 'string') => ({ openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: size } } } } } as never });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: `widget${sfx}`, kind: `Widget${sfx}`, listKind: `Widget${sfx}List` },
      versions: [
        { name: 'v1', served: true, storage: true, schema: schema('integer') },
        { name: 'v2', served: true, storage: false, schema: schema('string'), additionalPrinterColumns: [{ name: 'Version', type: 'string', jsonPath: '.apiVersion' }] },
      ],
      conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url, caBundle } } },
    },
  };
}

/** Retries `check` until it holds (at most 100 times, 100 ms apart): for changes a real apiserver applies asynchronously. */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail('the condition never held');
}

async function failureOf(p: Promise<unknown>): Promise<{ code: number | undefined; reason: string | undefined; message: string | undefined }> {
  try {
    await p;
  } catch (err) {
    const s = statusOf(err);
    return { code: s?.code, reason: s?.reason, message: s?.message };
  }
  assert.fail('expected the request to fail');
}

e2eTest('a CRD with a conversion webhook: reads and writes in a version other than the storage one go through the webhook, failures surface as upstream words them', async (env) => {
  const sfx = env.suffix;
  const group = `${sfx}.example.com`;
  const kind = `Widget${sfx}`;
  const hook = await conversionServer(env, group, kind);
  const crd = widgetCrd(sfx, hook.url, hook.caBundle);
  await env.createCrd(crd);
  const rest = new RestClient(env.restConfig());
  env.defer(() => rest.close());
  const dyn = new DynamicClient(rest);
  const ns = env.namespace;
  const v1 = dyn.resource({ group, version: 'v1', resource: `widgets${sfx}` }).namespace(ns);
  const v2 = dyn.resource({ group, version: 'v2', resource: `widgets${sfx}` }).namespace(ns);
  const pairs = (calls: Call[]): string[] => calls.map((c) => `${c.objects.map((o) => `${o.apiVersion.split('/')[1]}:${o.name}`).join(',')}->${c.desiredAPIVersion.split('/')[1]}`);
  const gvk = (v: string): string => `${group}/${v}, Kind=${kind}`;

  // A create through v2 is converted to the storage version v1, and the answer back to v2; the v2 watch cache
  // converts it once more, asynchronously (v1.24 and the embedded server).
  const created = await v2.create({ apiVersion: `${group}/v2`, kind, metadata: { name: 'a' }, spec: { size: '3' } });
  assert.deepEqual([created.apiVersion, created['spec']], [`${group}/v2`, { size: '3' }]);
  const createReviews = hook.calls.splice(0);
  const createCalls = pairs(createReviews);
  assert.equal(createCalls[0], 'v2:a->v1');
  assert.deepEqual([...new Set(createCalls.slice(1))], ['v1:a->v2']);
  assert.ok(createReviews.every((c) => c.apiVersion === 'apiextensions.k8s.io/v1'));
  // Reads in the storage version call nothing; reads in v2 convert the stored object. The v2 watch cache may
  // still be making its late v1 → v2 call of the create (asynchronously), which is tolerated.
  const late = (calls: string[]): string[] => calls.filter((c) => c !== 'v1:a->v2');
  assert.deepEqual((await v1.get('a'))['spec'], { size: 3 });
  assert.deepEqual(late(pairs(hook.calls.splice(0))), []);
  assert.deepEqual((await v2.get('a'))['spec'], { size: '3' });
  const getCalls = pairs(hook.calls.splice(0));
  assert.ok(getCalls.length >= 1 && late(getCalls).length === 0, getCalls.join(' '));
  // A list converts item by item (one review per object, v1.24 as well).
  await v1.create({ apiVersion: `${group}/v1`, kind, metadata: { name: 'b' }, spec: { size: 5 } });
  hook.calls.splice(0);
  const list = await v2.list();
  assert.deepEqual(
    list.items.map((i) => [i.metadata?.name, i.apiVersion, i['spec']]),
    [
      ['a', `${group}/v2`, { size: '3' }],
      ['b', `${group}/v2`, { size: '5' }],
    ],
  );
  const listCalls = pairs(hook.calls.splice(0));
  assert.deepEqual([...new Set(listCalls)].sort(), ['v1:a->v2', 'v1:b->v2']);
  // A table (kubectl get) shows the v2 printer column of the converted objects.
  const table = await rest.do({ verb: 'GET', path: `/apis/${group}/v2/namespaces/${ns}/widgets${sfx}`, query: [], headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
  const rows = (JSON.parse(table.body.toString()) as { rows: { cells: unknown[] }[] }).rows.map((r) => r.cells.slice(0, 2));
  assert.deepEqual(rows, [
    ['a', `${group}/v2`],
    ['b', `${group}/v2`],
  ]);
  hook.calls.splice(0);

  // A webhook that fails makes reads and writes in v2 fail with a 500 without reason, worded as v1.24 words it;
  // reads in the storage version are unaffected.
  const failures: [Mode, RegExp | string][] = [
    ['failure', `conversion webhook for ${gvk('v1')} failed: the size does not fit`],
    ['http400', `conversion webhook for ${gvk('v1')} failed: the server rejected our request for an unknown reason`],
    ['wrongUid', new RegExp(`^conversion webhook for ${gvk('v1').replace(/[./]/g, '\\$&')} failed: expected response\\.uid="[0-9a-f-]{36}", got "not-the-uid"$`)],
    ['wrongVersion', `conversion webhook for ${gvk('v1')} returned invalid object at index 0: invalid groupVersion (expected ${group}/v2, received ${group}/v3)`],
  ];
  for (const [mode, message] of failures) {
    hook.setMode(mode);
    const f = await failureOf(v2.get('a'));
    assert.deepEqual([f.code, f.reason], [500, undefined], mode);
    if (typeof message === 'string') assert.equal(f.message, message);
    else assert.match(f.message ?? '', message);
  }
  hook.setMode('failure');
  assert.deepEqual(await failureOf(v2.list()), { code: 500, reason: undefined, message: `conversion webhook for ${gvk('v1')} failed: the size does not fit` });
  assert.deepEqual(await failureOf(v2.create({ apiVersion: `${group}/v2`, kind, metadata: { name: 'c' }, spec: { size: '1' } })), {
    code: 500,
    reason: undefined,
    message: `conversion webhook for ${gvk('v2')} failed: the size does not fit`,
  });
  assert.deepEqual((await v1.get('b'))['spec'], { size: 5 });
  hook.setMode('convert');

  // PATCH and PUT through v2 start from the stored object in v2 and store in v1.
  const patched = await v2.patch('a', 'application/merge-patch+json', { spec: { size: '7' } });
  assert.deepEqual([patched.apiVersion, patched['spec']], [`${group}/v2`, { size: '7' }]);
  const updated = await v2.update({ ...(await v2.get('a')), spec: { size: '8' } });
  assert.deepEqual([updated.apiVersion, updated['spec']], [`${group}/v2`, { size: '8' }]);
  assert.deepEqual((await v1.get('a'))['spec'], { size: 8 });
  hook.calls.splice(0);
  // A watch in v2 receives converted objects.
  const watch = await v2.watch({ resourceVersion: (await v1.get('a')).metadata!.resourceVersion! });
  await v1.patch('a', 'application/merge-patch+json', { spec: { size: 9 } });
  for await (const e of watch) {
    assert.deepEqual([e.type, (e.object as Obj).apiVersion, (e.object as Obj).spec], ['MODIFIED', `${group}/v2`, { size: '9' }]);
    break;
  }
  assert.ok(hook.calls.length > 0 && pairs(hook.calls.splice(0)).every((p) => p === 'v1:a->v2'));
  // Deleting a custom resource answers with a Status.
  assert.equal(((await v2.delete('b')) as Obj).kind, 'Status');

  // The review goes out in the first of conversionReviewVersions the server knows.
  const crdClient = dyn.resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' });
  await crdClient.patch(crd.metadata!.name!, 'application/merge-patch+json', { spec: { conversion: { webhook: { conversionReviewVersions: ['v9', 'v1beta1', 'v1'] } } } });
  // kube-apiserver picks CRD changes up asynchronously: wait until the reads use the new setting.
  await eventually(async () => {
    hook.calls.splice(0);
    await v2.get('a');
    return hook.calls[0]?.apiVersion === 'apiextensions.k8s.io/v1beta1';
  });
  // An unreachable webhook: Go's dial error, the URL with the client's 30 s timeout.
  await crdClient.patch(crd.metadata!.name!, 'application/merge-patch+json', { spec: { conversion: { webhook: { clientConfig: { url: 'https://127.0.0.1:1/convert' } } } } });
  let down: Awaited<ReturnType<typeof failureOf>> | undefined;
  await eventually(async () => {
    down = await failureOf(v2.get('a')).catch(() => undefined);
    return down?.message?.includes('127.0.0.1:1') === true;
  });
  assert.deepEqual(down, { code: 500, reason: undefined, message: `conversion webhook for ${gvk('v1')} failed: Post "https://127.0.0.1:1/convert?timeout=30s": dial tcp 127.0.0.1:1: connect: connection refused` });
});

e2eTest('a CRD\'s spec.conversion is validated as kube-apiserver v1.24 validates it (field names of the internal type)', async (env) => {
  const sfx = env.suffix;
  const crds = env.cs.apiextensionsV1().customResourceDefinitions();
  const cases: [unknown, string][] = [
    [{ strategy: 'Webhook' }, '[spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook, spec.conversion.conversionReviewVersions: Required value]'],
    [
      { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v9'], clientConfig: { url: 'http://x/y?z=1' } } },
      `[spec.conversion.webhookClientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path], spec.conversion.webhookClientConfig.url: Invalid value: "z=1": query parameters are not permitted in the URL, spec.conversion.conversionReviewVersions: Invalid value: []string{"v9"}: must include at least one of v1, v1beta1]`,
    ],
    [
      { strategy: 'None', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'https://x/y' } } },
      '[spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook, spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook]',
    ],
    [{ strategy: 'Other' }, 'spec.conversion.strategy: Unsupported value: "Other": supported values: "None", "Webhook"'],
    [
      { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1', 'v1'], clientConfig: { url: 'https://x/y', service: { namespace: 'a', name: 'b' } } } },
      '[spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required, spec.conversion.conversionReviewVersions[1]: Invalid value: "v1": duplicate version]',
    ],
    [
      { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { service: { namespace: 'a', name: 'b', path: 'noslash', port: 0 } } } },
      `[spec.conversion.webhookClientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive, spec.conversion.webhookClientConfig.service.path: Invalid value: "noslash": must start with a '/']`,
    ],
  ];
  const name = `things${sfx}.${sfx}.example.com`;
  for (const [conversion, message] of cases) {
    const crd = widgetCrd(sfx, 'https://127.0.0.1/convert', '');
    crd.metadata = { name };
    crd.spec.names = { plural: `things${sfx}`, kind: `Thing${sfx}` };
    crd.spec.conversion = conversion as never;
    const f = await failureOf(crds.create(crd, { dryRun: ['All'] }));
    assert.deepEqual(f, { code: 422, reason: 'Invalid', message: `CustomResourceDefinition.apiextensions.k8s.io "${name}" is invalid: ${message}` });
  }
  // A Service's port defaults to 443.
  const crd = widgetCrd(sfx, 'https://127.0.0.1/convert', '');
  crd.metadata = { name };
  crd.spec.names = { plural: `things${sfx}`, kind: `Thing${sfx}` };
  crd.spec.conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { service: { namespace: 'a', name: 'b' } } } };
  const created = await crds.create(crd, { dryRun: ['All'] });
  assert.deepEqual(created.spec.conversion?.webhook?.clientConfig?.service, { namespace: 'a', name: 'b', port: 443 });
});


e2eTest('objects sent to a conversion webhook carry no resourceVersion and have their keys sorted, as kube-apiserver v1.24 sends them', async (env) => {
  const sfx = env.suffix;
  const group = `${sfx}.example.com`;
  const kind = `Widget${sfx}`;
  const hook = await conversionServer(env, group, kind);
  await env.createCrd(widgetCrd(sfx, hook.url, hook.caBundle));
  const rest = new RestClient(env.restConfig());
  env.defer(() => rest.close());
  const v2 = new DynamicClient(rest).resource({ group, version: 'v2', resource: `widgets${sfx}` }).namespace(env.namespace);
  // Keys out of order on purpose: the server sorts them before it sends the object.
  const created = await v2.create({ spec: { size: '3' }, metadata: { name: 'a', labels: { z: '1', a: '2' } }, kind, apiVersion: `${group}/v2` });
  await v2.get('a');
  await v2.update({ ...created, spec: { size: '4' } });
  await v2.patch('a', 'application/merge-patch+json', { spec: { size: '5' } });
  const sent = hook.calls.flatMap((c) => c.objects.map((o) => o.object));
  assert.ok(sent.length >= 6, String(sent.length));
  for (const o of sent) {
    assert.equal((o.metadata as Obj).resourceVersion, undefined, JSON.stringify(o));
    assert.equal(JSON.stringify(o), JSON.stringify(sortKeysDeep(o)));
  }
  // What the clients get back still has the revision.
  assert.ok((await v2.get('a')).metadata?.resourceVersion);
});

e2eTest('conversion webhook calls per request through the non-storage version are kube-apiserver v1.24\'s: create 3, get 1, update 4, patch 4, delete 4', async (env) => {
  const sfx = env.suffix;
  const group = `${sfx}.example.com`;
  const kind = `Widget${sfx}`;
  const hook = await conversionServer(env, group, kind);
  await env.createCrd(widgetCrd(sfx, hook.url, hook.caBundle));
  const rest = new RestClient(env.restConfig());
  env.defer(() => rest.close());
  const v2 = new DynamicClient(rest).resource({ group, version: 'v2', resource: `widgets${sfx}` }).namespace(env.namespace);
  // Each count includes the v2 watch cache's asynchronous conversion of the written state (v1.24 too).
  const calls = async (n: number): Promise<number> => {
    await eventually(async () => hook.calls.reduce((k, c) => k + c.objects.length, 0) >= n);
    return hook.calls.splice(0).reduce((k, c) => k + c.objects.length, 0);
  };
  const created = await v2.create({ apiVersion: `${group}/v2`, kind, metadata: { name: 'a' }, spec: { size: '3' } });
  assert.equal(await calls(3), 3);
  await v2.get('a');
  assert.equal(await calls(1), 1);
  await v2.update({ ...created, spec: { size: '4' } });
  assert.equal(await calls(4), 4);
  await v2.patch('a', 'application/merge-patch+json', { spec: { size: '5' } });
  assert.equal(await calls(4), 4);
  await v2.delete('a');
  assert.equal(await calls(4), 4);
});
