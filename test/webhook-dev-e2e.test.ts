/**
 * Development mode end to end, on both backends: an operator's webhook server on 127.0.0.1 with a
 * generated CA, setupDevWebhooks writing the webhook configurations (scoped to the test's namespace:
 * the real cluster is shared) and a CRD's conversion, then the API server calling the typed defaulter,
 * validator and converter.
 */
import assert from 'node:assert/strict';
import type { ConfigMap } from '../src/api/core/v1.ts';
import type { CustomResourceDefinition } from '../src/api/apiextensions/v1.ts';
import { newStatus, statusOf, StatusError } from '../src/apimachinery/errors.ts';
import { newClientset } from '../src/kubernetes/index.ts';
import { DynamicClient } from '../src/dynamic/index.ts';
import { RestClient } from '../src/rest/index.ts';
import { noopLogger } from '../src/tools/events/logger.ts';
import { ensureServingCertificates, setupDevWebhooks, WebhookServer } from '../src/webhook/index.ts';
import { AdmissionWebhook, withCustomDefaulter, withCustomValidator } from '../src/webhook/admission/index.ts';
import { ConversionWebhook } from '../src/webhook/conversion/index.ts';
import { e2eTest } from './support/backend.ts';

type Obj = Record<string, unknown>;

/** Retries `check` until it holds (at most 100 times, 100 ms apart): a real apiserver applies webhook configurations asynchronously. */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail('the condition never held');
}

