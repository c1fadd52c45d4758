/**
 * Development mode for webhooks: what cert-manager and a Service do in a cluster, done for an operator
 * running on a laptop (`npm start`) against any API server that can reach it. It makes (or reuses) a
 * CA and a serving certificate in the webhook server's certificate folder and points the cluster at
 * the local server: MutatingWebhookConfigurations and ValidatingWebhookConfigurations are created or
 * replaced with `clientConfig.url: https://<host>:<port><path>` and the CA as `caBundle`, and CRDs get
 * `spec.conversion` set to strategy Webhook at the server's conversion path. controller-runtime has
 * no such helper (envtest does the same for its test API server: pkg/envtest/webhook.go, which
 * rewrites the configurations' clientConfig to a local URL and CA); kubeloom offers it for both the
 * embedded server and real clusters.
 *
 * The API server must reach `host` (default 127.0.0.1: the API server runs on the same machine, as
 * the embedded one or a local kube-apiserver does; kind or a remote cluster need an address they
 * can dial, and a certificate naming it, which `hosts` adds).
 */
import { createServer, isIP } from 'node:net';
import type { MutatingWebhook, MutatingWebhookConfiguration, ValidatingWebhook, ValidatingWebhookConfiguration } from '../api/admissionregistration/v1.ts';
import { KubeloomError, isNotFound } from '../apimachinery/errors.ts';
import type { Clientset } from '../kubernetes/clientset.ts';
import { ensureServingCertificates, type ServingCertificates } from './certificates.ts';
import type { WebhookServer } from './server.ts';

/** A mutating webhook served by the local server (its clientConfig is written by {@link setupDevWebhooks}). */
export interface DevMutatingWebhook extends Omit<MutatingWebhook, 'clientConfig'> {
  /** The path the local server serves it at. */
  path: string;
}

/** A validating webhook served by the local server. */
export interface DevValidatingWebhook extends Omit<ValidatingWebhook, 'clientConfig'> {
  /** The path the local server serves it at. */
  path: string;
}

/** A webhook configuration to write: its name and its webhooks. */
export interface DevWebhookConfiguration<W> {
  /** The configuration's name. */
  name: string;
  /** Its webhooks, in order. */
  webhooks: W[];
}

/** A CRD whose conversion the local server performs. */
export interface DevConversion {
  /** The CRD's name (`<plural>.<group>`). */
  crdName: string;
  /** Path of the conversion webhook (default '/convert', controller-runtime's). */
  path?: string;
  /** The review versions the webhook accepts (default ['v1']). */
  conversionReviewVersions?: string[];
}

/** Options of {@link setupDevWebhooks}. */
export interface DevWebhookOptions {
  /** A clientset for the cluster (it needs to write webhook configurations and patch CRDs). */
  clientset: Pick<Clientset, 'admissionregistrationV1' | 'apiextensionsV1'>;
  /** The webhook server: its certDir receives the certificates; with port 0 it must already be listening. */
  server: WebhookServer;
  /** The address the API server calls (default '127.0.0.1'). */
  host?: string;
  /** Other names the serving certificate must carry besides `host` (default none). */
  hosts?: string[];
  /** MutatingWebhookConfigurations to write, by name. */
  mutating?: DevWebhookConfiguration<DevMutatingWebhook>[];
  /** ValidatingWebhookConfigurations to write, by name. */
  validating?: DevWebhookConfiguration<DevValidatingWebhook>[];
  /** CRDs to convert through the local server. */
  conversions?: DevConversion[];
}

/** What {@link setupDevWebhooks} set up. */
export interface DevWebhooks {
  /** The certificates in use (new or reused). */
  certificates: ServingCertificates;
  /** The base URL the cluster calls, `https://<host>:<port>`. */
  baseUrl: string;
  /** Deletes the webhook configurations written (the CRDs keep their conversion settings). */
  teardown(): Promise<void>;
}

/** setupDevWebhooks could not work out where the server listens. */
export class DevWebhookError extends KubeloomError {
  constructor(message: string) {
    super('ERR_DEV_WEBHOOKS', message);
  }
}

// Listens on the port and closes at once: EADDRINUSE means another process holds it.
async function assertPortFree(host: string, port: number): Promise<void> {
  const probe = createServer();
  const err = await new Promise<Error | undefined>((resolve) => {
    probe.once('error', resolve);
    probe.listen({ port, ...(host === '' ? {} : { host }), exclusive: true }, () => resolve(undefined));
  });
  if (err === undefined) {
    await new Promise<void>((r) => probe.close(() => r()));
    return;
  }
  throw new DevWebhookError(`webhook server could not listen on ${host}:${port}: ${err.message}; the cluster was not changed (stop what listens there, or give the webhook server another port)`);
}

