/**
 * Semantic checks on a kubeconfig (client-go's tools/clientcmd/validation.go): a context must name
 * existing clusters and users, a cluster needs a server, a user may use only one authentication
 * method, exec plugins need a command, a supported apiVersion and an interactiveMode, …
 * Each problem names the file the entry came from and the YAML path of the field.
 */
import type { AuthInfo, Cluster, Context, KubeConfig } from './api/types.ts';
import { ExecApiVersions, ExecInteractiveMode, getEntry, isEmptyKubeConfig } from './api/types.ts';
import type { ConfigProblem } from './errors.ts';
import { InvalidKubeConfigError, NoConfigurationError } from './errors.ts';

function problem(file: string | undefined, field: string, message: string): ConfigProblem {
  return file !== undefined ? { file, field, message } : { field, message };
}

const proxySchemes = new Set(['http:', 'https:', 'socks5:']);
// RFC 1123 label, what the API server accepts as a namespace name.
const dnsLabel = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Problems with one cluster entry. */
export function validateCluster(name: string, cluster: Cluster): ConfigProblem[] {
  const at = `clusters[${JSON.stringify(name)}].cluster`;
  const file = cluster.locationOfOrigin;
  const out: ConfigProblem[] = [];
  if (!cluster.server) out.push(problem(file, `${at}.server`, `no server found for cluster ${JSON.stringify(name)}`));
  else if (!URL.canParse(cluster.server) && !URL.canParse(`https://${cluster.server}`)) {
    out.push(problem(file, `${at}.server`, 'is not a valid URL'));
  }
  if (cluster.proxyUrl !== undefined) {
    const parsed = URL.canParse(cluster.proxyUrl) ? new URL(cluster.proxyUrl) : undefined;
    if (parsed === undefined || !proxySchemes.has(parsed.protocol)) {
      out.push(problem(file, `${at}.proxy-url`, 'must be an http, https or socks5 URL'));
    }
  }
  if (cluster.certificateAuthority && cluster.certificateAuthorityData) {
    out.push(problem(file, `${at}.certificate-authority`, 'certificate-authority-data and certificate-authority are both specified'));
  }
  if (cluster.insecureSkipTlsVerify && (cluster.certificateAuthority || cluster.certificateAuthorityData)) {
    // rest.TLSConfigFor refuses this combination: a CA with verification off is almost certainly a mistake.
    out.push(problem(file, `${at}.insecure-skip-tls-verify`, 'cannot be combined with certificate-authority or certificate-authority-data'));
  }
  return out;
}

/** Problems with one user entry. */
export function validateAuthInfo(name: string, authInfo: AuthInfo): ConfigProblem[] {
  const at = `users[${JSON.stringify(name)}].user`;
  const file = authInfo.locationOfOrigin;
  const out: ConfigProblem[] = [];
  const methods: string[] = [];
  if (authInfo.token) methods.push('token');
  if (authInfo.username || authInfo.password) methods.push('basicAuth');
  if (methods.length > 1) out.push(problem(file, at, `more than one authentication method found: ${methods.join(', ')}; only one is allowed`));

  if (authInfo.clientCertificate || authInfo.clientCertificateData) {
    if (authInfo.clientCertificate && authInfo.clientCertificateData) {
      out.push(problem(file, `${at}.client-certificate`, 'client-certificate-data and client-certificate are both specified'));
    }
    if (authInfo.clientKey && authInfo.clientKeyData) {
      out.push(problem(file, `${at}.client-key`, 'client-key-data and client-key are both specified'));
    }
    if (!authInfo.clientKey && !authInfo.clientKeyData) {
      out.push(problem(file, `${at}.client-key`, 'client-key-data or client-key must be specified to use the client certificate'));
    }
  } else if (authInfo.clientKey || authInfo.clientKeyData) {
    out.push(problem(file, `${at}.client-certificate`, 'client-certificate-data or client-certificate must be specified to use the client key'));
  }

  const exec = authInfo.exec;
  if (exec !== undefined) {
    if (authInfo.authProvider !== undefined) out.push(problem(file, `${at}.auth-provider`, 'cannot be combined with an exec plugin'));
    if (!exec.command) out.push(problem(file, `${at}.exec.command`, 'must be specified to use an exec plugin'));
    if (!exec.apiVersion) out.push(problem(file, `${at}.exec.apiVersion`, 'must be specified to use an exec plugin'));
    else if (!(ExecApiVersions as readonly string[]).includes(exec.apiVersion)) {
      out.push(problem(file, `${at}.exec.apiVersion`, `${JSON.stringify(exec.apiVersion)} is not supported; use ${ExecApiVersions.join(' or ')}`));
    }
    exec.env?.forEach((v, i) => {
      if (!v.name) out.push(problem(file, `${at}.exec.env[${i}].name`, 'must be specified'));
    });
    if (!exec.interactiveMode) out.push(problem(file, `${at}.exec.interactiveMode`, 'must be specified (Never, IfAvailable or Always)'));
    else if (!Object.values(ExecInteractiveMode).includes(exec.interactiveMode)) {
      out.push(problem(file, `${at}.exec.interactiveMode`, `invalid value ${JSON.stringify(exec.interactiveMode)}; use Never, IfAvailable or Always`));
    }
  }
  if ((authInfo.impersonateUid || authInfo.impersonateGroups?.length || (authInfo.impersonateUserExtra && Object.keys(authInfo.impersonateUserExtra).length)) && !authInfo.impersonate) {
    out.push(problem(file, `${at}.as`, 'is required when as-uid, as-groups or as-user-extra is set'));
  }
  return out;
}

