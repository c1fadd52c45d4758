import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { CustomResourceDefinition } from '../api/apiextensions/v1.ts';
import { startApiServer } from '../apiserver/index.ts';
import { isInvalid, newStatus, StatusError } from '../apimachinery/errors.ts';
import { newClientset } from '../kubernetes/clientset.ts';
import { defineCustomResource } from '../kubernetes/resource-spec.ts';
import { newManager } from '../manager/manager.ts';
import { installCrds } from '../testing/crd-install.ts';
import { eventually } from '../testing/eventually.ts';
import { ensureServingCertificates, setupDevWebhooks, WebhookServer } from '../webhook/index.ts';
import { BuilderError } from './builder.ts';
import { webhookManagedBy } from './webhook.ts';

const quiet = { debug() {}, info() {}, error() {} };

interface Widget {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
  spec?: { size?: number; color?: string };
}
const widgets = defineCustomResource<Widget>({ group: 'example.kubeloom.dev', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true });
const schema = (size: 'integer' | 'string') => ({ openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: size }, color: { type: 'string' } } } } } as never });
const widgetCrd: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.kubeloom.dev' },
  spec: {
    group: 'example.kubeloom.dev',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      { name: 'v1', served: true, storage: true, schema: schema('integer') },
      { name: 'v2', served: true, storage: false, schema: schema('string') },
    ],
  },
};
type Obj = Record<string, unknown>;
const conversions = {
  hub: 'v1',
  spokes: { v2: { convertTo: (o: Obj) => ({ ...o, spec: { ...(o.spec as Obj), size: Number((o.spec as Obj).size) } }), convertFrom: (o: Obj) => ({ ...o, spec: { ...(o.spec as Obj), size: String((o.spec as Obj).size) } }) } },
};

test('webhookManagedBy registers at the generated paths on the manager\'s webhook server, skips handled paths and shares /convert', () => {
  const mgr = newManager({ host: 'http://127.0.0.1:1' }, { logger: quiet });
  const server = mgr.getWebhookServer();
  assert.equal(mgr.getWebhookServer(), server, 'made once');
  assert.deepEqual([server.options.port, server.options.certDir], [9443, path.join(os.tmpdir(), 'k8s-webhook-server', 'serving-certs')]);
  const reg = webhookManagedBy(mgr).for(widgets).withDefaulter({ default: () => undefined }).withValidator({}).withConversion(conversions).complete();
  assert.deepEqual([reg.mutatePath, reg.validatePath, reg.conversionPath], ['/mutate-example-kubeloom-dev-v1-widget', '/validate-example-kubeloom-dev-v1-widget', '/convert']);
  assert.deepEqual(reg.mutatingWebhook(), {
    name: 'mwidget-v1.kb.io',
    path: '/mutate-example-kubeloom-dev-v1-widget',
    failurePolicy: 'Fail',
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: ['example.kubeloom.dev'], apiVersions: ['v1'], resources: ['widgets'] }],
  });
  assert.equal(reg.validatingWebhook({ failurePolicy: 'Ignore' }).failurePolicy, 'Ignore');
  // Upstream's isAlreadyHandled: a second registration of the same paths is skipped, /convert is shared.
  const gadgets = defineCustomResource<Widget>({ group: 'example.kubeloom.dev', version: 'v1', resource: 'gadgets', kind: 'Gadget', namespaced: true });
  webhookManagedBy(mgr).for(widgets).withDefaulter({ default: () => undefined }).complete();
  const g = webhookManagedBy(mgr).for(gadgets).withValidator({}).withValidatorCustomPath('/check/gadgets').withConversion(conversions).complete();
  assert.throws(() => g.mutatingWebhook(), BuilderError);
  assert.deepEqual(server.paths(), ['/mutate-example-kubeloom-dev-v1-widget', '/validate-example-kubeloom-dev-v1-widget', '/convert', '/check/gadgets']);

  assert.throws(() => webhookManagedBy(mgr).withDefaulter({ default: () => undefined }).complete(), /for\(\) must be called/);
  assert.throws(() => webhookManagedBy(mgr).for(widgets).withDefaulterCustomPath('mutate').withDefaulter({ default: () => undefined }).complete(), /does not match this regex/);
  const other = newManager({ host: 'http://127.0.0.1:1' }, { logger: quiet, webhookServer: new WebhookServer({ port: 0, logger: quiet }) });
  other.getWebhookServer().register('/convert', () => undefined);
  assert.throws(() => webhookManagedBy(other).for(widgets).withConversion(conversions).complete(), /already served by a handler the builder did not register/);
});

