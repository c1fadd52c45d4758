/**
 * The secure serving options of the manager's metrics server (controller-runtime pkg/metrics/server/
 * server.go, `Options`): HTTPS with the certificate of `certDir` when both files are there, otherwise an
 * in-memory self-signed certificate for localhost (upstream's "Using in-memory self-signed cert"), and an
 * optional filter in front of the handler, usually {@link withAuthenticationAndAuthorization}.
 *
 * Unlike upstream, the certificate files are read once at start (no certwatcher reload) and there are
 * no TLSOpts (Go's tls.Config hooks) and no ExtraHandlers.
 */
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createCertificateAuthority, issueServingCertificate } from '../webhook/certificates.ts';
import type { Clock } from '../util/clock/clock.ts';
import type { MetricsFilterProvider } from './metrics-auth.ts';
import type { ServingKeyPair } from './server.ts';

/** Options of the metrics server beyond its bind address (metricsserver.Options). */
export interface MetricsServerOptions {
  /** Serve HTTPS (SecureServing). Default false: plain HTTP, as upstream. */
  secureServing?: boolean;
  /** Folder of the serving certificate (CertDir). Default `<tmpdir>/k8s-metrics-server/serving-certs`. */
  certDir?: string;
  /** Certificate file name in certDir (CertName). Default 'tls.crt'. */
  certName?: string;
  /** Key file name in certDir (KeyName). Default 'tls.key'. */
  keyName?: string;
  /**
   * Makes the filter every request passes first (FilterProvider), e.g.
   * {@link withAuthenticationAndAuthorization}. Default none: every request is served.
   */
  filterProvider?: MetricsFilterProvider;
}

/** metricsserver's default CertDir. */
export function defaultMetricsCertDir(): string {
  return path.join(os.tmpdir(), 'k8s-metrics-server', 'serving-certs');
}

// certutil.GenerateSelfSignedCertKey: a CA and a serving certificate it signs, valid for a year.
const selfSignedValidityMs = 365 * 24 * 3600 * 1000;

/**
 * The key pair the secure metrics server serves with: `certDir`'s files when both exist, else a new
 * in-memory self-signed pair for `localhost`, 127.0.0.1 and ::1.
 */
export async function metricsServingKeyPair(options: MetricsServerOptions, clock: Clock): Promise<ServingKeyPair> {
  const dir = options.certDir ?? defaultMetricsCertDir();
  const read = async (name: string): Promise<string | undefined> => readFile(path.join(dir, name), 'utf8').catch(() => undefined);
  const [cert, key] = await Promise.all([read(options.certName ?? 'tls.crt'), read(options.keyName ?? 'tls.key')]);
  if (cert !== undefined && key !== undefined) return { cert, key };
  const notBefore = new Date(clock.now() - 60_000);
  const notAfter = new Date(clock.now() + selfSignedValidityMs);
  const ca = await createCertificateAuthority({ commonName: `localhost-ca@${Math.floor(clock.now() / 1000)}`, notBefore, notAfter });
  const leaf = await issueServingCertificate(ca, ['localhost', '127.0.0.1', '::1'], notBefore, notAfter);
  return { cert: `${leaf.cert.trimEnd()}\n${ca.cert.trimEnd()}\n`, key: leaf.key };
}
