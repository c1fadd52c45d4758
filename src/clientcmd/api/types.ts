/**
 * The in-memory kubeconfig (client-go's tools/clientcmd/api, the "internal" version).
 *
 * Unlike the YAML form ({@link ../api/v1/types.ts}), named entries live in records keyed by name,
 * `*-data` fields hold decoded PEM text instead of base64, and every entry remembers the file it
 * came from (`locationOfOrigin`) so that errors can name it. Relative file paths have already been
 * resolved against that file's directory when a config comes out of the loader.
 *
 * Objects produced by the loader never print secrets: `util.inspect`, `String()` and
 * `JSON.stringify` show tokens, passwords, keys and exec arguments as `REDACTED` (see redact.ts).
 * Use {@link writeKubeConfig} to serialise a config with its secrets.
 */

/** How an exec plugin may interact with the user (clientcmdapi.ExecInteractiveMode). */
export const ExecInteractiveMode = {
  /** Never give the plugin the terminal. */
  Never: 'Never',
  /** Give the plugin the terminal when standard input is one. */
  IfAvailable: 'IfAvailable',
  /** The plugin needs the terminal; fail when standard input is not one. */
  Always: 'Always',
} as const;
/** One of {@link ExecInteractiveMode}'s values. */
export type ExecInteractiveMode = (typeof ExecInteractiveMode)[keyof typeof ExecInteractiveMode];

/** The exec credential plugin API versions kubeloom speaks (v1alpha1 was removed upstream in 1.24). */
export const ExecApiVersions = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'] as const;

/** The cluster extension handed to exec plugins as `spec.cluster.config` (upstream's execInfoExtensionName). */
export const ExecClusterExtensionName = 'client.authentication.k8s.io/exec';

/** How to reach one API server (clientcmdapi.Cluster). */
export interface Cluster {
  /** The kubeconfig file this entry was read from (not serialised). */
  locationOfOrigin?: string;
  /** `https://host:port[/prefix]` of the API server. */
  server: string;
  /** Name used for SNI and certificate verification instead of the server's host. */
  tlsServerName?: string;
  /** Skip server certificate verification. Off by default. */
  insecureSkipTlsVerify?: boolean;
  /** Path to a PEM CA bundle (absolute once loaded). */
  certificateAuthority?: string;
  /** PEM CA bundle text; wins over {@link Cluster.certificateAuthority}. */
  certificateAuthorityData?: string;
  /** Proxy for every request to this cluster (http, https or socks5 URL). */
  proxyUrl?: string;
  /** Ask the server not to compress responses. */
  disableCompression?: boolean;
  /** Named extensions, passed through untouched. */
  extensions?: Record<string, unknown>;
}

/** One environment variable given to an exec plugin. */
export interface ExecEnvVar {
  /** Variable name. */
  name: string;
  /** Variable value. */
  value: string;
}

/** An exec credential plugin (clientcmdapi.ExecConfig). */
export interface ExecConfig {
  /** Program to run; a relative path containing a separator is resolved against the kubeconfig's directory. */
  command: string;
  /** Arguments, passed as an array (never through a shell). Treated as secret when printing. */
  args?: string[];
  /** Extra environment for the plugin, added to the parent's. Values are treated as secret when printing. */
  env?: ExecEnvVar[];
  /** ExecCredential API version the plugin speaks (`client.authentication.k8s.io/v1` or `/v1beta1`). */
  apiVersion: string;
  /** Shown to the user when the command cannot be found. */
  installHint?: string;
  /** Pass the cluster's connection details to the plugin in KUBERNETES_EXEC_INFO. */
  provideClusterInfo?: boolean;
  /** Required for v1; defaults to IfAvailable for v1beta1 (as upstream). */
  interactiveMode?: ExecInteractiveMode;
}

/** A legacy in-tree auth provider entry (gcp, azure, oidc). kubeloom only reports these as unsupported. */
export interface AuthProviderConfig {
  /** Provider name, e.g. `oidc`. */
  name: string;
  /** Provider settings; often hold tokens, so always redacted when printing. */
  config?: Record<string, string>;
}

