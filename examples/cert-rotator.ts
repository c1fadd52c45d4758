/**
 * Webhook certificates without cert-manager: a Manager runs a CertRotator that keeps a self-signed CA
 * and a serving certificate in a Secret, writes them where the webhook server reads them, and injects
 * the CA as caBundle into a ValidatingWebhookConfiguration; the manager is ready once it has. Runs
 * against the cluster of KUBECONFIG and removes what it created. To try it:
 *
 *   npx kubeloom apiserver --write-kubeconfig kubeloom.kubeconfig   # in another terminal
 *   KUBECONFIG=kubeloom.kubeconfig node cert-rotator.ts
 */
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect } from 'node:tls';
import { loadKubeConfig, namespaceOf, newClientset, newManager, restConfigFrom } from 'kubeloom';
import { eventually } from 'kubeloom/testing';
import { CertRotator, WebhookServer, WebhookType } from 'kubeloom/webhook';

const kubeconfig = await loadKubeConfig();
const restConfig = await restConfigFrom(kubeconfig);
const clientset = newClientset(restConfig);
const namespace = namespaceOf(kubeconfig);
const certDir = await mkdtemp(path.join(tmpdir(), 'cert-rotator-example-'));
// A configuration whose webhook matches nothing (no namespace has the label): only its caBundle matters here.
await clientset.admissionregistrationV1().validatingWebhookConfigurations().create({
  metadata: { name: 'cert-rotator-example' },
  webhooks: [
    {
      name: 'validate.cert-rotator.example.com',
      clientConfig: { url: 'https://127.0.0.1:9443/validate' },
      namespaceSelector: { matchLabels: { 'cert-rotator.example.com/never': 'true' } },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
    },
  ],
});

// #region rotator
const mgr = newManager(restConfig, { webhookServer: new WebhookServer({ host: '127.0.0.1', port: 0, certDir }), healthProbeBindAddress: '127.0.0.1:0' });
const rotator = new CertRotator(mgr.rest, {
  secret: { namespace, name: 'cert-rotator-example-certs' },
  dnsName: 'localhost',
  extraDnsNames: ['127.0.0.1'],
  certDir,
  webhooks: [{ name: 'cert-rotator-example', type: WebhookType.Validating }],
});
mgr.add(rotator); // before the webhook server, which starts once the files exist
mgr.addReadyzCheck('cert-rotator', rotator.readyChecker()); // ready once the caBundle is injected too
mgr.getWebhookServer().register('/validate', (_req, res) => res.end());
// #endregion

const stop = new AbortController();
const running = mgr.start(stop.signal);
await eventually(async () => (await fetch(`http://${mgr.addresses().healthProbe ?? ''}/readyz`)).status === 200, { timeoutMs: 30_000 });
const secret = await clientset.coreV1().secrets(namespace).get('cert-rotator-example-certs');
const caCert = Buffer.from(secret.data?.['ca.crt'] ?? '', 'base64').toString();
const config = await clientset.admissionregistrationV1().validatingWebhookConfigurations().get('cert-rotator-example');
if (config.webhooks?.[0]?.clientConfig.caBundle !== Buffer.from(caCert).toString('base64')) throw new Error('the caBundle is not the CA of the Secret');
// The webhook server serves the rotated certificate, which the CA verifies.
const port = mgr.getWebhookServer().address()!.port;
const peer = await new Promise<X509Certificate>((resolve, reject) => {
  const socket = connect({ host: '127.0.0.1', port, ca: caCert, servername: 'localhost' }, () => {
    resolve(new X509Certificate(socket.getPeerCertificate().raw));
    socket.end();
  });
  socket.once('error', reject);
});
console.log(`webhook server certificate for ${peer.subjectAltName ?? ''}, valid until ${peer.validTo}; caBundle injected`);
stop.abort();
await running;
await clientset.admissionregistrationV1().validatingWebhookConfigurations().delete('cert-rotator-example');
await clientset.coreV1().secrets(namespace).delete('cert-rotator-example-certs');
await clientset.close();
await rm(certDir, { recursive: true, force: true });