/** Problems with one context and the entries it references. */
export function validateContext(config: KubeConfig, name: string, context: Context): ConfigProblem[] {
  const at = `contexts[${JSON.stringify(name)}].context`;
  const file = context.locationOfOrigin;
  const out: ConfigProblem[] = [];
  // Empty names only occur for entries synthesised from flags alone (--server with no kubeconfig).
  const cluster = getEntry(config.clusters, context.cluster);
  if (cluster !== undefined) out.push(...validateCluster(context.cluster, cluster));
  else if (!context.cluster) out.push(problem(file, `${at}.cluster`, 'a cluster must be specified'));
  else out.push(problem(file, `${at}.cluster`, `cluster ${JSON.stringify(context.cluster)} was not found`));
  if (context.authInfo || getEntry(config.authInfos, '') !== undefined) {
    const authInfo = getEntry(config.authInfos, context.authInfo);
    if (authInfo === undefined) out.push(problem(file, `${at}.user`, `user ${JSON.stringify(context.authInfo)} was not found`));
    else out.push(...validateAuthInfo(context.authInfo, authInfo));
  }
  if (context.namespace !== undefined && (context.namespace.length > 63 || !dnsLabel.test(context.namespace))) {
    out.push(problem(file, `${at}.namespace`, `${JSON.stringify(context.namespace)} is not a valid namespace name (RFC 1123 label)`));
  }
  return out;
}

/**
 * Checks that the context `contextName` (default: current-context) can be used to build a client
 * (client-go's ConfirmUsable): it exists, its cluster and user exist and are valid.
 *
 * @throws {NoConfigurationError} when the config is empty.
 * @throws {InvalidKubeConfigError} listing every problem found.
 */
export function confirmUsable(config: KubeConfig, contextName?: string): Context {
  const name = contextName || config.currentContext;
  const files = config.source?.kind === 'files' ? config.source.files : [];
  if (isEmptyKubeConfig(config)) throw new NoConfigurationError(files);
  const where = files.length > 0 ? files.join(':') : undefined;
  if (!name && getEntry(config.contexts, '') === undefined) {
    throw new InvalidKubeConfigError([problem(where, 'current-context', 'is not set and no context was given')]);
  }
  const context = getEntry(config.contexts, name);
  if (context === undefined) {
    throw new InvalidKubeConfigError([problem(where, contextName ? 'context' : 'current-context', `context ${JSON.stringify(name)} does not exist`)]);
  }
  const problems = validateContext(config, name, context);
  if (problems.length > 0) throw new InvalidKubeConfigError(problems);
  return context;
}

/** Every problem in the whole config (client-go's Validate), or an empty list. */
export function validateKubeConfig(config: KubeConfig): ConfigProblem[] {
  const out: ConfigProblem[] = [];
  if (config.currentContext && getEntry(config.contexts, config.currentContext) === undefined) {
    out.push({ field: 'current-context', message: `context ${JSON.stringify(config.currentContext)} does not exist` });
  }
  for (const [name, context] of Object.entries(config.contexts)) out.push(...validateContext(config, name, context));
  return out;
}
