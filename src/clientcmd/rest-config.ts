/**
 * From a kubeconfig to a {@link RestConfig} (client-go's DirectClientConfig.ClientConfig).
 *
 * File references are read here, so the RestConfig carries PEM text; the token file is the exception:
 * it is passed on as `bearerTokenFile` for the REST client to re-read, so rotated tokens are used.
 *
 * As client-go's tools/clientcmd/client_config.go ClientConfig ("only try to read the auth information
 * if we are secure", rest.IsConfigTransportTLS), the user's credentials (token, token file, basic auth,
 * client certificate, exec plugin, auth-provider) and the cluster's TLS settings apply only when the
 * server is reached over https; an `http://` server gets the host, proxy, compression setting and
 * impersonation only, so no credential crosses plain HTTP. Where kubeloom differs: a server without a
 * scheme is https when the kubeconfig has TLS settings (CA, client certificate, insecure-skip-tls-verify),
 * and then gets them; upstream decides before merging those settings, so such a server is http there.
 */
import { readFile } from 'node:fs/promises';
import type { Clock } from '../util/clock/clock.ts';
import type { RestConfig, TlsClientConfig } from '../rest/config.ts';
import type { AuthInfo, Cluster, Context, KubeConfig } from './api/types.ts';
import { ExecClusterExtensionName, getEntry } from './api/types.ts';
import type { ConfigProblem } from './errors.ts';
import { InvalidKubeConfigError, KubeConfigReadError, UnsupportedAuthProviderError } from './errors.ts';
import { execCredentialProviderFor } from './exec-credential-provider.ts';
import { protectRestConfig } from './redact.ts';
import { confirmUsable } from './validate.ts';

/** Options for {@link restConfigFrom}. */
export interface RestConfigFromOptions {
  /** Context to use instead of current-context. */
  context?: string;
  /** Clock deciding when exec plugin credentials expire. Default: the real clock. */
  clock?: Clock;
  /** Environment exec plugins inherit. Default: `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Whether standard input is a terminal, for exec plugins' interactiveMode. Default: `tty.isatty(0)`. */
  stdinIsTTY?: boolean;
}

function invalid(file: string | undefined, field: string, message: string): InvalidKubeConfigError {
  const p: ConfigProblem = file !== undefined ? { file, field, message } : { field, message };
  return new InvalidKubeConfigError([p]);
}

/** Reads a PEM file named by `field` of an entry from `origin`, checking it holds the expected block. */
async function readPem(file: string, field: string, origin: string | undefined, kind: 'certificate' | 'key'): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new KubeConfigReadError(file, field, err, origin);
  }
  checkPem(text, origin, field, kind);
  return text;
}

function checkPem(text: string, origin: string | undefined, field: string, kind: 'certificate' | 'key'): void {
  const ok = kind === 'certificate' ? text.includes('-----BEGIN CERTIFICATE-----') : /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text);
  if (!ok) throw invalid(origin, field, kind === 'certificate' ? 'does not contain a PEM certificate' : 'does not contain a PEM private key');
}