test('webhooks built for a kind are served by the manager and called by the embedded API server: defaulting, denial, conversion, /readyz', async (t) => {
  const api = await startApiServer();
  t.after(() => api.stop());
  await installCrds(api, { crds: [widgetCrd] });
  const certDir = await mkdtemp(path.join(os.tmpdir(), 'kubeloom-webhook-builder-'));
  t.after(() => rm(certDir, { recursive: true, force: true }));
  await ensureServingCertificates({ certDir, hosts: ['127.0.0.1'] });
  const webhookServer = new WebhookServer({ host: '127.0.0.1', port: 0, certDir, logger: quiet });
  const mgr = newManager({ host: api.url, qps: -1 }, { logger: quiet, webhookServer, healthProbeBindAddress: '127.0.0.1:0' });
  await assert.rejects(mgr.getWebhookServer().startedChecker()(), /webhook server has not been started yet/);
  mgr.addReadyzCheck('webhook', mgr.getWebhookServer().startedChecker());
  const reg = webhookManagedBy(mgr)
    .for(widgets)
    .withDefaulter({ default: (w) => void (w.spec = { color: 'blue', ...w.spec }) })
    .withValidator({
      validateCreate(w) {
        if ((w.spec?.size ?? 0) > 10) {
          const causes = [{ reason: 'FieldValueInvalid', message: `Invalid value: ${w.spec!.size}: must be at most 10`, field: 'spec.size' }];
          throw new StatusError(newStatus(422, 'Invalid', `Widget.example.kubeloom.dev "${w.metadata?.name}" is invalid: spec.size: Invalid value: ${w.spec!.size}: must be at most 10`, { name: w.metadata?.name, group: 'example.kubeloom.dev', kind: 'Widget', causes }));
        }
        return w.spec?.size === 0 ? ['spec.size 0 makes an invisible widget'] : [];
      },
    })
    .withConversion(conversions)
    .complete();
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  t.after(async () => {
    stop.abort();
    await running;
  });
  await webhookServer.whenStarted();
  await setupDevWebhooks({
    clientset: newClientset({ host: api.url }),
    server: webhookServer,
    mutating: [{ name: 'widgets', webhooks: [reg.mutatingWebhook()] }],
    validating: [{ name: 'widgets', webhooks: [reg.validatingWebhook()] }],
    conversions: [{ crdName: 'widgets.example.kubeloom.dev' }],
  });
  const ready = await eventually(async () => {
    const r = await fetch(`http://${mgr.addresses().healthProbe}/readyz/webhook`);
    assert.equal(r.status, 200);
    return r.text();
  });
  assert.equal(ready, 'ok');

  const client = mgr.getAPIReader();
  const created = await client.create(widgets, { apiVersion: 'example.kubeloom.dev/v1', kind: 'Widget', metadata: { namespace: 'default', name: 'a' }, spec: { size: 3 } });
  assert.deepEqual(created.spec, { color: 'blue', size: 3 });
  const kept = await client.create(widgets, { apiVersion: 'example.kubeloom.dev/v1', kind: 'Widget', metadata: { namespace: 'default', name: 'b' }, spec: { size: 4, color: 'red' } });
  assert.deepEqual(kept.spec, { size: 4, color: 'red' });
  await assert.rejects(client.create(widgets, { apiVersion: 'example.kubeloom.dev/v1', kind: 'Widget', metadata: { namespace: 'default', name: 'c' }, spec: { size: 11 } }), (err) => {
    assert.ok(isInvalid(err));
    assert.match((err as Error).message, /spec\.size: Invalid value: 11: must be at most 10/);
    return true;
  });
  // Read at v2: the API server asks the conversion webhook.
  const v2 = defineCustomResource<Omit<Widget, 'spec'> & { spec?: { size?: string; color?: string } }>({ ...widgets, version: 'v2' });
  assert.deepEqual((await client.get(v2, { namespace: 'default', name: 'a' })).spec, { color: 'blue', size: '3' });
});