e2eTest('setupDevWebhooks points the API server at a local webhook server: defaulting, validation and conversion run there', async (env) => {
  const certDir = await env.tmpDir();
  const sfx = env.suffix;
  const group = `${sfx}.example.com`;
  const kind = `Gadget${sfx}`;
  const server = new WebhookServer({ certDir, host: '127.0.0.1', port: 0, logger: noopLogger });
  server.register(
    '/mutate--v1-configmap',
    new AdmissionWebhook(
      withCustomDefaulter<ConfigMap>({
        default(cm) {
          cm.metadata!.labels = { ...cm.metadata!.labels, defaulted: 'true' };
          cm.data = { tier: 'standard', ...cm.data };
        },
      }),
    ),
  );
  server.register(
    '/validate--v1-configmap',
    new AdmissionWebhook(
      withCustomValidator<ConfigMap>({
        validateCreate(cm) {
          if (cm.data?.['forbidden'] !== undefined) throw new Error('data.forbidden is not allowed');
          const size = cm.data?.['size'];
          if (size !== undefined && !/^\d+$/.test(size)) {
            const causes = [{ reason: 'FieldValueInvalid', message: `Invalid value: "${size}": must be a number`, field: 'data.size' }];
            throw new StatusError(newStatus(422, 'Invalid', `ConfigMap "${cm.metadata?.name}" is invalid: data.size: Invalid value: "${size}": must be a number`, { name: cm.metadata?.name, kind: 'ConfigMap', causes }));
          }
          return cm.data?.['warn'] === undefined ? [] : ['data.warn is deprecated'];
        },
      }),
    ),
  );
  server.register(
    '/convert',
    new ConversionWebhook({ logger: noopLogger }).register({
      group,
      kind,
      hub: 'v1',
      spokes: { v2: { convertTo: (o: Obj) => ({ ...o, spec: { count: Number((o.spec as Obj).count) } }), convertFrom: (o: Obj) => ({ ...o, spec: { count: String((o.spec as Obj).count) } }) } },
    }),
  );
  const first = await ensureServingCertificates({ certDir, hosts: ['127.0.0.1'] });
  const ac = new AbortController();
  const running = server.start(ac.signal);
  env.defer(async () => {
    ac.abort();
    await running;
  });
  await server.whenStarted();

  const schema = (t: 'integer' | 'string') => ({ openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { count: { type: t } } } } } as never });
  const crd: CustomResourceDefinition = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `gadgets${sfx}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: `gadgets${sfx}`, singular: `gadget${sfx}`, kind, listKind: `${kind}List` },
      versions: [
        { name: 'v1', served: true, storage: true, schema: schema('integer') },
        { name: 'v2', served: true, storage: false, schema: schema('string') },
      ],
    },
  };
  await env.createCrd(crd);

  const scoped = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': env.namespace } }, sideEffects: 'None', admissionReviewVersions: ['v1'], failurePolicy: 'Fail' as const };
  const rules = [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }];
  const dev = await setupDevWebhooks({
    clientset: env.cs,
    server,
    mutating: [{ name: env.uniqueName('webhooks-dev-m'), webhooks: [{ name: 'mcm.kubeloom.dev', path: '/mutate--v1-configmap', rules, ...scoped }] }],
    validating: [{ name: env.uniqueName('webhooks-dev-v'), webhooks: [{ name: 'vcm.kubeloom.dev', path: '/validate--v1-configmap', rules, ...scoped }] }],
    conversions: [{ crdName: crd.metadata!.name! }],
  });
  env.defer(() => dev.teardown());
  assert.equal(dev.certificates.caBundle, first.caBundle, 'the certificates made before start are reused');
  assert.match(dev.baseUrl, /^https:\/\/127\.0\.0\.1:\d+$/);

  const cms = env.cs.coreV1().configMaps(env.namespace);
  // Wait until the API server calls the webhooks (dry runs: sideEffects None webhooks see them, nothing is stored).
  await eventually(async () => (await cms.create({ metadata: { name: 'probe' } }, { dryRun: ['All'] })).metadata?.labels?.['defaulted'] === 'true');
  const created = await cms.create({ metadata: { name: 'a' }, data: { tier: 'gold' } });
  assert.deepEqual([created.metadata?.labels, created.data], [{ defaulted: 'true' }, { tier: 'gold' }]);
  assert.deepEqual((await cms.create({ metadata: { name: 'b' } })).data, { tier: 'standard' });
  let denied: unknown;
  await eventually(async () => {
    denied = await cms.create({ metadata: { name: 'c' }, data: { forbidden: 'x' } }, { dryRun: ['All'] }).then(
      () => undefined,
      (err: unknown) => err,
    );
    return denied !== undefined;
  });
  const status = statusOf(denied);
  assert.deepEqual([status?.code, status?.reason, status?.message], [403, 'Forbidden', 'admission webhook "vcm.kubeloom.dev" denied the request: data.forbidden is not allowed']);

  // A validator's StatusError keeps its code, reason and causes; the API server prefixes the message.
  const invalid = statusOf(await cms.create({ metadata: { name: 'd' }, data: { size: 'big' } }).catch((err: unknown) => err));
  assert.deepEqual([invalid?.code, invalid?.reason, invalid?.message, invalid?.details?.causes], [
    422,
    'Invalid',
    'admission webhook "vcm.kubeloom.dev" denied the request: ConfigMap "d" is invalid: data.size: Invalid value: "big": must be a number',
    [{ reason: 'FieldValueInvalid', message: 'Invalid value: "big": must be a number', field: 'data.size' }],
  ]);
  // Warnings reach the client as Warning headers.
  const warnings: string[] = [];
  const warned = newClientset(env.restConfig(), { warningHandler: { handleWarning: (w) => warnings.push(w.text) } });
  env.defer(() => warned.close());
  await warned.coreV1().configMaps(env.namespace).create({ metadata: { name: 'e' }, data: { warn: 'x' } });
  assert.deepEqual(warnings, ['data.warn is deprecated']);

  const rest = new RestClient(env.restConfig());
  env.defer(() => rest.close());
  const dyn = new DynamicClient(rest);
  const v2 = dyn.resource({ group, version: 'v2', resource: `gadgets${sfx}` }).namespace(env.namespace);
  const v1 = dyn.resource({ group, version: 'v1', resource: `gadgets${sfx}` }).namespace(env.namespace);
  await v1.create({ apiVersion: `${group}/v1`, kind, metadata: { name: 'g' }, spec: { count: 4 } });
  // The CRD's new conversion settings are picked up asynchronously by kube-apiserver.
  await eventually(async () => (await v2.get('g'))['spec'] !== undefined && ((await v2.get('g'))['spec'] as Obj).count === '4');
  const stored = (await env.cs.apiextensionsV1().customResourceDefinitions().get(crd.metadata!.name!)).spec.conversion;
  assert.deepEqual(stored, { strategy: 'Webhook', webhook: { clientConfig: { url: `${dev.baseUrl}/convert`, caBundle: first.caBundle }, conversionReviewVersions: ['v1'] } });
});
