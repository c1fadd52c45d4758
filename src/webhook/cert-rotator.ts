/**
 * Webhook certificates without cert-manager (open-policy-agent/cert-controller pkg/rotator/rotator.go,
 * the rotator Gatekeeper and many operators ship): a self-signed CA and a serving certificate kept in a
 * Secret (`ca.crt`, `ca.key`, `tls.crt`, `tls.key`), the serving pair written into the webhook server's
 * certificate folder (its {@link CertWatcher} picks up every renewal), and the CA injected as `caBundle`
 * into the named Validating/MutatingWebhookConfigurations and CRD conversion webhooks.
 *
 * Kept from upstream: the Secret layout; the defaults (check every 12 h, CA valid 10 years, serving
 * certificate 1 year, both renewed once they would expire within the 90-day lookahead, validity starting
 * an hour back for clock skew); a CA that is missing, unparsable or near its end regenerates CA and
 * serving certificate, a serving certificate that is missing, not signed by the CA, not valid for the
 * names or near its end is reissued from the existing CA; a failure at start fails the manager; a CRD
 * without `spec.conversion.webhook.clientConfig` is an error.
 *
 * Differences: the Secret is created when missing (upstream requires it to exist, from the operator's
 * manifests), so an operator run out of cluster works too; the serving pair is written to `certDir`
 * directly rather than waited for through a Secret volume mount; keys are ECDSA P-256 (upstream RSA
 * 2048), as the rest of kubeloom's certificates; caBundles are re-checked on every rotation check and,
 * while one is still missing (its object not created yet, or a conflict), every `injectRetryMs`, where
 * upstream watches the objects. The rotator runs in the manager's `httpServers` group on every replica
 * and is ready for the next group once the files are written, so the webhook server never starts
 * without them; replicas share the Secret through optimistic concurrency (a conflict re-reads it).
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import path from 'node:path';
import type { Secret } from '../api/core/v1.ts';
import { isAlreadyExists, isConflict, isNotFound, KubeloomError } from '../apimachinery/errors.ts';
import { ResourceClient } from '../kubernetes/resource-client.ts';
import type { RestClient } from '../rest/client.ts';
import { defaultLogger, type Logger } from '../tools/events/logger.ts';
import { realClock, type Clock } from '../util/clock/clock.ts';
import { createCertificateAuthority, issueServingCertificate, type KeyPairPem } from './certificates.ts';
import { defaultCertDir } from './server.ts';

const day = 24 * 3600 * 1000;
// rotator.go: defaultRotationCheckFrequency.
const defaultRotationCheckFrequencyMs = 12 * 3600 * 1000;
// rotator.go: defaultCaCertValidityDuration.
const defaultCaCertDurationMs = 10 * 365 * day;
// rotator.go: defaultServerCertValidityDuration.
const defaultServerCertDurationMs = 365 * day;
// rotator.go: defaultLookaheadInterval.
const defaultLookaheadMs = 90 * day;
// rotator.go refreshCerts: `begin := now.Add(-1 * time.Hour)`.
const backdateMs = 3600 * 1000;
// kubeloom: how soon a caBundle that could not be written is tried again (upstream reacts to watch events).
const defaultInjectRetryMs = 5_000;

/** The Secret keys of the CA (rotator.go caCertName, caKeyName). */
export const caCertKey = 'ca.crt';
/** The Secret key of the CA's private key. */
export const caKeyKey = 'ca.key';

/** What a caBundle is injected into (rotator.go WebhookType). */
export const WebhookType = {
  /** A ValidatingWebhookConfiguration: every webhook's clientConfig.caBundle. */
  Validating: 'Validating',
  /** A MutatingWebhookConfiguration: every webhook's clientConfig.caBundle. */
  Mutating: 'Mutating',
  /** A CustomResourceDefinition: spec.conversion.webhook.clientConfig.caBundle. */
  CRDConversion: 'CRDConversion',
} as const;
/** One of {@link WebhookType}. */
export type WebhookTypeValue = (typeof WebhookType)[keyof typeof WebhookType];

