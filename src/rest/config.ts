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
 * A source of credentials that may change over time (exec plugins). The REST client asks for
 * credentials before each request that does not carry its own Authorization header, and after a 401
 * calls `invalidate` with the credentials that were refused, retrying that request once with fresh
 * ones. It is not consulted when the config has a bearer token, token file, basic auth or client
 * certificate of its own (as client-go's exec authenticator steps aside for those).
 */
export interface CredentialProvider {
  /** Current credentials (cached by the provider until they expire). */
  getCredentials(signal?: AbortSignal): Promise<Credentials>;
  /**
   * Drops cached credentials so the next call fetches new ones (after a 401). With `used`, only when
   * those are still the cached ones: credentials already rotated by a concurrent request are kept.
   */
  invalidate(used?: Credentials): void;
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
  /**
   * Static bearer token. Never printed. With `bearerTokenFile` it is the fallback used while the
   * file cannot be read. May not be combined with basic auth.
   */
  bearerToken?: string;
  /**
   * File holding a bearer token; re-read when the cached token is 50 s old (client-go: valid for a
   * minute, refreshed 10 s early), so rotated tokens are picked up. Takes precedence over `bearerToken`.
   */
  bearerTokenFile?: string;
  /** Basic auth (only when `username` is set). May not be combined with a bearer token. */
  username?: string;
  /** Basic authentication password (with `username`). */
  password?: string;
  /**
   * Dynamic credentials (exec plugins). Used only when the config has no bearer token, token file,
   * username or client certificate of its own.
   */
  credentialProvider?: CredentialProvider;
  /** TLS settings: CA, client certificate, server name, insecure mode. */
  tls?: TlsClientConfig;
  /** Act as another user. */
  impersonate?: ImpersonationConfig;
  /** HTTP(S) proxy URL for all requests (kubeconfig `proxy-url`). */
  proxyUrl?: string;
  /**
   * Do not ask for gzip-compressed responses (rest.Config.DisableCompression, kubeconfig
   * `disable-compression`; default false). On a fast network, the server compressing a large LIST
   * costs more time than sending it plain.
   */
  disableCompression?: boolean;
  /**
   * Client-side rate limit, requests per second (0 or unset: client-go's default 5). Negative
   * disables limiting. A positive value needs a positive `burst` (refused otherwise, as client-go's
   * clientset refuses it).
   */
  qps?: number;
  /** Client-side burst (0 or unset: client-go's default 10). */
  burst?: number;
  /** A custom limiter; overrides qps/burst. */
  rateLimiter?: RequestRateLimiter;
  /**
   * Timeout of every non-watch request in ms (0 = none), rest.Config.Timeout. Sent to the server as
   * the `timeout` query parameter unless the request sets its own (Request.Timeout: a typed List,
   * Watch or DeleteCollection sends its `timeoutSeconds` there, or nothing when that is unset), and
   * still bounding the request client-side, as the http.Client's Timeout does upstream. Unlike
   * upstream, it never cuts a watch.
   */
  timeoutMs?: number;
  /** User-Agent header; default `kubeloom/<version> (node/<version>)`. */
  userAgent?: string;
  /** Allow sending credentials over plain HTTP to a non-loopback host (refused by default). */
  allowInsecureCredentials?: boolean;
  /**
   * The Accept header for built-in resources (rest.ContentConfig.AcceptContentTypes; default
   * `application/json`). `ProtobufAcceptContentTypes` (`application/vnd.kubernetes.protobuf,application/json`)
   * asks for Kubernetes protobuf, as kubectl and controller-runtime do: faster for the server and the
   * client. Custom resources and other APIs are always asked for JSON, and every answer is decoded by its
   * Content-Type. See docs/protobuf.md for why JSON stays the default.
   */
  acceptContentTypes?: string;
  /**
   * The body type of create and update requests for built-in kinds (rest.ContentConfig.ContentType;
   * default `application/json`); `application/vnd.kubernetes.protobuf` encodes them as protobuf.
   */
  contentType?: string;
}

/** client-go's default client-side QPS (rest.DefaultQPS). */
export const DefaultQPS = 5;
/** client-go's default client-side burst (rest.DefaultBurst). */
export const DefaultBurst = 10;
