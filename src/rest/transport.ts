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

/**
 * The undici settings of every pooled connection, against what client-go's transport does
 * (transport/cache.go and apimachinery's util/net SetTransportDefaults over Go's http.Transport).
 * Go's transport has neither a headers timeout (ResponseHeaderTimeout is 0) nor a body timeout, so a
 * watch, a followed log or a slow LIST stays open as long as the server keeps it open; undici's
 * defaults (300 s each) would cut a quiet watch after five minutes. A connection that went half-open
 * is the read idle guard's to detect (RestClient's `readIdleTimeoutMs`, the HTTP/1.1 counterpart of
 * client-go's HTTP/2 ReadIdleTimeout + PingTimeout), and a watch's end is the server's to decide
 * (`timeoutSeconds`, the reflector's 5–10 minutes) or the caller's (its signal, `stop()`, `close()`).
 * See docs/clients.md for the full table.
 */
export const transportDefaults = {
  /** No limit on the wait for response headers (Go: ResponseHeaderTimeout 0). */
  headersTimeout: 0,
  /** No limit on the silence between body chunks (Go has none). */
  bodyTimeout: 0,
  /** Idle keep-alive sockets are kept 90 s (client-go's IdleConnTimeout); undici's default is 4 s. */
  keepAliveTimeout: 90_000,
  /** A TCP connection (plus TLS handshake) must be up within 30 s (util/net's dialer Timeout 30 s). */
  connectTimeout: 30_000,
  /** TCP keep-alive probes after 30 s of silence (util/net's dialer KeepAlive 30 s); undici's default is 60 s. */
  keepAliveInitialDelay: 30_000,
} as const;

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

/**
 * Normalises RestConfig.host to an origin plus base path as client-go's rest.defaultServerUrlFor
 * and DefaultServerURL do (rest/url_utils.go): an empty host means `localhost`; a host without a
 * scheme gets https when the config has a CA, a client certificate or `insecure`, else http, and
 * may not carry a path (`example.com/prefix` is refused: only a full URL may name a path prefix).
 */
export function parseHost(config: RestConfig): URL {
  let host = config.host.trim();
  if (host === '') host = 'localhost';
  const schemeless = !/^[a-z][a-z0-9+.-]*:\/\//i.test(host);
  if (schemeless) {
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
  if (schemeless && url.pathname !== '/' && url.pathname !== '') throw new ConfigError(`host must be a URL or a host:port pair: ${JSON.stringify(config.host)}`);
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
  /** Send every request through this dispatcher instead of connection pools (an in-process transport). */
  dispatcher?: Dispatcher;
}

/**
 * Builds the dispatcher for a config. `cert` overrides the config's client certificate (credentials
 * from a CredentialProvider); a config with a certificate but no key (or the reverse) is refused.
 */
export function newDispatcher(config: RestConfig, cert?: ClientCertificate, transport: TransportOptions = {}): Dispatcher {
  if (transport.dispatcher !== undefined) return transport.dispatcher;
  const tls = config.tls;
  let certificate = cert;
  if (certificate === undefined && (tls?.certData !== undefined || tls?.keyData !== undefined)) {
    if ((tls.certData ?? '') === '' || (tls.keyData ?? '') === '') throw new ConfigError('tls.certData and tls.keyData must be set together');
    certificate = { certData: tls.certData!, keyData: tls.keyData! };
  }
  const connect = { ...tlsOptions(tls, certificate), keepAliveInitialDelay: transportDefaults.keepAliveInitialDelay };
  const allowH2 = transport.allowH2 === true;
  const { headersTimeout, bodyTimeout, keepAliveTimeout, connectTimeout } = transportDefaults;
  const timeouts = { headersTimeout, bodyTimeout, keepAliveTimeout, connectTimeout };
  if (config.proxyUrl !== undefined && config.proxyUrl !== '') {
    return new ProxyAgent({ uri: config.proxyUrl, requestTls: connect, ...timeouts, allowH2 });
  }
  return new Agent({ connect, ...timeouts, allowH2 });
}