/** An object whose caBundle the rotator keeps (rotator.go WebhookInfo). */
export interface WebhookInfo {
  /** The webhook configuration's name, or the CRD's (`widgets.example.com`). */
  name: string;
  /** What kind of object it is. */
  type: WebhookTypeValue;
}

/** The rotator could not make, store or inject its certificates. */
export class CertRotatorError extends KubeloomError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_CERT_ROTATOR', message, options);
  }
}

/** Options of {@link CertRotator} (rotator.go CertRotator's fields). */
export interface CertRotatorOptions {
  /** The Secret holding CA and serving pair (SecretKey); created when missing. */
  secret: {
    /** The Secret's namespace (usually the operator's). */
    namespace: string;
    /** The Secret's name. */
    name: string;
  };
  /** Where tls.crt, tls.key and ca.crt are written (default the webhook server's default certDir). */
  certDir?: string;
  /** The name the serving certificate is for, e.g. `webhook-service.system.svc` (DNSName). */
  dnsName: string;
  /** More names or IP addresses (ExtraDNSNames). */
  extraDnsNames?: readonly string[];
  /** The CA's common name (CAName, default `kubeloom-ca`). */
  caName?: string;
  /** The CA's organization (CAOrganization, default `kubeloom`). */
  caOrganization?: string;
  /** The objects whose caBundle is kept (Webhooks). */
  webhooks?: readonly WebhookInfo[];
  /** File and Secret key of the certificate (CertName, default 'tls.crt'). */
  certName?: string;
  /** File and Secret key of the key (KeyName, default 'tls.key'). */
  keyName?: string;
  /** CA validity (CaCertDuration, default 10 years). */
  caCertDurationMs?: number;
  /** Serving certificate validity (ServerCertDuration, default 1 year). */
  serverCertDurationMs?: number;
  /** Certificates that would expire within this are renewed (LookaheadInterval, default 90 days). */
  lookaheadMs?: number;
  /** How often certificates are checked (RotationCheckFrequency, default 12 hours). */
  rotationCheckFrequencyMs?: number;
  /** How soon a caBundle that could not be written is tried again (default 5 s). */
  injectRetryMs?: number;
  /** Time source of validity windows and checks (default the real clock). */
  clock?: Clock;
  /** Log sink (default: errors to stderr). */
  logger?: Logger;
}

interface Artifacts {
  ca: KeyPairPem;
  serving: KeyPairPem;
}

type Obj = Record<string, unknown> & { metadata?: { resourceVersion?: string } };

/**
 * Keeps a webhook server's certificates and the caBundles that trust them (rotator.CertRotator). Add it
 * to a manager with `mgr.add(rotator)` and `mgr.addReadyzCheck('cert-rotator', rotator.readyChecker())`.
 *
 * @example
 * const rotator = new CertRotator(mgr.rest, {
 *   secret: { namespace: 'system', name: 'webhook-server-cert' },
 *   dnsName: 'webhook-service.system.svc',
 *   certDir: mgr.getWebhookServer().options.certDir,
 *   webhooks: [{ name: 'validating-webhook-configuration', type: WebhookType.Validating }],
 * });
 * mgr.add(rotator);
 * mgr.addReadyzCheck('cert-rotator', rotator.readyChecker());
 */
export class CertRotator {
  /** The manager group: before the webhook server, which needs the files (see the file comment). */
  readonly runnableGroup = 'httpServers' as const;
  readonly #secrets: ResourceClient<Secret>;
  readonly #clients: Record<WebhookTypeValue, ResourceClient<Obj>>;
  readonly #o: Required<Omit<CertRotatorOptions, 'clock' | 'logger' | 'secret' | 'extraDnsNames' | 'webhooks'>> & { hosts: string[]; webhooks: readonly WebhookInfo[] };
  readonly #secret: { namespace: string; name: string };
  readonly #clock: Clock;
  readonly #logger: Logger;
  #current: Artifacts | undefined;
  #certsWritten = false;
  readonly #injected = new Set<string>();
  #written!: (ok: boolean) => void;
  readonly #writtenPromise = new Promise<boolean>((r) => (this.#written = r));

