/**
 * The HTTP transport for one RestConfig (transport.New): a single undici dispatcher — an Agent, or a
 * ProxyAgent when `proxyUrl` is set — carrying the TLS settings and keeping connections alive, so
 * every request of every client built from the config reuses the same pooled connections.
 */
import { Agent, ProxyAgent, type Dispatcher } from 'undici';
import type { RestConfig, TlsClientConfig } from './config.ts';
import { KubeloomError } from '../apimachinery/errors.ts';

/** The RestConfig is unusable (bad host URL, half a client certificate, ...). */
export class ConfigError extends KubeloomError {
  constructor(message: string) {
    super('ERR_KUBE_REST_CONFIG', message);
  }
}

// Idle keep-alive sockets are kept this long (Go's http.Transport IdleConnTimeout in client-go is 90 s).
const keepAliveTimeoutMs = 90_000;

/** A client certificate and key presented in the TLS handshake. */
export interface ClientCertificate {
  /** PEM certificate. */
  certData: string;
  /** PEM private key. */
  keyData: string;
}

/**
 * The Node TLS options (`ca`, `cert`, `key`, `servername`, `rejectUnauthorized`) for a config's TLS
 * settings and client certificate: what every connection to the server presents, pooled or upgraded.
 */
export function tlsOptions(tls: TlsClientConfig | undefined, cert: ClientCertificate | undefined): Record<string, unknown> {
  const opts: Record<string, unknown> = {};
  if (tls?.caData !== undefined && tls.caData !== '') opts['ca'] = tls.caData;
  if (tls?.insecure === true) opts['rejectUnauthorized'] = false;
  if (tls?.serverName !== undefined && tls.serverName !== '') opts['servername'] = tls.serverName;
  if (cert !== undefined) {
    opts['cert'] = cert.certData;
    opts['key'] = cert.keyData;
  }
  return opts;
}

/** Normalises RestConfig.host to an origin plus base path (defaulting the scheme as client-go does). */
export function parseHost(config: RestConfig): URL {
  let host = config.host.trim();
  if (host === '') throw new ConfigError('host must be set');
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(host)) {
    const tls = config.tls;
    const secure = tls !== undefined && (tls.insecure === true || (tls.caData ?? '') !== '' || (tls.certData ?? '') !== '');
    host = `${secure ? 'https' : 'http'}://${host}`;
  }
  let url: URL;
  try {
    url = new URL(host);
  } catch {
    throw new ConfigError(`host "${config.host}" is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`host "${config.host}" must use http or https`);
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  return url;
}

/** Transport choices that are not part of RestConfig. */
export interface TransportOptions {
  /** Negotiate HTTP/2 over TLS when the server offers it (ALPN); off by default. */
  allowH2?: boolean;
}

/**
 * Builds the dispatcher for a config. `cert` overrides the config's client certificate (credentials
 * from a CredentialProvider); a config with a certificate but no key (or the reverse) is refused.
 */
export function newDispatcher(config: RestConfig, cert?: ClientCertificate, transport: TransportOptions = {}): Dispatcher {
  const tls = config.tls;
  let certificate = cert;
  if (certificate === undefined && (tls?.certData !== undefined || tls?.keyData !== undefined)) {
    if ((tls.certData ?? '') === '' || (tls.keyData ?? '') === '') throw new ConfigError('tls.certData and tls.keyData must be set together');
    certificate = { certData: tls.certData!, keyData: tls.keyData! };
  }
  const connect = tlsOptions(tls, certificate);
  const allowH2 = transport.allowH2 === true;
  if (config.proxyUrl !== undefined && config.proxyUrl !== '') {
    return new ProxyAgent({ uri: config.proxyUrl, requestTls: connect, keepAliveTimeout: keepAliveTimeoutMs, allowH2 });
  }
  return new Agent({ connect, keepAliveTimeout: keepAliveTimeoutMs, allowH2 });
}