/** Who the client is (clientcmdapi.AuthInfo, the `user` of a kubeconfig `users` entry). */
export interface AuthInfo {
  /** The kubeconfig file this entry was read from (not serialised). */
  locationOfOrigin?: string;
  /** Path of a PEM client certificate (relative paths resolved against the kubeconfig file). */
  clientCertificate?: string;
  /** PEM certificate text; wins over {@link AuthInfo.clientCertificate}. */
  clientCertificateData?: string;
  /** Path of the PEM key of the client certificate. */
  clientKey?: string;
  /** PEM private key text; wins over {@link AuthInfo.clientKey}. Secret. */
  clientKeyData?: string;
  /** Static bearer token. Secret. */
  token?: string;
  /** File holding a bearer token, re-read by the REST client so rotation is picked up. */
  tokenFile?: string;
  /** Impersonated user name (`as`). */
  impersonate?: string;
  /** Impersonated UID (`as-uid`). */
  impersonateUid?: string;
  /** Impersonated groups (`as-groups`). */
  impersonateGroups?: string[];
  /** Impersonated extra fields (`as-user-extra`). */
  impersonateUserExtra?: Record<string, string[]>;
  /** Basic authentication user name. */
  username?: string;
  /** Basic-auth password. Secret. */
  password?: string;
  /** A legacy auth provider (not supported; kept to explain the failure). */
  authProvider?: AuthProviderConfig;
  /** An exec credential plugin. */
  exec?: ExecConfig;
  /** Extensions by name (opaque). */
  extensions?: Record<string, unknown>;
}

/** A (cluster, user, namespace) triple (clientcmdapi.Context). */
export interface Context {
  /** The kubeconfig file this entry was read from (not serialised). */
  locationOfOrigin?: string;
  /** Name of an entry in {@link KubeConfig.clusters}. */
  cluster: string;
  /** Name of an entry in {@link KubeConfig.authInfos} (the YAML field `user`). */
  authInfo: string;
  /** Default namespace; empty means `default`. */
  namespace?: string;
  /** Extensions by name (opaque). */
  extensions?: Record<string, unknown>;
}

/** kubectl preferences (kept for round trips). */
export interface Preferences {
  /** Unused by kubeloom; kept for round trips. */
  colors?: boolean;
  /** Extensions by name (opaque). */
  extensions?: Record<string, unknown>;
}

/** A whole kubeconfig, possibly merged from several files (clientcmdapi.Config). */
export interface KubeConfig {
  /** General preferences. */
  preferences: Preferences;
  /** Clusters by name. */
  clusters: Record<string, Cluster>;
  /** The YAML `users` list, keyed by name. */
  authInfos: Record<string, AuthInfo>;
  /** Contexts by name. */
  contexts: Record<string, Context>;
  /** Name of the context used by default; '' when unset. */
  currentContext: string;
  /** Extensions by name (opaque). */
  extensions?: Record<string, unknown>;
  /**
   * Where this config came from: the files that were read, in precedence order, or the in-cluster
   * environment. Set by the loader; not serialised.
   */
  source?: ConfigSource;
}

/**
 * Where a loaded {@link KubeConfig} came from. For files read inside a pod, `inClusterNamespace` is
 * the pod's namespace (POD_NAMESPACE, else the service account's namespace file), used by
 * `namespaceOf` for a context that names no namespace, as client-go's deferred loading does.
 */
export type ConfigSource =
  | {
      /** Read from kubeconfig files. */
      kind: 'files';
      /** The files that were read, in merge order. */
      files: string[];
      /** Inside a pod: the pod's namespace. */
      inClusterNamespace?: string;
    }
  | {
      /** Built from the pod's service account. */
      kind: 'in-cluster';
      /** The directory standing in for `/` (tests). */
      root: string;
    };

/** An empty config (clientcmdapi.NewConfig). */
export function newKubeConfig(): KubeConfig {
  return { preferences: {}, clusters: {}, authInfos: {}, contexts: {}, currentContext: '' };
}

/** True when `config` has nothing in it (no clusters, users, contexts or current context). */
export function isEmptyKubeConfig(config: KubeConfig): boolean {
  return (
    config.currentContext === '' &&
    Object.keys(config.clusters).length === 0 &&
    Object.keys(config.authInfos).length === 0 &&
    Object.keys(config.contexts).length === 0
  );
}

/**
 * Stores `value` under `key` as an own property, even for keys such as `__proto__`
 * (a kubeconfig may name an entry anything).
 */
export function setEntry<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The entry named `key`, looking only at own properties. */
export function getEntry<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
