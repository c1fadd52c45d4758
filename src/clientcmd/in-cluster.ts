/**
 * Configuration from inside a pod (client-go's rest.InClusterConfig and clientcmd's
 * inClusterClientConfig): the API server from KUBERNETES_SERVICE_HOST/PORT, the service-account token
 * (by file, so that the REST client's re-reads pick up rotated tokens), the cluster CA and the
 * pod's namespace, all from /var/run/secrets/kubernetes.io/serviceaccount.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { RestConfig } from '../rest/config.ts';
import type { KubeConfig } from './api/types.ts';
import { newKubeConfig, setEntry } from './api/types.ts';
import { KubeConfigReadError, NotInClusterError } from './errors.ts';
import { protectKubeConfig } from './redact.ts';
import { restConfigFrom } from './rest-config.ts';

/** Where Kubernetes mounts the service-account credentials, relative to the root. */
export const serviceAccountDir = 'var/run/secrets/kubernetes.io/serviceaccount';

/** The name of the cluster, user and context synthesised for the in-cluster configuration. */
export const inClusterName = 'in-cluster';

/** Options shared by the in-cluster functions. */
export interface InClusterOptions {
  /** Stands in for `/` (tests point it at a temporary directory). Default: `/`. */
  root?: string;
  /** Environment to read KUBERNETES_SERVICE_HOST/PORT and POD_NAMESPACE from. Default: `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Told when ca.crt is missing or not a certificate (the config then trusts the system roots, as upstream). */
  onWarning?: (message: string) => void;
}

function paths(options: InClusterOptions): { token: string; ca: string; namespace: string } {
  const dir = path.join(options.root ?? '/', serviceAccountDir);
  return { token: path.join(dir, 'token'), ca: path.join(dir, 'ca.crt'), namespace: path.join(dir, 'namespace') };
}

function hostAndPort(env: NodeJS.ProcessEnv): [string, string] | undefined {
  const host = env['KUBERNETES_SERVICE_HOST'] ?? '';
  const port = env['KUBERNETES_SERVICE_PORT'] ?? '';
  return host === '' || port === '' ? undefined : [host, port];
}

/** `host:port`, with IPv6 literals bracketed (net.JoinHostPort). */
export function joinHostPort(host: string, port: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * True when the in-cluster configuration can be used: both environment variables are set and the
 * token file exists (upstream's inClusterClientConfig.Possible).
 */
export async function isInClusterPossible(options: InClusterOptions = {}): Promise<boolean> {
  if (hostAndPort(options.env ?? process.env) === undefined) return false;
  try {
    return !(await stat(paths(options).token)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The pod's namespace: POD_NAMESPACE (set through the downward API), else the service account's
 * namespace file, else `default`.
 */
export async function inClusterNamespace(options: InClusterOptions = {}): Promise<string> {
  const fromEnv = (options.env ?? process.env)['POD_NAMESPACE'];
  if (fromEnv) return fromEnv;
  try {
    const ns = (await readFile(paths(options).namespace, 'utf8')).trim();
    if (ns !== '') return ns;
  } catch {
    // No namespace file: fall through to the default, as upstream.
  }
  return 'default';
}

/**
 * The in-cluster environment as a kubeconfig with one cluster, user and context named `in-cluster`:
 * server `https://HOST:PORT`, certificate-authority pointing at ca.crt, tokenFile pointing at the token.
 *
 * @throws {NotInClusterError} when KUBERNETES_SERVICE_HOST or KUBERNETES_SERVICE_PORT is missing.
 * @throws {KubeConfigReadError} when the token cannot be read.
 */
export async function inClusterKubeConfig(options: InClusterOptions = {}): Promise<KubeConfig> {
  const hp = hostAndPort(options.env ?? process.env);
  if (hp === undefined) throw new NotInClusterError();
  const files = paths(options);
  try {
    await readFile(files.token);
  } catch (err) {
    throw new KubeConfigReadError(files.token, 'service-account token', err);
  }
  const config = newKubeConfig();
  const origin = path.join(options.root ?? '/', serviceAccountDir);
  setEntry(config.clusters, inClusterName, { locationOfOrigin: origin, server: `https://${joinHostPort(hp[0], hp[1])}` });
  try {
    const ca = await readFile(files.ca, 'utf8');
    if (ca.includes('-----BEGIN CERTIFICATE-----')) config.clusters[inClusterName]!.certificateAuthority = files.ca;
    else options.onWarning?.(`${files.ca} holds no PEM certificate; using the system trust store`);
  } catch (err) {
    options.onWarning?.(`unable to read ${files.ca} (${(err as { code?: string }).code ?? String(err)}); using the system trust store`);
  }
  setEntry(config.authInfos, inClusterName, { locationOfOrigin: origin, tokenFile: files.token });
  setEntry(config.contexts, inClusterName, {
    locationOfOrigin: origin,
    cluster: inClusterName,
    authInfo: inClusterName,
    namespace: await inClusterNamespace(options),
  });
  config.currentContext = inClusterName;
  config.source = { kind: 'in-cluster', root: options.root ?? '/' };
  return protectKubeConfig(config);
}

/**
 * A RestConfig for talking to the API server from inside a pod (rest.InClusterConfig).
 * `bearerTokenFile` points at the mounted token, so the REST client's periodic re-reads pick up the
 * kubelet's rotations; `tls.caData` holds ca.crt.
 *
 * @throws {NotInClusterError} when KUBERNETES_SERVICE_HOST or KUBERNETES_SERVICE_PORT is missing.
 *
 * @example
 * const config = await inClusterConfig();
 */
export async function inClusterConfig(options: InClusterOptions = {}): Promise<RestConfig> {
  return restConfigFrom(await inClusterKubeConfig(options));
}
