/**
 * Client-certificate authentication, as k8s.io/apiserver/pkg/authentication/request/x509: a
 * certificate the client CA verified names the user in its subject's CommonName and the groups in its
 * Organizations. A certificate that does not verify is an authentication error (401), not anonymous.
 * Verification itself is the TLS layer's job (the server requests a certificate and checks it against
 * the client CA without refusing the handshake); this module reads its outcome.
 */
import type { PeerCertificate } from 'node:tls';
import { userInfo, type UserInfo } from './user.ts';

/** What the TLS layer knows about the client's certificate. */
export interface PeerCertificateState {
  /** The client's certificate, or undefined when it sent none. */
  certificate: PeerCertificate | undefined;
  /** Whether the certificate verified against the client CA. */
  authorized: boolean;
  /** Why it did not verify (OpenSSL's code, e.g. `UNABLE_TO_VERIFY_LEAF_SIGNATURE`). */
  authorizationError?: string | undefined;
}

/** The outcome of one authenticator: a user, nothing to say (no credentials of its kind), or an error. */
export type AuthenticationResult = { user: UserInfo } | { error: string } | undefined;

function list(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

/**
 * Authenticates by client certificate: undefined without one (or with an empty CommonName, as
 * upstream's CommonNameUserConversion), an error when it did not verify, else CN as the user and the
 * Organizations as groups.
 */
export function authenticateClientCertificate(state: PeerCertificateState): AuthenticationResult {
  const cert = state.certificate;
  if (cert === undefined || cert.raw === undefined || cert.raw.length === 0) return undefined;
  if (!state.authorized) {
    return { error: `verifying certificate SN=${BigInt(`0x${cert.serialNumber}`)} failed: x509: ${describe(state.authorizationError)}` };
  }
  const cn = list(cert.subject.CN)[0] ?? '';
  if (cn === '') return undefined;
  return { user: userInfo(cn, { groups: list(cert.subject.O) }) };
}

// Go's x509 wording for the common OpenSSL verification failures.
function describe(code: string | undefined): string {
  switch (code) {
    case 'CERT_HAS_EXPIRED':
    case 'CERT_NOT_YET_VALID':
      return 'certificate has expired or is not yet valid';
    case undefined:
      return 'certificate signed by unknown authority';
    default:
      return `certificate signed by unknown authority (${code})`;
  }
}
