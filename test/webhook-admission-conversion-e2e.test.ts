/**
 * Admission webhooks registered for another version of a custom resource than the request's, on both
 * backends: kube-apiserver converts the object (and the old object) through the CRD's conversion webhook
 * before sending it (apiserver/pkg/admission/plugin/webhook/generic/conversion.go), so a validator of
 * v1 never sees a v2 body. The validator here rejects what it would reject if it got the v2 object
 * unconverted (spec.size a string), the mutator changes the converted object, and the conversion
 * webhook records every review, whose number per request is compared with v1.24's.
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
import { e2eTest, type E2eEnv } from './support/backend.ts';

type Obj = Record<string, unknown>;

async function readJson(req: IncomingMessage): Promise<Obj> {
  const chunks: Buffer[] = [];
  for await (const c of req as AsyncIterable<Buffer>) chunks.push(c);
  return JSON.parse(Buffer.concat(chunks).toString()) as Obj;
}

function reply(res: ServerResponse, body: Obj): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

interface Servers {
  url: string;
  caBundle: string;
  /** Every conversion review: `<from>-><to>` per object. */
  conversions: string[];
  /**
   * The spec.replicas of each object of {@link Servers.conversions}, in the same order: which state was
   * converted (kube-apiserver sends objects without their resourceVersion, and so does the embedded server).
   */
  conversionStates: string[];
  /** Every admission review's request, in arrival order. */
  admissions: { path: string; request: Obj }[];
}

/**
 * One HTTPS server with /convert (v1 hub with an integer size, v2 with a string), /mutate (v1 objects:
 * size × 10, label `seen` = the type of size) and /validate (rejects a size that is not a number).
 */
async function servers(env: E2eEnv, group: string, kind: string): Promise<Servers> {
  const certDir = await env.tmpDir();
  const certs = await generateServingCertificates({ certDir, hosts: ['127.0.0.1'] });
  const convert = new ConversionWebhook({ logger: noopLogger }).register({
    group,
    kind,
    hub: 'v1',
    spokes: {
      v2: {
        convertTo: (v2: Obj) => ({ ...v2, spec: { size: Number((v2.spec as Obj).size), ...((v2.spec as Obj).count === undefined ? {} : { replicas: (v2.spec as Obj).count }) } }),
        convertFrom: (v1: Obj) => ({ ...v1, spec: { size: String((v1.spec as Obj).size), ...((v1.spec as Obj).replicas === undefined ? {} : { count: (v1.spec as Obj).replicas }) } }),
      },
    },
  });
  const out: Servers = { url: '', caBundle: certs.caBundle, conversions: [], conversionStates: [], admissions: [] };
  const server = new WebhookServer({ certDir, host: '127.0.0.1', port: 0, logger: noopLogger });
  server.register('/convert', async (req: IncomingMessage, res: ServerResponse) => {
    const review = (await readJson(req)) as { apiVersion: string; request: { uid: string; desiredAPIVersion: string; objects: Obj[] } };
    const to = review.request.desiredAPIVersion.split('/')[1];
    for (const o of review.request.objects) {
      out.conversions.push(`${String(o.apiVersion).split('/')[1]}->${to}`);
      const replicas = (o.spec as { replicas?: number } | undefined)?.replicas;
      out.conversionStates.push(replicas === undefined ? '' : String(replicas));
    }
    reply(res, { apiVersion: review.apiVersion, kind: 'ConversionReview', response: { ...(await convert.convert(review.request)) } });
  });
  const admission = (answer: (request: Obj) => Obj) => async (req: IncomingMessage, res: ServerResponse) => {
    const review = (await readJson(req)) as { request: Obj };
    out.admissions.push({ path: (req.url ?? '').split('?')[0]!, request: review.request });
    reply(res, { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, ...answer(review.request) } });
  };
  server.register(
    '/validate',
    admission((request) => {
      const size = ((request.object ?? request.oldObject) as { spec?: { size?: unknown } }).spec?.size;
      return typeof size === 'number' ? { allowed: true } : { allowed: false, status: { code: 400, message: `size must be a number, got ${JSON.stringify(size)}` } };
    }),
  );
  server.register(
    '/mutate',
    admission((request) => {
      const size = (request.object as { spec: { size: unknown } }).spec.size;
      const ops: unknown[] = [{ op: 'add', path: '/metadata/labels', value: { seen: typeof size } }];
      if (typeof size === 'number') ops.push({ op: 'replace', path: '/spec/size', value: size * 10 });
      return { allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') };
    }),
  );
  const ac = new AbortController();
  const running = server.start(ac.signal);
  const { port } = await server.whenStarted();
  env.defer(async () => {
    ac.abort();
    await running;
  });
  out.url = `https://127.0.0.1:${port}`;
  return out;
}

