/**
 * Custom resources, the recommended route (docs/crds.md): declare the CRD in TypeScript with
 * `defineCrd`, which gives the manifest, the object type and the kind the Manager takes; write the
 * manifest as YAML for `kubectl apply` / kustomize with `toYaml`; add conversion settings when a
 * second version comes. Runs on the embedded API server: `node examples/crds.ts`.
 */
import { startApiServer } from 'kubeloom/testing';

const server = await startApiServer();

// #region declare
import { defineCrd, s, toYaml, type ObjectOf } from 'kubeloom/apiextensions';
import { newClientset } from 'kubeloom/kubernetes';

const websiteSpec = s.object({ url: s.string({ pattern: '^https?://' }), replicas: s.integer({ minimum: 0, default: 1 }) }, { required: ['url'] });
const websiteStatus = s.object({ readyReplicas: s.integer() });

export const websites = defineCrd({
  group: 'diag.example.com',
  kind: 'Website',
  plural: 'websites',
  scope: 'Namespaced',
  versions: [{ name: 'v1', schema: s.object({ spec: websiteSpec, status: websiteStatus }), subresources: { status: {} } }],
});
export type Website = ObjectOf<typeof websites>;

// config/crd/bases/diag.example.com_websites.yaml, as controller-gen would write it.
const yaml = toYaml(websites.manifest);

const clientset = newClientset({ host: server.url, qps: -1 });
await clientset.apiextensionsV1().customResourceDefinitions().create(websites.manifest);
const kind = websites.resource('v1'); // the ResourceKind the Manager, builder and client take
// #endregion

// #region conversion
// A second version, converted by the operator's webhook behind the Service `system/webhook-service`
// (kubebuilder's webhook_in_websites.yaml patch; cert-manager fills the caBundle).
export const websitesV2 = defineCrd({
  group: 'diag.example.com',
  kind: 'Website',
  plural: 'websites',
  scope: 'Namespaced',
  annotations: { 'cert-manager.io/inject-ca-from': 'system/serving-cert' },
  versions: [
    { name: 'v1', schema: s.object({ spec: websiteSpec, status: websiteStatus }), subresources: { status: {} } },
    { name: 'v2', schema: s.object({ spec: s.object({ urls: s.array(s.string()), replicas: s.integer() }), status: websiteStatus }), subresources: { status: {} }, storage: true },
  ],
  conversion: { strategy: 'Webhook', service: { namespace: 'system', name: 'webhook-service' }, conversionReviewVersions: ['v1'] },
});
// #endregion

const created = await clientset.forCustomResource(kind, 'default').create({ apiVersion: 'diag.example.com/v1', kind: 'Website', metadata: { name: 'home' }, spec: { url: 'https://example.com' } } satisfies Website);
console.log(yaml.split('\n')[0], created.spec?.replicas, websitesV2.manifest.spec.conversion?.strategy);
await server.stop();
