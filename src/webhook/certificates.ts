/**
 * Development certificates for the webhook server: a CA and a serving certificate it signs, written
 * into the server's certificate folder as `tls.crt`/`tls.key` (and `ca.crt`), so that an API server
 * given the CA as `caBundle` trusts the local server. controller-runtime leaves this to cert-manager
 * or to envtest (sigs.k8s.io/controller-runtime/pkg/envtest/webhook.go, which makes a CA with
 * pkg/internal/testing/certs/tinyca.go and a serving certificate for `localhost`/127.0.0.1); this is
 * the same idea for `npm start` against any cluster. Certificates are ECDSA P-256 / SHA-256 with the
 * names as subjectAltNames (Go ≥ 1.15 ignores the common name), valid for one year.
 */
import { X509Certificate } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import path from 'node:path';
import { realClock, type Clock } from '../util/clock/clock.ts';
import { defaultCertDir } from './server.ts';

// The certificate generator loads only when certificates are made.
async function generate(...args: Parameters<typeof import('selfsigned').generate>): ReturnType<typeof import('selfsigned').generate> {
  return (await import('selfsigned')).generate(...args);
}

// tinyca.go: certificates valid for a year (its CA for ten; a development CA needs no more than its leaf).
const validityMs = 365 * 24 * 3600 * 1000;

/** Options of {@link generateServingCertificates}. */
export interface ServingCertificateOptions {
  /** Folder written (created if missing): tls.crt, tls.key, ca.crt (default the webhook server's default certDir). */
  certDir?: string;
  /** DNS names and IP addresses the serving certificate is valid for (default localhost, 127.0.0.1, ::1). */
  hosts?: readonly string[];
  /** File name of the certificate (default 'tls.crt'). */
  certName?: string;
  /** File name of the key (default 'tls.key'). */
  keyName?: string;
  /** Time source of the validity period (default the real clock). */
  clock?: Clock;
}

/** What {@link generateServingCertificates} made. */
export interface ServingCertificates {
  /** The folder the files were written to. */
  certDir: string;
  /** The CA certificate (PEM). */
  caCert: string;
  /** The CA certificate, base64 of its PEM: the `caBundle` of webhook configurations and CRDs. */
  caBundle: string;
  /** The serving certificate (PEM). */
  cert: string;
  /** The serving key (PEM). */
  key: string;
}

/** A certificate and its private key, in PEM. */
export interface KeyPairPem {
  /** The certificate (PEM). */
  cert: string;
  /** The private key (PEM). */
  key: string;
}

/** The validity window and names of a certificate authority made by {@link createCertificateAuthority}. */
export interface CertificateAuthorityOptions {
  /** The CA's common name. */
  commonName: string;
  /** The CA's organization (none when unset). */
  organization?: string;
  /** Start of validity. */
  notBefore: Date;
  /** End of validity. */
  notAfter: Date;
}

/** A self-signed CA (ECDSA P-256, SHA-256) that may sign certificates. */
export async function createCertificateAuthority(options: CertificateAuthorityOptions): Promise<KeyPairPem> {
  const attrs = [{ name: 'commonName', value: options.commonName }, ...(options.organization === undefined ? [] : [{ name: 'organizationName', value: options.organization }])];
  const ca = await generate(attrs, {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: options.notBefore,
    notAfterDate: options.notAfter,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  return { cert: ca.cert, key: ca.private };
}

/** A serving certificate for `hosts` (DNS names or IP addresses, the first also its common name) signed by `ca`. */
export async function issueServingCertificate(ca: KeyPairPem, hosts: readonly string[], notBefore: Date, notAfter: Date): Promise<KeyPairPem> {
  const leaf = await generate([{ name: 'commonName', value: hosts[0] ?? 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: notBefore,
    notAfterDate: notAfter,
    ca: { key: ca.key, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: hosts.map((h) => (isIP(h) === 0 ? { type: 2 as const, value: h } : { type: 7 as const, ip: h })) },
    ],
  });
  return { cert: leaf.cert, key: leaf.private };
}

/** Makes a CA and a serving certificate signed by it, and writes them into `certDir`. */
export async function generateServingCertificates(options: ServingCertificateOptions = {}): Promise<ServingCertificates> {
  const certDir = options.certDir ?? defaultCertDir();
  const hosts = options.hosts ?? ['localhost', '127.0.0.1', '::1'];
  const clock = options.clock ?? realClock;
  const notBeforeDate = new Date(clock.now() - 60_000);
  const notAfterDate = new Date(clock.now() + validityMs);
  const caPair = await createCertificateAuthority({ commonName: 'kubeloom-webhook-ca', notBefore: notBeforeDate, notAfter: notAfterDate });
  const ca = { cert: caPair.cert, private: caPair.key };
  const leafPair = await issueServingCertificate(caPair, hosts, notBeforeDate, notAfterDate);
  const leaf = { cert: leafPair.cert, private: leafPair.key };
  await mkdir(certDir, { recursive: true });
  // The key first, then the certificate: a watcher that sees the new certificate finds its key.
  await writeFile(path.join(certDir, options.keyName ?? 'tls.key'), leaf.private, { mode: 0o600 });
  await writeFile(path.join(certDir, options.certName ?? 'tls.crt'), leaf.cert);
  await writeFile(path.join(certDir, 'ca.crt'), ca.cert);
  return { certDir, caCert: ca.cert, caBundle: Buffer.from(ca.cert).toString('base64'), cert: leaf.cert, key: leaf.private };
}

// Certificates closer than this to their end are made again rather than reused.
const renewBeforeMs = 24 * 3600 * 1000;

/**
 * The certificates of `certDir` when they can serve again (a CA in ca.crt that signed tls.crt, tls.crt
 * valid for every host and for at least another day, tls.key present), else new ones from
 * {@link generateServingCertificates}. Reusing them keeps the CA bundle of webhook configurations
 * written by an earlier run valid across restarts.
 */
export async function ensureServingCertificates(options: ServingCertificateOptions = {}): Promise<ServingCertificates> {
  const certDir = options.certDir ?? defaultCertDir();
  const hosts = options.hosts ?? ['localhost', '127.0.0.1', '::1'];
  const clock = options.clock ?? realClock;
  try {
    const [caCert, cert, key] = await Promise.all([
      readFile(path.join(certDir, 'ca.crt'), 'utf8'),
      readFile(path.join(certDir, options.certName ?? 'tls.crt'), 'utf8'),
      readFile(path.join(certDir, options.keyName ?? 'tls.key'), 'utf8'),
    ]);
    const ca = new X509Certificate(caCert);
    const leaf = new X509Certificate(cert);
    const fresh = Date.parse(leaf.validTo) - clock.now() > renewBeforeMs && Date.parse(leaf.validFrom) <= clock.now();
    const names = hosts.every((h) => (isIP(h) === 0 ? leaf.checkHost(h) !== undefined : leaf.checkIP(h) !== undefined));
    if (fresh && names && leaf.verify(ca.publicKey)) return { certDir, caCert, caBundle: Buffer.from(caCert).toString('base64'), cert, key };
  } catch {
    // missing or unreadable: made anew
  }
  return generateServingCertificates(options);
}