function crdFor(sfx: string, s: Servers): CustomResourceDefinition {
  const group = `${sfx}.example.com`;
  const plural = `gadgets${sfx}`;
  const schema = (size: 'integer' | 'string', replicas: string) => ({ openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: size }, [replicas]: { type: 'integer' } } } } } as never });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: `gadget${sfx}`, kind: `Gadget${sfx}`, listKind: `Gadget${sfx}List` },
      versions: [
        { name: 'v1', served: true, storage: true, schema: schema('integer', 'replicas'), subresources: { scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } } },
        { name: 'v2', served: true, storage: false, schema: schema('string', 'count'), subresources: { scale: { specReplicasPath: '.spec.count', statusReplicasPath: '.status.replicas' } } },
      ],
      conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: `${s.url}/convert`, caBundle: s.caBundle } } },
    },
  };
}

/** Retries `check` until it holds (100 ms apart): a real apiserver picks up webhook configurations asynchronously. */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail('the condition never held');
}

e2eTest('admission webhooks registered for v1 get a v2 request converted through the CRD conversion webhook (kind vs requestKind, oldObject too)', async (env) => {
  const sfx = env.suffix;
  const group = `${sfx}.example.com`;
  const kind = `Gadget${sfx}`;
  const plural = `gadgets${sfx}`;
  const s = await servers(env, group, kind);
  await env.createCrd(crdFor(sfx, s));
  const rest = new RestClient(env.restConfig());
  env.defer(() => rest.close());
  const dyn = new DynamicClient(rest);
  const ns = env.namespace;
  const v1 = dyn.resource({ group, version: 'v1', resource: plural }).namespace(ns);
  const v2 = dyn.resource({ group, version: 'v2', resource: plural }).namespace(ns);
  const rules = (operations: string[]) => [{ operations, apiGroups: [group], apiVersions: ['v1'], resources: [plural], scope: 'Namespaced' }];
  const hook = (name: string, path: string, operations: string[]) => ({
    name: `${name}.${group}`,
    admissionReviewVersions: ['v1'],
    sideEffects: 'None',
    clientConfig: { url: `${s.url}${path}`, caBundle: s.caBundle },
    rules: rules(operations),
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
  });
  const mutating = dyn.resource({ group: 'admissionregistration.k8s.io', version: 'v1', resource: 'mutatingwebhookconfigurations' });
  const validating = dyn.resource({ group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingwebhookconfigurations' });
  const mName = `mutate-${sfx}`;
  const vName = `validate-${sfx}`;
  await mutating.create({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: mName }, webhooks: [hook('mutate', '/mutate', ['CREATE'])] });
  env.defer(async () => void (await mutating.delete(mName)));
  await validating.create({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: vName }, webhooks: [hook('validate', '/validate', ['CREATE', 'UPDATE', 'DELETE'])] });
  env.defer(async () => void (await validating.delete(vName)));
  // A real server starts calling new webhooks within about a second: wait until a dry-run create reaches both.
  await eventually(async () => {
    s.admissions.splice(0);
    await v1.create({ apiVersion: `${group}/v1`, kind, metadata: { name: 'probe' }, spec: { size: 1 } }, { dryRun: ['All'] });
    return new Set(s.admissions.map((a) => a.path)).size === 2;
  });
  s.admissions.splice(0);
  s.conversions.splice(0);

  // A create through v2: the mutator and the validator see v1 objects (a number), the mutation comes back in v2.
  const created = await v2.create({ apiVersion: `${group}/v2`, kind, metadata: { name: 'a' }, spec: { size: '3' } });
  assert.deepEqual([created.apiVersion, created['spec'], created.metadata?.labels], [`${group}/v2`, { size: '30' }, { seen: 'number' }]);
  const [m, v] = s.admissions.splice(0);
  assert.deepEqual([m?.path, v?.path], ['/mutate', '/validate']);
  for (const r of [m!.request, v!.request]) {
    assert.deepEqual(
      [r.kind, r.resource, r.requestKind, r.requestResource, (r.object as Obj).apiVersion, r.oldObject],
      [{ group, version: 'v1', kind }, { group, version: 'v1', resource: plural }, { group, version: 'v2', kind }, { group, version: 'v2', resource: plural }, `${group}/v1`, null],
    );
  }
  assert.deepEqual([(m!.request.object as Obj).spec, (v!.request.object as Obj).spec], [{ size: 3 }, { size: 30 }]);
  // The conversions of the create: for the mutator (v2 → v1), its change back (v1 → v2), for the validator
  // (v2 → v1), the storage (v2 → v1) and the answer (v1 → v2), then one asynchronous v1 → v2 of the v2 watch
  // cache (v1.24 and here).
  await eventually(async () => s.conversions.length >= 6);
  const createCalls = s.conversions.splice(0);
  s.conversionStates.splice(0);
  assert.deepEqual(createCalls.slice(0, 4), ['v2->v1', 'v1->v2', 'v2->v1', 'v2->v1']);
  assert.deepEqual(createCalls.slice(4), ['v1->v2', 'v1->v2']);

  // An update through v2: the validator gets both objects in v1.
  await v2.patch('a', 'application/merge-patch+json', { spec: { size: '4' } });
  const update = s.admissions.splice(0);
  assert.deepEqual(
    update.map((a) => [a.path, a.request.operation, (a.request.object as Obj).spec, (a.request.oldObject as Obj).spec, (a.request.oldObject as Obj).apiVersion]),
    [['/validate', 'UPDATE', { size: 4 }, { size: 30 }, `${group}/v1`]],
  );
  // A v2 object that would reach the validator unconverted is refused by it only when its v1 form is.
  await assert.rejects(v2.patch('a', 'application/merge-patch+json', { spec: { size: 'x' } }), (err: unknown) => {
    assert.equal(statusOf(err)?.message, 'admission webhook "validate.' + group + '" denied the request: size must be a number, got null');
    return true;
  });
  s.admissions.splice(0);

  // Reads through v2 convert once, metadata-only reads and /scale as well (the storage decodes into v2 first).
  await v1.patch('a', 'application/merge-patch+json', { spec: { replicas: 2 } });
  // Conversions of the patched state only (the only one with replicas): earlier writes' watch-cache
  // conversions may still arrive.
  const ofPatched = (): string[] => s.conversions.filter((_, i) => s.conversionStates[i] === '2');
  const partial = await rest.do({ verb: 'GET', path: `/apis/${group}/v2/namespaces/${ns}/${plural}/a`, query: [], headers: { accept: 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io' } });
  assert.equal((JSON.parse(partial.body.toString()) as Obj).kind, 'PartialObjectMetadata');
  const scale = JSON.parse((await rest.do({ verb: 'GET', path: `/apis/${group}/v2/namespaces/${ns}/${plural}/a/scale`, query: [], headers: {} })).body.toString()) as { spec: Obj };
  assert.deepEqual(scale.spec, { replicas: 2 });
  const metadataList = await rest.do({ verb: 'GET', path: `/apis/${group}/v2/namespaces/${ns}/${plural}`, query: [], headers: { accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io' } });
  assert.equal((JSON.parse(metadataList.body.toString()) as { items: unknown[] }).items.length, 1);
  // Three reads and the v2 watch cache's conversion of the patch, on both backends.
  // (kube-apiserver's storage decodes objects without their resourceVersion, which etcd does not store, so
  // there the reads' conversions cannot be told from late ones of earlier writes: at least the three reads.)
  if (env.backend === 'real') await eventually(async () => s.conversions.filter((c) => c === 'v1->v2').length >= 3);
  else {
    await eventually(async () => ofPatched().length >= 4);
    assert.deepEqual(ofPatched(), ['v1->v2', 'v1->v2', 'v1->v2', 'v1->v2']);
  }
  // Reads with resourceVersion=0 are served by the v2 watch cache, whose copy is converted already: no call.
  const before = ofPatched().length;
  assert.deepEqual((await v2.get('a', { resourceVersion: '0' }))['spec'], { size: '4', count: 2 });
  assert.deepEqual((await v2.list({ resourceVersion: '0' })).items.map((i) => i['spec']), [{ size: '4', count: 2 }]);
  if (env.backend === 'embedded') assert.equal(ofPatched().length, before);

  // A delete through v2: the validator gets the stored object in v1 as oldObject.
  s.conversions.splice(0);
  s.conversionStates.splice(0);
  s.admissions.splice(0);
  await v2.delete('a');
  const del = s.admissions.splice(0);
  assert.deepEqual(
    del.map((a) => [a.path, a.request.operation, a.request.object, (a.request.oldObject as Obj).apiVersion, (a.request.oldObject as Obj).spec, a.request.requestKind]),
    [['/validate', 'DELETE', null, `${group}/v1`, { size: 4, replicas: 2 }, { group, version: 'v2', kind }]],
  );
  assert.equal((await v1.list()).items.length, 0);
  // The delete's conversions: Store.Delete's read (v1 → v2), the etcd store's re-encoding of the watch cache's
  // copy (v2 → v1), the validator's oldObject (v2 → v1), the deleted object decoded (v1 → v2), then the v2
  // watch cache's (v1 → v2).
  const deleteCalls = ['v1->v2', 'v2->v1', 'v2->v1', 'v1->v2', 'v1->v2'];
  await eventually(async () => s.conversions.length >= 5);
  // (On the real server late conversions of the earlier writes may come first.)
  if (env.backend === 'real') assert.deepEqual(s.conversions.slice(-5), deleteCalls, s.conversions.join(' '));
  else assert.deepEqual(s.conversions, deleteCalls);
});
