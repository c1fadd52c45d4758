/**
 * The kubeconfig file format as written on disk (client-go's tools/clientcmd/api/v1): named lists,
 * kebab-case keys, `*-data` fields base64-encoded. Only the writer and the decoder use these types;
 * everything else works on the in-memory form in ../types.ts.
 */

/** Connection details of one cluster as stored in a file. */
export interface ClusterV1 {
  /** `https://host:port` of the API server. */
  server?: string;
  /** Server name for SNI and certificate checks, instead of the URL's host. */
  'tls-server-name'?: string;
  /** Skip certificate verification (insecure). */
  'insecure-skip-tls-verify'?: boolean;
  /** Path of the PEM CA bundle. */
  'certificate-authority'?: string;
  /** base64 of the PEM bundle. */
  'certificate-authority-data'?: string;
  /** HTTP(S) or SOCKS5 proxy URL. */
  'proxy-url'?: string;
  /** Ask for uncompressed responses. */
  'disable-compression'?: boolean;
  /** Named extensions (opaque). */
  extensions?: NamedExtensionV1[];
}

/** An exec plugin stanza as stored in a file. */
export interface ExecConfigV1 {
  /** The plugin executable. */
  command?: string;
  /** Its arguments. */
  args?: string[];
  /** Extra environment variables. */
  env?: {
    /** Variable name. */
    name: string;
    /** Variable value. */
    value: string;
  }[];
  /** `client.authentication.k8s.io/v1` or `v1beta1`. */
  apiVersion?: string;
  /** Printed when the executable is missing. */
  installHint?: string;
  /** Pass the cluster's details to the plugin (KUBERNETES_EXEC_INFO). */
  provideClusterInfo?: boolean;
  /** `Never`, `IfAvailable` or `Always`: whether the plugin may use the terminal. */
  interactiveMode?: string;
}

/** A `user` stanza as stored in a file. */
export interface AuthInfoV1 {
  /** Path of a PEM client certificate. */
  'client-certificate'?: string;
  /** Base64 PEM client certificate. */
  'client-certificate-data'?: string;
  /** Path of the client certificate's PEM key. */
  'client-key'?: string;
  /** Base64 PEM key of the client certificate. */
  'client-key-data'?: string;
  /** Bearer token. */
  token?: string;
  /** File holding the bearer token (re-read as it rotates). */
  tokenFile?: string;
  /** User to impersonate. */
  as?: string;
  /** UID to impersonate. */
  'as-uid'?: string;
  /** Groups to impersonate. */
  'as-groups'?: string[];
  /** Extra fields to impersonate. */
  'as-user-extra'?: Record<string, string[]>;
  /** Basic authentication user name. */
  username?: string;
  /** Basic authentication password. */
  password?: string;
  /** A legacy auth provider (not supported). */
  'auth-provider'?: {
    /** Provider name. */
    name: string;
    /** Provider settings. */
    config?: Record<string, string>;
  };
  /** An exec credential plugin. */
  exec?: ExecConfigV1;
  /** Named extensions (opaque). */
  extensions?: NamedExtensionV1[];
}

/** A `context` stanza as stored in a file. */
export interface ContextV1 {
  /** Name of the cluster entry. */
  cluster?: string;
  /** Name of the user entry. */
  user?: string;
  /** Default namespace. */
  namespace?: string;
  /** Named extensions (opaque). */
  extensions?: NamedExtensionV1[];
}

/** A named extension (runtime.RawExtension). */
export interface NamedExtensionV1 {
  /** Extension name. */
  name: string;
  /** Extension payload (opaque). */
  extension: unknown;
}

/** A kubeconfig file (clientcmd/api/v1.Config). */
export interface KubeConfigV1 {
  /** `v1`. */
  apiVersion?: string;
  /** `Config`. */
  kind?: string;
  /** General preferences. */
  preferences?: {
    /** Unused by kubeloom. */
    colors?: boolean;
    /** Named extensions (opaque). */
    extensions?: NamedExtensionV1[];
  };
  /** Named clusters. */
  clusters?: {
    /** The cluster entry's name. */
    name: string;
    /** The cluster. */
    cluster: ClusterV1;
  }[];
  /** Named users. */
  users?: {
    /** The user entry's name. */
    name: string;
    /** The credentials. */
    user: AuthInfoV1;
  }[];
  /** Named contexts. */
  contexts?: {
    /** The context's name. */
    name: string;
    /** The cluster, user and namespace it combines. */
    context: ContextV1;
  }[];
  /** The context used by default. */
  'current-context'?: string;
  /** Named extensions (opaque). */
  extensions?: NamedExtensionV1[];
}