  constructor(rest: RestClient, options: CertRotatorOptions) {
    this.#secret = options.secret;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? defaultLogger;
    this.#o = {
      certDir: options.certDir ?? defaultCertDir(),
      dnsName: options.dnsName,
      hosts: [options.dnsName, ...(options.extraDnsNames ?? [])],
      caName: options.caName ?? 'kubeloom-ca',
      caOrganization: options.caOrganization ?? 'kubeloom',
      webhooks: options.webhooks ?? [],
      certName: options.certName ?? 'tls.crt',
      keyName: options.keyName ?? 'tls.key',
      caCertDurationMs: options.caCertDurationMs ?? defaultCaCertDurationMs,
      serverCertDurationMs: options.serverCertDurationMs ?? defaultServerCertDurationMs,
      lookaheadMs: options.lookaheadMs ?? defaultLookaheadMs,
      rotationCheckFrequencyMs: options.rotationCheckFrequencyMs ?? defaultRotationCheckFrequencyMs,
      injectRetryMs: options.injectRetryMs ?? defaultInjectRetryMs,
    };
    this.#secrets = new ResourceClient<Secret>(rest, { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true, namespace: options.secret.namespace });
    const admission = (resource: string, kind: string): ResourceClient<Obj> => new ResourceClient<Obj>(rest, { group: 'admissionregistration.k8s.io', version: 'v1', resource, kind, namespaced: false });
    this.#clients = {
      Validating: admission('validatingwebhookconfigurations', 'ValidatingWebhookConfiguration'),
      Mutating: admission('mutatingwebhookconfigurations', 'MutatingWebhookConfiguration'),
      CRDConversion: new ResourceClient<Obj>(rest, { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false }),
    };
  }

  /** Runs on every replica (rotator.go NeedLeaderElection with RequireLeaderElection false). */
  needLeaderElection(): boolean {
    return false;
  }

  /**
   * Makes or reuses the certificates, writes the files, injects the caBundles, then checks again every
   * `rotationCheckFrequencyMs` until `signal` aborts. Rejects when the first refresh fails.
   */
  async start(signal: AbortSignal): Promise<void> {
    this.#logger.info('starting cert rotator controller');
    try {
      await this.refreshCertIfNeeded();
    } catch (err) {
      this.#written(false);
      throw new CertRotatorError(`could not refresh cert on startup: ${(err as Error).message}`, { cause: err });
    }
    let sinceCheckMs = 0;
    while (!signal.aborted) {
      const retry = !this.injected();
      const waitMs = retry ? Math.min(this.#o.injectRetryMs, this.#o.rotationCheckFrequencyMs - sinceCheckMs) : this.#o.rotationCheckFrequencyMs - sinceCheckMs;
      try {
        await this.#clock.sleep(waitMs, signal);
      } catch {
        break;
      }
      sinceCheckMs += waitMs;
      try {
        if (sinceCheckMs >= this.#o.rotationCheckFrequencyMs) {
          sinceCheckMs = 0;
          await this.refreshCertIfNeeded();
        } else await this.#injectAll();
      } catch (err) {
        this.#logger.error('error rotating certs', { error: (err as Error).message });
      }
    }
    this.#logger.info('stopping cert rotator controller');
  }

  /** Resolves true once the certificate files are written (the webhook server may start), false if stopped first. */
  async waitReady(signal: AbortSignal): Promise<boolean> {
    if (this.#certsWritten) return true;
    return new Promise<boolean>((resolve) => {
      const onAbort = (): void => resolve(false);
      signal.addEventListener('abort', onAbort, { once: true });
      void this.#writtenPromise.then((ok) => {
        signal.removeEventListener('abort', onAbort);
        resolve(ok);
      });
    });
  }

  /** Whether every named object carries the current CA. */
  injected(): boolean {
    return this.#o.webhooks.every((w) => this.#injected.has(`${w.type}/${w.name}`));
  }

  /** The readiness check (rotator.go IsReady): fails until the files are written and every caBundle injected. */
  readyChecker(): () => Error | undefined {
    return () => {
      if (!this.#certsWritten) return new Error('certificates not written yet');
      const missing = this.#o.webhooks.filter((w) => !this.#injected.has(`${w.type}/${w.name}`)).map((w) => `${w.type} ${w.name}`);
      return missing.length === 0 ? undefined : new Error(`caBundle not injected yet into ${missing.join(', ')}`);
    };
  }

  /** The CA and serving pair in use, once the first refresh is done. */
  current():
    | {
        /** The CA certificate (PEM). */
        caCert: string;
        /** The serving certificate (PEM). */
        cert: string;
        /** The serving key (PEM). */
        key: string;
      }
    | undefined {
    return this.#current === undefined ? undefined : { caCert: this.#current.ca.cert, cert: this.#current.serving.cert, key: this.#current.serving.key };
  }

  /**
   * One rotation check (rotator.go refreshCertIfNeeded): reads the Secret, regenerates the CA and the
   * serving pair, or only the serving pair, when needed, stores them, writes the files and injects the
   * caBundles. Resolves to what was renewed.
   */
  async refreshCertIfNeeded(): Promise<'none' | 'serving' | 'ca'> {
    for (let attempt = 0; ; attempt++) {
      let secret: Secret | undefined;
      try {
        secret = await this.#secrets.get(this.#secret.name);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      const data = decode(secret?.data);
      const now = this.#clock.now();
      let renewed: 'none' | 'serving' | 'ca' = 'none';
      let artifacts: Artifacts;
      const ca = this.#validCa(data, now);
      if (ca === undefined) {
        this.#logger.info('refreshing CA and server certs');
        const fresh = await createCertificateAuthority({ commonName: this.#o.caName, organization: this.#o.caOrganization, notBefore: new Date(now - backdateMs), notAfter: new Date(now + this.#o.caCertDurationMs) });
        artifacts = { ca: fresh, serving: await this.#issue(fresh, now) };
        renewed = 'ca';
      } else {
        const serving = this.#validServing(data, ca, now);
        if (serving === undefined) {
          this.#logger.info('refreshing server certs');
          artifacts = { ca, serving: await this.#issue(ca, now) };
          renewed = 'serving';
        } else artifacts = { ca, serving };
      }
      if (renewed !== 'none') {
        try {
          await this.#store(secret, artifacts);
        } catch (err) {
          // Another replica wrote the Secret first: read it again and use what it made.
          if ((isConflict(err) || isAlreadyExists(err)) && attempt < 3) continue;
          throw err;
        }
        this.#logger.info('server certs refreshed', { renewed });
      }
      if (renewed === 'ca') this.#injected.clear();
      this.#current = artifacts;
      await this.#writeFiles(artifacts);
      await this.#injectAll();
      return renewed;
    }
  }

  async #issue(ca: KeyPairPem, now: number): Promise<KeyPairPem> {
    return issueServingCertificate(ca, this.#o.hosts, new Date(now - backdateMs), new Date(now + this.#o.serverCertDurationMs));
  }

  // validCACert: parses, matches its key, is a CA, and is still valid at now + lookahead.
  #validCa(data: Record<string, string>, now: number): KeyPairPem | undefined {
    const cert = data[caCertKey];
    const key = data[caKeyKey];
    if (cert === undefined || key === undefined) return undefined;
    try {
      const x509 = new X509Certificate(cert);
      if (!x509.ca || !x509.checkPrivateKey(createPrivateKey(key))) return undefined;
      if (!this.#withinWindow(x509, now)) return undefined;
      return { cert, key };
    } catch {
      return undefined;
    }
  }

  // validServerCert: parses, matches its key, is signed by the CA, names every host, valid at now + lookahead.
  #validServing(data: Record<string, string>, ca: KeyPairPem, now: number): KeyPairPem | undefined {
    const cert = data[this.#o.certName];
    const key = data[this.#o.keyName];
    if (cert === undefined || key === undefined) return undefined;
    try {
      const x509 = new X509Certificate(cert);
      if (!x509.checkPrivateKey(createPrivateKey(key))) return undefined;
      if (!x509.verify(new X509Certificate(ca.cert).publicKey)) return undefined;
      if (!this.#o.hosts.every((h) => (isIP(h) === 0 ? x509.checkHost(h) !== undefined : x509.checkIP(h) !== undefined))) return undefined;
      if (!this.#withinWindow(x509, now)) return undefined;
      return { cert, key };
    } catch {
      return undefined;
    }
  }

  #withinWindow(x509: X509Certificate, now: number): boolean {
    return Date.parse(x509.validFrom) <= now && Date.parse(x509.validTo) > now + this.#o.lookaheadMs;
  }

  async #store(secret: Secret | undefined, a: Artifacts): Promise<void> {
    const data = encode({ [caCertKey]: a.ca.cert, [caKeyKey]: a.ca.key, [this.#o.certName]: a.serving.cert, [this.#o.keyName]: a.serving.key });
    if (secret === undefined) {
      await this.#secrets.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: this.#secret.name, namespace: this.#secret.namespace }, type: 'Opaque', data });
      return;
    }
    await this.#secrets.update({ ...secret, data: { ...secret.data, ...data } });
  }

  // The key first, then the certificate: a CertWatcher that sees the new certificate finds its key.
  async #writeFiles(a: Artifacts): Promise<void> {
    const dir = this.#o.certDir;
    await mkdir(dir, { recursive: true });
    const write = async (name: string, content: string, mode?: number): Promise<void> => {
      const file = path.join(dir, name);
      const old = await readFile(file, 'utf8').catch(() => undefined);
      if (old !== content) await writeFile(file, content, mode === undefined ? {} : { mode });
    };
    await write(this.#o.keyName, a.serving.key, 0o600);
    await write(this.#o.certName, a.serving.cert);
    await write(caCertKey, a.ca.cert);
    if (!this.#certsWritten) {
      this.#certsWritten = true;
      this.#written(true);
    }
  }

  async #injectAll(): Promise<void> {
    const ca = this.#current?.ca.cert;
    if (ca === undefined) return;
    const bundle = Buffer.from(ca).toString('base64');
    for (const w of this.#o.webhooks) {
      const id = `${w.type}/${w.name}`;
      try {
        const client = this.#clients[w.type];
        const obj = await client.get(w.name);
        if (injectCaBundle(obj, w, bundle)) {
          await client.update(obj);
          this.#logger.info('injected caBundle', { type: w.type, name: w.name });
        }
        this.#injected.add(id);
      } catch (err) {
        this.#injected.delete(id);
        if (err instanceof CertRotatorError) throw err;
        if (!isNotFound(err) && !isConflict(err)) throw err;
        this.#logger.debug('caBundle not injected yet', { type: w.type, name: w.name, error: (err as Error).message });
      }
    }
  }
}

/**
 * Sets `caBundle` (base64 of the CA's PEM) on every webhook of a configuration, or on a CRD's
 * conversion webhook (rotator.go injectCertToWebhook / injectCertToConversionWebhook). Returns whether
 * anything changed; throws {@link CertRotatorError} for a CRD without a conversion webhook clientConfig.
 */
export function injectCaBundle(obj: Record<string, unknown>, info: WebhookInfo, caBundle: string): boolean {
  let changed = false;
  if (info.type === WebhookType.CRDConversion) {
    const config = ((((obj.spec as Record<string, unknown> | undefined)?.conversion as Record<string, unknown> | undefined)?.webhook as Record<string, unknown> | undefined)?.clientConfig) as
      | Record<string, unknown>
      | undefined;
    if (config === undefined) throw new CertRotatorError(`\`conversion.webhook.clientConfig\` field not found in CustomResourceDefinition ${info.name}`);
    if (config.caBundle !== caBundle) {
      config.caBundle = caBundle;
      changed = true;
    }
    return changed;
  }
  for (const hook of (obj.webhooks ?? []) as Record<string, unknown>[]) {
    const config = (hook.clientConfig ??= {}) as Record<string, unknown>;
    if (config.caBundle !== caBundle) {
      config.caBundle = caBundle;
      changed = true;
    }
  }
  return changed;
}

function decode(data: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
}

function encode(data: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
}
