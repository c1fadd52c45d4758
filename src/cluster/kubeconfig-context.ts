/**
 * The context of a named cluster in the user's kubeconfig, as kind writes it (sigs.k8s.io/kind
 * pkg/cluster/internal/kubeconfig: a cluster, a user and a context all named `kind-NAME`, merged into
 * `$KUBECONFIG`'s first file or `~/.kube/config`, the current context switched to it on create, all three
 * removed on delete). Here they are named `kubeloom-NAME`.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { loadKubeConfigFile } from '../clientcmd/load.ts';
import { writeKubeConfig } from '../clientcmd/write.ts';
import type { KubeConfig } from '../clientcmd/api/types.ts';

/** The name of a cluster's context (and of its cluster and user entries). */
export function contextName(cluster: string): string {
  return `kubeloom-${cluster}`;
}

/** The kubeconfig file contexts are merged into: `$KUBECONFIG`'s first entry, else `~/.kube/config` (kind's rule). */
export function kubeconfigPath(env: NodeJS.ProcessEnv = process.env): string {
  const first = (env.KUBECONFIG ?? '').split(path.delimiter).find((p) => p !== '');
  return first ?? path.join(env.HOME ?? homedir(), '.kube', 'config');
}

async function load(file: string): Promise<KubeConfig> {
  if (!existsSync(file)) return { preferences: {}, clusters: {}, authInfos: {}, contexts: {}, currentContext: '' };
  return loadKubeConfigFile(file);
}

/** What a context points at. */
export interface ClusterEndpoint {
  /** The server URL. */
  readonly server: string;
  /** The PEM CA of its serving certificate. */
  readonly caPem: string | undefined;
  /** The admin token. */
  readonly token: string;
}

/** Adds or replaces the cluster's entries; with `switchTo`, makes its context the current one. */
export async function mergeContext(file: string, cluster: string, endpoint: ClusterEndpoint, switchTo: boolean): Promise<void> {
  const config = await load(file);
  const name = contextName(cluster);
  config.clusters[name] = { server: endpoint.server, ...(endpoint.caPem === undefined ? {} : { certificateAuthorityData: endpoint.caPem }) };
  config.authInfos[name] = { token: endpoint.token };
  config.contexts[name] = { cluster: name, authInfo: name, namespace: 'default' };
  if (switchTo) config.currentContext = name;
  await writeKubeConfig(file, config);
}

/** Removes the cluster's entries (and the current context when it was this one). */
export async function removeContext(file: string, cluster: string): Promise<void> {
  if (!existsSync(file)) return;
  const config = await load(file);
  const name = contextName(cluster);
  if (config.clusters[name] === undefined && config.contexts[name] === undefined && config.authInfos[name] === undefined) return;
  delete config.clusters[name];
  delete config.authInfos[name];
  delete config.contexts[name];
  if (config.currentContext === name) config.currentContext = '';
  await writeKubeConfig(file, config);
}