/**
 * Certificates into the server's certDir, then webhook configurations and CRD conversions pointing at
 * the local server. Call it before `server.start()` (the server reads the certificate when it starts)
 * when the port is fixed (9443 by default); with port 0, generate the certificates first
 * ({@link ensureServingCertificates} on the same folder), start the server, then call it.
 *
 * @example
 * ```ts
 * const server = new WebhookServer({ certDir: '.dev-certs' });
 * server.register('/validate-example-com-v1-widget', new AdmissionWebhook(withCustomValidator(widgetValidator)));
 * await setupDevWebhooks({ clientset, server, validating: [{ name: 'widgets', webhooks: [{ name: 'vwidget.example.com', path: '/validate-example-com-v1-widget', sideEffects: 'None', admissionReviewVersions: ['v1'], rules: [...] }] }] });
 * await server.start(signal);
 * ```
 */
export async function setupDevWebhooks(options: DevWebhookOptions): Promise<DevWebhooks> {
  const host = options.host ?? '127.0.0.1';
  const hostNames = [...new Set([host, ...(options.hosts ?? [])])];
  const certificates = await ensureServingCertificates({ certDir: options.server.options.certDir, certName: options.server.options.certName, keyName: options.server.options.keyName, hosts: hostNames });
  let port = options.server.options.port;
  const address = options.server.address();
  if (port === 0) {
    if (address === undefined) throw new DevWebhookError('the webhook server listens on a port chosen at start (port 0): start it before setupDevWebhooks, or give it a fixed port');
    port = address.port;
  } else if (address === undefined) {
    // Before the cluster is pointed at the port: a port taken by another process fails here, not later
    // when the server starts and the API server already calls someone else.
    await assertPortFree(options.server.options.host, port);
  }
  const baseUrl = `https://${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
  const clientConfig = (path: string): { url: string; caBundle: string } => ({ url: `${baseUrl}${path}`, caBundle: certificates.caBundle });
  const admission = options.clientset.admissionregistrationV1();
  const written: (() => Promise<unknown>)[] = [];
  for (const c of options.mutating ?? []) {
    const webhooks: MutatingWebhook[] = c.webhooks.map(({ path, ...w }) => ({ ...w, clientConfig: clientConfig(path) }));
    const client = admission.mutatingWebhookConfigurations();
    await createOrReplace(client, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: c.name }, webhooks } satisfies MutatingWebhookConfiguration);
    written.push(() => client.delete(c.name));
  }
  for (const c of options.validating ?? []) {
    const webhooks: ValidatingWebhook[] = c.webhooks.map(({ path, ...w }) => ({ ...w, clientConfig: clientConfig(path) }));
    const client = admission.validatingWebhookConfigurations();
    await createOrReplace(client, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: c.name }, webhooks } satisfies ValidatingWebhookConfiguration);
    written.push(() => client.delete(c.name));
  }
  const crds = options.clientset.apiextensionsV1().customResourceDefinitions();
  for (const c of options.conversions ?? []) {
    // `service: null` clears a Service a manifest may have set: a clientConfig has a url or a service, not both.
    await crds.patch(c.crdName, 'application/merge-patch+json', {
      spec: { conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: c.conversionReviewVersions ?? ['v1'], clientConfig: { ...clientConfig(c.path ?? '/convert'), service: null } } } },
    });
  }
  return {
    certificates,
    baseUrl,
    async teardown() {
      for (const del of written) {
        try {
          await del();
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      }
    },
  };
}

interface ConfigurationClient<T> {
  get(name: string): Promise<T>;
  create(obj: T): Promise<T>;
  update(obj: T): Promise<T>;
}

// Create, or replace what is there (keeping only its resourceVersion).
async function createOrReplace<T extends { metadata?: { name?: string; resourceVersion?: string } }>(client: ConfigurationClient<T>, obj: T): Promise<void> {
  let existing: T;
  try {
    existing = await client.get(obj.metadata!.name!);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await client.create(obj);
    return;
  }
  await client.update({ ...obj, metadata: { ...obj.metadata, resourceVersion: existing.metadata?.resourceVersion } });
}
