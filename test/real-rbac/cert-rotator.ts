/**
 * CertRotator against a real kube-apiserver: the rotator keeps a webhook server's certificates in a
 * Secret and injects its CA into a ValidatingWebhookConfiguration and a CRD's conversion webhook; the
 * real server then calls the webhook (https://127.0.0.1:<port>, trusted only through that caBundle) and
 * relays its denial. With lifetimes shortened so that every check renews, the serving certificate is
 * rotated and the server keeps calling the webhook successfully. (CA rotation is pinned on the embedded
 * server, src/webhook/cert-rotator.test.ts.)
 *
 *   node test/real-rbac/cert-rotator.ts [KUBECONFIG]   (default $KUBELOOM_TEST_KUBECONFIG, then ~/realk8s/kubeconfig)
 *
 * Uses the namespace rbac-lane-work and the CRD group rbac-lane.kubeloom.io; removes what it creates
 * but the namespace. Prints what it observed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import type { ConfigMap, Namespace, Secret } from '../../src/api/core/v1.ts';
import { isAlreadyExists } from '../../src/apimachinery/errors.ts';
import { loadKubeConfigFile, restConfigFrom } from '../../src/clientcmd/index.ts';
import { ResourceClient } from '../../src/kubernetes/resource-client.ts';
import { newManager } from '../../src/manager/manager.ts';
import { AdmissionWebhook } from '../../src/webhook/admission/webhook.ts';
import { allowed, denied } from '../../src/webhook/admission/response.ts';
import { CertRotator, WebhookType } from '../../src/webhook/cert-rotator.ts';
import { WebhookServer } from '../../src/webhook/server.ts';

const ns = 'rbac-lane-work';
const vwcName = 'rbac-lane-cert-rotator';
const crdName = 'gadgets.rbac-lane.kubeloom.io';
const kubeconfigPath = process.argv[2] ?? process.env.KUBELOOM_TEST_KUBECONFIG ?? path.join(homedir(), 'realk8s', 'kubeconfig');
const config = await restConfigFrom(await loadKubeConfigFile(kubeconfigPath));
const quiet = { debug() {}, info() {}, error: (m: string, f?: unknown) => console.error(m, f ?? '') };
const mgr = newManager({ ...config, qps: -1 }, { logger: quiet, healthProbeBindAddress: '127.0.0.1:0', webhookServer: new WebhookServer({ host: '127.0.0.1', port: 0, certDir: await mkdtemp(path.join(tmpdir(), 'rbac-lane-rotator-')), logger: quiet, certWatchIntervalMs: 500 }) });
const rest = mgr.rest;
type Obj = Record<string, unknown> & { metadata?: { name?: string; resourceVersion?: string } };
const vwcs = new ResourceClient<Obj>(rest, { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingwebhookconfigurations', kind: 'ValidatingWebhookConfiguration', namespaced: false });
const crds = new ResourceClient<Obj>(rest, { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false });
const namespaces = new ResourceClient<Namespace>(rest, { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false });
const configMaps = new ResourceClient<ConfigMap>(rest, { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, namespace: ns });
const secrets = new ResourceClient<Secret>(rest, { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true, namespace: ns });
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

await namespaces.create({ metadata: { name: ns } }).catch((err: unknown) => {
  if (!isAlreadyExists(err)) throw err;
});
const server = mgr.getWebhookServer();
server.register(
  '/validate',
  new AdmissionWebhook((req) => ((req.object as ConfigMap | undefined)?.metadata?.labels?.['rbac-lane.kubeloom.io/deny'] === 'true' ? denied('denied by the rbac-lane webhook') : allowed())),
);
// The rotator needs the port, which is known once the server listens; the configuration is written then.
const rotator = new CertRotator(rest, {
  secret: { namespace: ns, name: 'rbac-lane-webhook-certs' },
  dnsName: 'localhost',
  extraDnsNames: ['127.0.0.1'],
  certDir: server.options.certDir,
  webhooks: [
    { name: vwcName, type: WebhookType.Validating },
    { name: crdName, type: WebhookType.CRDConversion },
  ],
  // Every check renews: the serving certificate lives 2 h and is renewed when it has less than 2 h left.
  serverCertDurationMs: 2 * 3600_000,
  lookaheadMs: 2 * 3600_000 - 1_000,
  rotationCheckFrequencyMs: 3_000,
  injectRetryMs: 500,
  logger: quiet,
});
mgr.add(rotator);
mgr.addReadyzCheck('cert-rotator', rotator.readyChecker());
await crds.create({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: crdName },
  spec: {
    group: 'rbac-lane.kubeloom.io',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
    scope: 'Namespaced',
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    conversion: { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://127.0.0.1:1/convert' }, conversionReviewVersions: ['v1'] } },
  },
});
const stop = new AbortController();
const running = mgr.start(stop.signal);
const { port } = await server.whenStarted();
await vwcs.create({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name: vwcName },
  webhooks: [
    {
      name: 'deny.rbac-lane.kubeloom.io',
      clientConfig: { url: `https://127.0.0.1:${port}/validate` },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], scope: 'Namespaced' }],
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      failurePolicy: 'Fail',
      timeoutSeconds: 5,
    },
  ],
});
const caOfSecret = async (): Promise<string> => (await secrets.get('rbac-lane-webhook-certs')).data?.['ca.crt'] ?? '';
// The real server's answer to a ConfigMap the webhook denies: proof that it trusted the served certificate.
const admission = async (): Promise<string> => {
  try {
    await configMaps.create({ metadata: { generateName: 'probe-', labels: { 'rbac-lane.kubeloom.io/deny': 'true' } } });
    return 'created (webhook not called?)';
  } catch (err) {
    return (err as Error).message;
  }
};
const until = async (what: string, f: () => Promise<boolean>): Promise<void> => {
  for (let i = 0; i < 150; i++) {
    if (await f()) return;
    await sleep(200);
  }
  throw new Error(`timed out waiting for ${what}`);
};
try {
  await until('readiness', async () => rotator.readyChecker()() === undefined);
  const ca = await caOfSecret();
  const vwc = await vwcs.get(vwcName);
  const crd = await crds.get(crdName);
  const vwcBundle = (vwc.webhooks as { clientConfig: { caBundle?: string } }[])[0]!.clientConfig.caBundle;
  const crdBundle = ((crd.spec as Obj).conversion as { webhook: { clientConfig: { caBundle?: string } } }).webhook.clientConfig.caBundle;
  console.log(`caBundle injected: ValidatingWebhookConfiguration ${vwcBundle === ca}, CRD conversion ${crdBundle === ca}`);
  await until('the webhook to answer through the real server', async () => (await admission()).includes('denied by the rbac-lane webhook'));
  console.log(`kube-apiserver → webhook: ${await admission()}`);
  const firstCert = rotator.current()!.cert;
  await until('a serving certificate renewal', async () => rotator.current()!.cert !== firstCert);
  await sleep(1_500); // the certificate watcher polls every 500 ms
  console.log(`serving certificate renewed (same CA: ${rotator.current()!.caCert === Buffer.from(ca, 'base64').toString()}); kube-apiserver → webhook: ${await admission()}`);
} finally {
  stop.abort();
  await running.catch((err: unknown) => console.error('manager:', (err as Error).message));
  await vwcs.delete(vwcName).catch(() => undefined);
  await crds.delete(crdName).catch(() => undefined);
  await secrets.delete('rbac-lane-webhook-certs').catch(() => undefined);
  await rm(server.options.certDir, { recursive: true, force: true });
  await rest.close();
}
