/**
 * The kubeconfig file format as written on disk (client-go's tools/clientcmd/api/v1): named lists,
 * kebab-case keys, `*-data` fields base64-encoded. Only the writer and the decoder use these types;
 * everything else works on the in-memory form in ../types.ts.
 */

/** Connection details of one cluster as stored in a file. */
export interface ClusterV1 {
  server?: string;
  'tls-server-name'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'certificate-authority'?: string;
  /** base64 of the PEM bundle. */
  'certificate-authority-data'?: string;
  'proxy-url'?: string;
  'disable-compression'?: boolean;
  extensions?: NamedExtensionV1[];
}

/** An exec plugin stanza as stored in a file. */
export interface ExecConfigV1 {
  command?: string;
  args?: string[];
  env?: { name: string; value: string }[];
  apiVersion?: string;
  installHint?: string;
  provideClusterInfo?: boolean;
  interactiveMode?: string;
}

/** A `user` stanza as stored in a file. */
export interface AuthInfoV1 {
  'client-certificate'?: string;
  'client-certificate-data'?: string;
  'client-key'?: string;
  'client-key-data'?: string;
  token?: string;
  tokenFile?: string;
  as?: string;
  'as-uid'?: string;
  'as-groups'?: string[];
  'as-user-extra'?: Record<string, string[]>;
  username?: string;
  password?: string;
  'auth-provider'?: { name: string; config?: Record<string, string> };
  exec?: ExecConfigV1;
  extensions?: NamedExtensionV1[];
}

/** A `context` stanza as stored in a file. */
export interface ContextV1 {
  cluster?: string;
  user?: string;
  namespace?: string;
  extensions?: NamedExtensionV1[];
}

/** A named extension (runtime.RawExtension). */
export interface NamedExtensionV1 {
  name: string;
  extension: unknown;
}

/** A kubeconfig file (clientcmd/api/v1.Config). */
export interface KubeConfigV1 {
  apiVersion?: string;
  kind?: string;
  preferences?: { colors?: boolean; extensions?: NamedExtensionV1[] };
  clusters?: { name: string; cluster: ClusterV1 }[];
  users?: { name: string; user: AuthInfoV1 }[];
  contexts?: { name: string; context: ContextV1 }[];
  'current-context'?: string;
  extensions?: NamedExtensionV1[];
}