/** The host URL with client-go's default scheme: https when TLS settings are present, else http. */
function hostFor(server: string, tls: boolean): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(server)) {
    // Query and fragment have no meaning in a base URL (upstream drops them too). The rest is kept
    // as written: re-serialising through URL would drop an explicit default port such as :443.
    return server.replace(/[?#].*$/s, '');
  }
  return `${tls ? 'https' : 'http'}://${server}`;
}

async function tlsFor(clusterName: string, cluster: Cluster, userName: string, user: AuthInfo | undefined): Promise<TlsClientConfig> {
  const c = `clusters[${JSON.stringify(clusterName)}].cluster`;
  const u = `users[${JSON.stringify(userName)}].user`;
  const tls: TlsClientConfig = {};
  if (cluster.insecureSkipTlsVerify) tls.insecure = true;
  if (cluster.tlsServerName) tls.serverName = cluster.tlsServerName;
  if (cluster.certificateAuthorityData) {
    checkPem(cluster.certificateAuthorityData, cluster.locationOfOrigin, `${c}.certificate-authority-data`, 'certificate');
    tls.caData = cluster.certificateAuthorityData;
  } else if (cluster.certificateAuthority) {
    tls.caData = await readPem(cluster.certificateAuthority, `${c}.certificate-authority`, cluster.locationOfOrigin, 'certificate');
  }
  if (user !== undefined && (user.clientCertificateData || user.clientCertificate)) {
    const origin = user.locationOfOrigin;
    if (user.clientCertificateData) {
      checkPem(user.clientCertificateData, origin, `${u}.client-certificate-data`, 'certificate');
      tls.certData = user.clientCertificateData;
    } else {
      tls.certData = await readPem(user.clientCertificate!, `${u}.client-certificate`, origin, 'certificate');
    }
    if (user.clientKeyData) {
      checkPem(user.clientKeyData, origin, `${u}.client-key-data`, 'key');
      tls.keyData = user.clientKeyData;
    } else {
      tls.keyData = await readPem(user.clientKey!, `${u}.client-key`, origin, 'key');
    }
  }
  return tls;
}

/**
 * Builds the RestConfig for a context (default: the config's current context): server URL, TLS
 * settings with CA, client certificate and key read into PEM text, bearer token or token file, basic
 * auth, impersonation, proxy, and an exec credential plugin as `credentialProvider`.
 * Credentials and TLS settings are applied only to an https server, as client-go does: for an
 * `http://` server the RestConfig carries no token, basic auth, certificate or exec plugin.
 * The result prints with its secrets redacted.
 *
 * @throws {InvalidKubeConfigError} when the context, its cluster or its user is missing or invalid.
 * @throws {KubeConfigReadError} when a referenced file cannot be read (https servers only).
 * @throws {UnsupportedAuthProviderError} for legacy auth-provider users (gcp, azure, oidc) of an https server.
 * @throws {NoConfigurationError} for an empty config.
 *
 * @example
 * const rest = await restConfigFrom(await loadKubeConfig(), { context: 'prod' });
 */
export async function restConfigFrom(config: KubeConfig, options: RestConfigFromOptions = {}): Promise<RestConfig> {
  const context: Context = confirmUsable(config, options.context);
  const cluster = getEntry(config.clusters, context.cluster)!;
  const user = getEntry(config.authInfos, context.authInfo);
  const userPath = `users[${JSON.stringify(context.authInfo)}].user`;

  const hasTls =
    cluster.insecureSkipTlsVerify === true ||
    !!cluster.certificateAuthorityData ||
    !!cluster.certificateAuthority ||
    !!user?.clientCertificateData ||
    !!user?.clientCertificate;
  const rest: RestConfig = { host: hostFor(cluster.server, hasTls) };
  if (cluster.proxyUrl) rest.proxyUrl = cluster.proxyUrl;
  if (cluster.disableCompression === true) rest.disableCompression = true;
  if (user?.impersonate) {
    rest.impersonate = { userName: user.impersonate };
    if (user.impersonateUid) rest.impersonate.uid = user.impersonateUid;
    if (user.impersonateGroups?.length) rest.impersonate.groups = [...user.impersonateGroups];
    if (user.impersonateUserExtra && Object.keys(user.impersonateUserExtra).length > 0) {
      rest.impersonate.extra = Object.fromEntries(Object.entries(user.impersonateUserExtra).map(([k, v]) => [k, [...v]]));
    }
  }
  // Upstream: "only try to read the auth information if we are secure".
  if (!/^https:/i.test(rest.host)) return protectRestConfig(rest);

  if (user?.authProvider !== undefined) {
    throw new UnsupportedAuthProviderError(user.authProvider.name, context.authInfo, user.locationOfOrigin);
  }
  const tls = await tlsFor(context.cluster, cluster, context.authInfo, user);
  if (Object.keys(tls).length > 0) rest.tls = tls;

  if (user !== undefined) {
    if (user.token) rest.bearerToken = user.token;
    if (user.tokenFile) {
      // Read now so that a wrong path fails here, with the field named. As client-go's
      // getUserIdentificationPartialConfig, the token read becomes the bearer token when the user
      // has none: the REST client re-reads the file, and uses this token while it cannot.
      let text: string;
      try {
        text = await readFile(user.tokenFile, 'utf8');
      } catch (err) {
        throw new KubeConfigReadError(user.tokenFile, `${userPath}.tokenFile`, err, user.locationOfOrigin);
      }
      if (!user.token && text.trim() !== '') rest.bearerToken = text.trim();
      rest.bearerTokenFile = user.tokenFile;
    }
    if (user.username || user.password) {
      rest.username = user.username ?? '';
      rest.password = user.password ?? '';
    }
    if (user.exec !== undefined) {
      // Shared process-wide: every client built from this user and cluster runs the plugin once.
      rest.credentialProvider = execCredentialProviderFor({
        exec: user.exec,
        cluster: {
          server: rest.host,
          tlsServerName: cluster.tlsServerName,
          insecureSkipTlsVerify: cluster.insecureSkipTlsVerify,
          certificateAuthorityData: tls.caData,
          proxyUrl: cluster.proxyUrl,
          disableCompression: cluster.disableCompression,
          config: cluster.extensions === undefined ? undefined : getEntry(cluster.extensions, ExecClusterExtensionName),
        },
        clock: options.clock,
        env: options.env,
        stdinIsTTY: options.stdinIsTTY,
      });
    }
  }
  return protectRestConfig(rest);
}

/**
 * The namespace of a context (default: the current context) (DeferredLoadingClientConfig.Namespace):
 * the one the context names (a `--namespace` override is applied to it by the loader); for a context
 * naming none, the pod's namespace when the config was loaded inside a pod (POD_NAMESPACE, else the
 * service account's namespace file); otherwise `default`.
 */
export function namespaceOf(config: KubeConfig, options: { context?: string } = {}): string {
  const name = options.context || config.currentContext;
  const own = name ? getEntry(config.contexts, name)?.namespace : undefined;
  if (own) return own;
  const source = config.source;
  if (source?.kind === 'files' && source.inClusterNamespace) return source.inClusterNamespace;
  return 'default';
}
