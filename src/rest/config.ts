/**
 * rest.Config: everything needed to talk to one API server. Built by hand, from a kubeconfig
 * (`kubeloom/clientcmd`'s restConfigFrom) or from the in-cluster environment (inClusterConfig).
 */

/** TLS settings (rest.TLSClientConfig). PEM data as strings; file paths are resolved by clientcmd. */
export interface TlsClientConfig {
  /** Skip server certificate verification. Off unless asked for explicitly. */
  insecure?: boolean;
  /** Overrides the name used to verify the server certificate (SNI and verification). */
  serverName?: string;
  /** PEM CA bundle trusted for the server certificate (replaces the system roots). */
  caData?: string;
  /** PEM client certificate. */
  certData?: string;
  /** PEM client private key. */
  keyData?: string;
}

/** Credentials a {@link CredentialProvider} returns for a request. */
export interface Credentials {
  /** Bearer token. */
  token?: string;
  /** PEM client certificate. */
  clientCertificateData?: string;
  /** PEM key of the client certificate. */
  clientKeyData?: string;
}

/**
 * A source of credentials that may change over time: exec plugins, rotating token files.
 * The REST client asks for credentials before each request and calls `invalidate` after a 401,
 * retrying that request once with fresh credentials.
 */
export interface CredentialProvider {
  /** Current credentials (cached by the provider until they expire). */
  getCredentials(signal?: AbortSignal): Promise<Credentials>;
  /** Drops cached credentials so the next call fetches new ones (after a 401). */
  invalidate(): void;
}

/** Impersonation headers (rest.ImpersonationConfig). */
export interface ImpersonationConfig {
  /** User to act as (`Impersonate-User`). */
  userName?: string;
  /** UID to act as (`Impersonate-Uid`). */
  uid?: string;
  /** Groups to act as (`Impersonate-Group`). */
  groups?: string[];
  /** Extra fields (`Impersonate-Extra-<key>`). */
  extra?: Record<string, string[]>;
}

/** A client-side request rate limiter, consulted before every request (flowcontrol.RateLimiter). */
export interface RequestRateLimiter {
  /** Resolves when the request may be sent; rejects with the signal's reason if aborted while waiting. */
  wait(signal?: AbortSignal): Promise<void>;
}

/** Connection and client settings for one API server (rest.Config). */
export interface RestConfig {
  /** Base URL of the API server, e.g. `https://127.0.0.1:6443` (a path prefix is allowed). */
  host: string;
  /** Static bearer token. Never printed. */
  bearerToken?: string;
  /** File holding a bearer token; re-read periodically so rotated tokens are picked up. */
  bearerTokenFile?: string;
  /** Basic auth. */
  username?: string;
  /** Basic authentication password (with `username`). */
  password?: string;
  /** Dynamic credentials (exec plugins, rotating tokens); takes precedence over bearerToken. */
  credentialProvider?: CredentialProvider;
  /** TLS settings: CA, client certificate, server name, insecure mode. */
  tls?: TlsClientConfig;
  /** Act as another user. */
  impersonate?: ImpersonationConfig;
  /** HTTP(S) proxy URL for all requests (kubeconfig `proxy-url`). */
  proxyUrl?: string;
  /** Client-side rate limit, requests per second (client-go default 5). Negative disables limiting. */
  qps?: number;
  /** Client-side burst (client-go default 10). */
  burst?: number;
  /** A custom limiter; overrides qps/burst. */
  rateLimiter?: RequestRateLimiter;
  /** Default timeout for non-watch requests in ms (0 = none). */
  timeoutMs?: number;
  /** User-Agent header; default `kubeloom/<version> (node/<version>)`. */
  userAgent?: string;
  /** Allow sending credentials over plain HTTP to a non-loopback host (refused by default). */
  allowInsecureCredentials?: boolean;
}

/** client-go's default client-side QPS (rest.DefaultQPS). */
export const DefaultQPS = 5;
/** client-go's default client-side burst (rest.DefaultBurst). */
export const DefaultBurst = 10;
