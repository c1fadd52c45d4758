/**
 * Command-line style overrides applied on top of a loaded kubeconfig (clientcmd.ConfigOverrides, the
 * values of kubectl's --context, --cluster, --user, --namespace, --server, --token, … flags).
 */
import type { AuthInfo, Cluster, Context, KubeConfig } from './api/types.ts';
import { getEntry, setEntry } from './api/types.ts';
import { InvalidKubeConfigError } from './errors.ts';
import { protectKubeConfig } from './redact.ts';

/** Overrides for the selected context, its cluster and its user. Every field is optional. */
export interface ConfigOverrides {
  /** Use this context instead of current-context (--context). It must exist. */
  context?: string;
  /** Use this cluster entry for the context (--cluster). It must exist. */
  cluster?: string;
  /** Use this user entry for the context (--user). It must exist. */
  user?: string;
  /** Default namespace (--namespace). */
  namespace?: string;
  /** API server URL (--server). Clears the cluster's tls-server-name unless one is given too. */
  server?: string;
  /** Server name for TLS verification (--tls-server-name). */
  tlsServerName?: string;
  /** Skip server certificate verification (--insecure-skip-tls-verify); clears the CA unless one is given too. */
  insecureSkipTlsVerify?: boolean;
  /** CA bundle file (--certificate-authority); replaces the cluster's CA and insecure setting. */
  certificateAuthority?: string;
  /** Bearer token (--token). An explicit token replaces the user's other credentials. */
  token?: string;
  /** Basic-auth user name (--username). */
  username?: string;
  /** Basic-auth password (--password). */
  password?: string;
  /** Client certificate file (--client-certificate). */
  clientCertificate?: string;
  /** Client key file (--client-key). */
  clientKey?: string;
  /** Impersonate this user (--as). */
  impersonate?: string;
  /** Impersonate this UID (--as-uid). */
  impersonateUid?: string;
  /** Impersonate these groups (--as-group). */
  impersonateGroups?: string[];
}

function copy<T extends object>(value: T | undefined): T {
  // Shallow copy keeping the entry's origin; nested objects are replaced, never mutated, below.
  return { ...(value ?? ({} as T)) };
}

/**
 * Returns a new config whose current context is the selected one (`overrides.context`, else
 * `currentContext`) with the overrides applied to it, its cluster and its user, the way
 * client-go's DirectClientConfig resolves them. Other entries are shared with `config`; the copies
 * print without secrets like the originals.
 *
 * @throws {InvalidKubeConfigError} when an overridden context, cluster or user name does not exist.
 */
export function applyOverrides(config: KubeConfig, overrides: ConfigOverrides): KubeConfig {
  const out: KubeConfig = {
    ...config,
    clusters: { ...config.clusters },
    authInfos: { ...config.authInfos },
    contexts: { ...config.contexts },
  };
  const missing = (field: string, what: string, name: string): InvalidKubeConfigError =>
    new InvalidKubeConfigError([{ field, message: `${what} ${JSON.stringify(name)} does not exist` }]);

  const contextName = overrides.context || config.currentContext;
  if (overrides.context && getEntry(config.contexts, overrides.context) === undefined) throw missing('--context', 'context', overrides.context);
  out.currentContext = contextName;
  const touchesContext = Boolean(overrides.cluster || overrides.user || overrides.namespace);
  if (!touchesContext && !hasClusterOverrides(overrides) && !hasUserOverrides(overrides)) return protectKubeConfig(out);
  // A current-context naming a missing context stays missing, so that validation reports it; only the
  // unnamed context of a flags-only configuration (no kubeconfig, --server …) is synthesised.
  if (contextName !== '' && getEntry(config.contexts, contextName) === undefined) return protectKubeConfig(out);

  const context: Context = copy(getEntry(config.contexts, contextName));
  context.cluster ??= '';
  context.authInfo ??= '';
  if (overrides.cluster) {
    if (getEntry(config.clusters, overrides.cluster) === undefined) throw missing('--cluster', 'cluster', overrides.cluster);
    context.cluster = overrides.cluster;
  }
  if (overrides.user) {
    if (getEntry(config.authInfos, overrides.user) === undefined) throw missing('--user', 'user', overrides.user);
    context.authInfo = overrides.user;
  }
  if (overrides.namespace) context.namespace = overrides.namespace;
  setEntry(out.contexts, contextName, context);

  if (hasClusterOverrides(overrides)) {
    const cluster: Cluster = copy(getEntry(config.clusters, context.cluster));
    cluster.server ??= '';
    if (overrides.server) cluster.server = overrides.server;
    // A new server usually means the old tls-server-name is wrong (upstream clears it too).
    if (overrides.tlsServerName || overrides.server) {
      if (overrides.tlsServerName) cluster.tlsServerName = overrides.tlsServerName;
      else delete cluster.tlsServerName;
    }
    if (overrides.insecureSkipTlsVerify !== undefined || overrides.certificateAuthority) {
      // An explicit CA replaces insecure and CA data; insecure without a CA clears the configured CA,
      // which would otherwise conflict with it.
      cluster.insecureSkipTlsVerify = overrides.insecureSkipTlsVerify ?? false;
      delete cluster.certificateAuthorityData;
      if (overrides.certificateAuthority) cluster.certificateAuthority = overrides.certificateAuthority;
      else if (cluster.insecureSkipTlsVerify) delete cluster.certificateAuthority;
    }
    setEntry(out.clusters, context.cluster, cluster);
  }

  if (hasUserOverrides(overrides)) {
    let user: AuthInfo = copy(getEntry(config.authInfos, context.authInfo));
    if (overrides.token || overrides.username || overrides.password) {
      // Explicit credentials on the command line are the ones meant: drop the configured ones.
      const { locationOfOrigin, impersonate, impersonateUid, impersonateGroups, impersonateUserExtra } = user;
      user = { locationOfOrigin, impersonate, impersonateUid, impersonateGroups, impersonateUserExtra };
      if (overrides.token) user.token = overrides.token;
      if (overrides.username) user.username = overrides.username;
      if (overrides.password) user.password = overrides.password;
    }
    if (overrides.clientCertificate) {
      user.clientCertificate = overrides.clientCertificate;
      delete user.clientCertificateData;
    }
    if (overrides.clientKey) {
      user.clientKey = overrides.clientKey;
      delete user.clientKeyData;
    }
    if (overrides.impersonate) user.impersonate = overrides.impersonate;
    if (overrides.impersonateUid) user.impersonateUid = overrides.impersonateUid;
    if (overrides.impersonateGroups?.length) user.impersonateGroups = [...overrides.impersonateGroups];
    for (const key of Object.keys(user) as (keyof AuthInfo)[]) if (user[key] === undefined) delete user[key];
    setEntry(out.authInfos, context.authInfo, user);
  }
  return protectKubeConfig(out);
}

function hasClusterOverrides(o: ConfigOverrides): boolean {
  return Boolean(o.server || o.tlsServerName || o.certificateAuthority || o.insecureSkipTlsVerify !== undefined);
}

function hasUserOverrides(o: ConfigOverrides): boolean {
  return Boolean(
    o.token || o.username || o.password || o.clientCertificate || o.clientKey || o.impersonate || o.impersonateUid || o.impersonateGroups?.length,
  );
}
