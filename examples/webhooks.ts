/**
 * Webhooks of an operator, run locally: a Widget CRD with two versions (v1 stores `spec.size` as a
 * number, v2 as a string), a defaulting and a validating admission webhook and a conversion webhook
 * served by one WebhookServer on 127.0.0.1, and development mode pointing the cluster at it (a CA
 * made on the fly, the webhook configurations and the CRD's conversion written with its caBundle).
 * Runs against the cluster of KUBECONFIG, which must be able to call https://127.0.0.1 (the embedded
 * server, or a kube-apiserver on this machine); it removes what it created. To try it:
 *
 *   npx kubeloom apiserver --write-kubeconfig kubeloom.kubeconfig   # in another terminal
 *   KUBECONFIG=kubeloom.kubeconfig node webhooks.ts
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadKubeConfig, namespaceOf, newClientset, restConfigFrom } from 'kubeloom';
import type { CustomResourceDefinition } from 'kubeloom/api/apiextensions/v1';
import { DynamicClient } from 'kubeloom/dynamic';
import { ensureServingCertificates, setupDevWebhooks, WebhookServer } from 'kubeloom/webhook';
import { AdmissionWebhook, generateMutatePath, generateValidatePath, withCustomDefaulter, withCustomValidator } from 'kubeloom/webhook/admission';
import { ConversionWebhook } from 'kubeloom/webhook/conversion';

const kubeconfig = await loadKubeConfig();
const restConfig = await restConfigFrom(kubeconfig);
const clientset = newClientset(restConfig);
const namespace = namespaceOf(kubeconfig);
const certDir = await mkdtemp(path.join(tmpdir(), 'webhook-example-'));
const group = 'example.kubeloom.dev';
const crdName = `widgets.${group}`;
const schema = (size: 'integer' | 'string') => ({ openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: size }, color: { type: 'string' } } } } } as never });
const crd: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: crdName },
  spec: {
    group,
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      { name: 'v1', served: true, storage: true, schema: schema('integer') },
      { name: 'v2', served: true, storage: false, schema: schema('string') },
    ],
  },
};
await clientset.apiextensionsV1().customResourceDefinitions().create(crd);

// #region webhooks
interface WidgetV1 {
  apiVersion: string;
  kind: string;
  metadata: { name?: string; namespace?: string };
  spec: { size?: number; color?: string };
}
type WidgetV2 = Omit<WidgetV1, 'spec'> & { spec: { size?: string; color?: string } };

const gvk = { group, version: 'v1', kind: 'Widget' };
const server = new WebhookServer({ certDir, host: '127.0.0.1', port: 0 }); // port 0: any free port
// Defaulting: change the object; the answer is the JSONPatch between what came in and what you left.
server.register(
  generateMutatePath(gvk), // /mutate-example-kubeloom-dev-v1-widget
  new AdmissionWebhook(withCustomDefaulter<WidgetV1>({ default: (w) => void (w.spec.color ??= 'blue') })),
);
// Validation: return warnings, throw to deny (an Error is a 403, a StatusError keeps its own Status).
server.register(
  generateValidatePath(gvk),
  new AdmissionWebhook(
    withCustomValidator<WidgetV1>({
      validateCreate: (w) => {
        if ((w.spec.size ?? 0) > 10) throw new Error('spec.size: must be at most 10');
        return w.spec.size === 0 ? ['spec.size 0 makes an invisible widget'] : [];
      },
      validateUpdate: (oldW, newW) => {
        if (oldW.spec.color !== newW.spec.color) throw new Error('spec.color is immutable');
      },
    }),
  ),
);
// Conversion: v1 is the hub, v2 a spoke converting itself to and from it.
server.register(
  '/convert',
  new ConversionWebhook().register({
    group,
    kind: 'Widget',
    hub: 'v1',
    spokes: {
      v2: {
        convertTo: (w: WidgetV2): WidgetV1 => ({ ...w, spec: { ...w.spec, size: w.spec.size === undefined ? undefined : Number(w.spec.size) } }),
        convertFrom: (w: WidgetV1): WidgetV2 => ({ ...w, spec: { ...w.spec, size: w.spec.size === undefined ? undefined : String(w.spec.size) } }),
      },
    },
  }),
);

await ensureServingCertificates({ certDir, hosts: ['127.0.0.1'] }); // the server reads them at start
const stop = new AbortController();
const serving = server.start(stop.signal); // resolves after a graceful shutdown
await server.whenStarted();
const rules = [{ operations: ['CREATE', 'UPDATE'], apiGroups: [group], apiVersions: ['v1'], resources: ['widgets'] }];
const common = { sideEffects: 'None', admissionReviewVersions: ['v1'], rules };
const dev = await setupDevWebhooks({
  clientset,
  server,
  mutating: [{ name: 'widgets.example.kubeloom.dev', webhooks: [{ name: 'mwidget.example.kubeloom.dev', path: generateMutatePath(gvk), ...common }] }],
  validating: [{ name: 'widgets.example.kubeloom.dev', webhooks: [{ name: 'vwidget.example.kubeloom.dev', path: generateValidatePath(gvk), ...common }] }],
  conversions: [{ crdName }],
});
// #endregion

const dynamic = new DynamicClient(clientset.restClient); // shares the connection pool
const v1 = dynamic.resource({ group, version: 'v1', resource: 'widgets' }).namespace(namespace);
const v2 = dynamic.resource({ group, version: 'v2', resource: 'widgets' }).namespace(namespace);
const created = await v1.create({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: { size: 3 } });
console.log('defaulted color:', (created['spec'] as WidgetV1['spec']).color); // blue
console.log('as v2:', (await v2.get('w'))['spec']); // { size: '3', color: 'blue' }
try {
  await v1.create({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'big' }, spec: { size: 11 } });
  throw new Error('the validating webhook let a size of 11 through');
} catch (err) {
  console.log((err as Error).message); // admission webhook "vwidget.example.kubeloom.dev" denied the request: spec.size: must be at most 10
}

await v1.delete('w');
await dev.teardown();
await clientset.apiextensionsV1().customResourceDefinitions().delete(crdName);
stop.abort();
await serving;
await clientset.close();
await rm(certDir, { recursive: true, force: true });
