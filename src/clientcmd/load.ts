/**
 * Loading kubeconfigs (client-go's tools/clientcmd/loader.go and the deferred loading of
 * merged_client_builder.go).
 *
 * Where the configuration comes from, in order:
 * 1. an explicit path (`--kubeconfig`): it must exist;
 * 2. otherwise the files listed in KUBECONFIG (separated by `path.delimiter`, ':' on POSIX), merged
 *    with first-wins precedence (see merge.ts); files that do not exist are skipped;
 * 3. otherwise ~/.kube/config, if it exists;
 * 4. if that selects no context (nothing found, or no current-context), the in-cluster environment
 *    (service-account token and CA) when running in a pod;
 * 5. otherwise a {@link NoConfigurationError}.
 *
 * Relative paths inside a file (certificate-authority, client-certificate, client-key, tokenFile, and an
 * exec command containing a path separator) are resolved against the directory of that file.
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { isPair, isScalar, parseDocument, visit, type Document } from 'yaml';
import { kubeConfigFromV1 } from './api/v1/conversion.ts';
import type { KubeConfig } from './api/types.ts';
import { isEmptyKubeConfig } from './api/types.ts';
import { KubeConfigParseError, KubeConfigReadError, NoConfigurationError } from './errors.ts';
import { inClusterKubeConfig, inClusterNamespace, isInClusterPossible, serviceAccountDir } from './in-cluster.ts';
import { mergeKubeConfigs } from './merge.ts';
import { applyOverrides, type ConfigOverrides } from './overrides.ts';
import { protectKubeConfig } from './redact.ts';

/** The environment variable holding the list of kubeconfig files (clientcmd.RecommendedConfigPathEnvVar). */
export const RecommendedConfigPathEnvVar = 'KUBECONFIG';

/** Options for {@link loadKubeConfig}. */
export interface LoadKubeConfigOptions {
  /** Explicit kubeconfig file (kubectl's --kubeconfig). Wins over KUBECONFIG; must exist. */
  path?: string;
  /** Context to select instead of current-context (kubectl's --context). */
  context?: string;
  /** kubectl-style flag overrides. */
  overrides?: ConfigOverrides;
  /** Environment to read KUBECONFIG and KUBERNETES_SERVICE_* from. Default: `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Home directory for ~/.kube/config. Default: `env.HOME`, else `os.homedir()`. */
  homeDir?: string;
  /** Stands in for `/` when looking for the service-account mount (tests). Default: `/`. */
  inClusterRoot?: string;
}

/**
 * Kubeconfigs have no numeric fields, and the Go loader decodes scalars by their target type: a token or
 * namespace written as `0123` must stay the string "0123". So plain scalars that YAML would read as
 * numbers are turned back into their source text, except inside extension payloads, which are opaque.
 */
function numbersAsWritten(doc: Document): void {
  visit(doc, {
    Scalar(_key, node, path) {
      if (typeof node.value !== 'number' || node.source === undefined) return;
      const inExtension = path.some((p) => isPair(p) && isScalar(p.key) && p.key.value === 'extension');
      if (!inExtension) node.value = node.source;
    },
  });
}

function firstLine(message: string): string {
  const line = (message.split('\n', 1)[0] ?? message).replace(/ at line \d+, column \d+:?\s*$/, '');
  // Speak of the file, not of the YAML library's API.
  return line.startsWith('Source contains multiple documents') ? 'the file holds more than one YAML document' : line;
}

/**
 * Parses kubeconfig text (clientcmd.Load). `file` names the source in errors and is recorded as each
 * entry's origin; `baseDir` (default: the file's directory) resolves relative paths. Without either,
 * relative paths are kept as they are.
 *
 * @throws {KubeConfigParseError} for invalid YAML (with line and column, never a snippet of the file).
 * @throws {InvalidKubeConfigError} for fields of the wrong type, duplicate names, bad base64, …
 */
export function parseKubeConfig(text: string, options: { file?: string; baseDir?: string } = {}): KubeConfig {
  const name = options.file ?? '<data>';
  if (text.trim() === '') return protectKubeConfig(kubeConfigFromV1(undefined, options.file));
  let doc: unknown;
  try {
    const parsed = parseDocument(text, { uniqueKeys: true });
    const err = parsed.errors[0];
    if (err !== undefined) {
      const pos = err.linePos?.[0];
      throw new KubeConfigParseError(name, firstLine(err.message), pos?.line, pos?.col);
    }
    numbersAsWritten(parsed);
    doc = parsed.toJS({ maxAliasCount: 100 });
  } catch (err) {
    if (err instanceof KubeConfigParseError) throw err;
    // Deliberately no cause: the YAML library's errors may quote the file, secrets included.
    throw new KubeConfigParseError(name, err instanceof Error ? firstLine(err.message) : 'invalid YAML');
  }
  const config = kubeConfigFromV1(doc, options.file);
  const baseDir = options.baseDir ?? (options.file !== undefined ? path.dirname(path.resolve(options.file)) : undefined);
  if (baseDir !== undefined) resolveLocalPaths(config, baseDir);
  return protectKubeConfig(config);
}

function resolve(base: string, p: string | undefined): string | undefined {
  return p === undefined || p === '' || path.isAbsolute(p) ? p : path.join(base, p);
}

/**
 * Makes every file reference in `config` absolute, relative to `baseDir` (clientcmd.ResolveLocalPaths).
 * An exec command is only resolved when it contains a path separator; a bare name is looked up in PATH.
 */
export function resolveLocalPaths(config: KubeConfig, baseDir: string): void {
  for (const cluster of Object.values(config.clusters)) {
    cluster.certificateAuthority = resolve(baseDir, cluster.certificateAuthority);
    if (cluster.certificateAuthority === undefined) delete cluster.certificateAuthority;
  }
  for (const user of Object.values(config.authInfos)) {
    for (const key of ['clientCertificate', 'clientKey', 'tokenFile'] as const) {
      const resolved = resolve(baseDir, user[key]);
      if (resolved !== undefined) user[key] = resolved;
    }
    const exec = user.exec;
    if (exec !== undefined && (exec.command.includes('/') || exec.command.includes(path.sep))) {
      exec.command = resolve(baseDir, exec.command) ?? exec.command;
    }
  }
}

/**
 * Reads and parses one kubeconfig file, resolving its relative paths.
 *
 * @throws {KubeConfigReadError} when the file cannot be read (including when it does not exist).
 */
export async function loadKubeConfigFile(file: string): Promise<KubeConfig> {
  const absolute = path.resolve(file);
  let text: string;
  try {
    text = await readFile(absolute, 'utf8');
  } catch (err) {
    throw new KubeConfigReadError(absolute, undefined, err);
  }
  const config = parseKubeConfig(text, { file: absolute });
  config.source = { kind: 'files', files: [absolute] };
  return config;
}

/**
 * The KUBECONFIG list: split on `path.delimiter`, empty entries dropped, duplicates removed keeping
 * the first occurrence (as upstream's deduplicate).
 */
export function kubeConfigPrecedence(env: NodeJS.ProcessEnv): string[] {
  const value = env[RecommendedConfigPathEnvVar] ?? '';
  const seen = new Set<string>();
  const out: string[] = [];
  for (const entry of value.split(path.delimiter)) {
    if (entry === '' || seen.has(entry)) continue;
    seen.add(entry);
    out.push(entry);
  }
  return out;
}

function isMissing(err: unknown): boolean {
  const code = (err as { cause?: { code?: unknown } }).cause?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * Loads the configuration the way kubectl does (see the module comment for the search order),
 * selects the context and applies the overrides. The result's `source` says where it came from;
 * its `currentContext` is the selected context.
 *
 * @throws {NoConfigurationError} when nothing was found (callers may fall back, e.g. to an embedded server).
 * @throws {KubeConfigReadError} when the explicit file, or a KUBECONFIG file that exists, cannot be read.
 * @throws {KubeConfigParseError} / {InvalidKubeConfigError} for malformed files and unknown override names.
 *
 * @example
 * const config = await loadKubeConfig({ context: 'staging' });
 * const rest = await restConfigFrom(config);
 */
export async function loadKubeConfig(options: LoadKubeConfigOptions = {}): Promise<KubeConfig> {
  const env = options.env ?? process.env;
  const searched: string[] = [];
  let files: string[];
  let explicit = false;
  if (options.path !== undefined && options.path !== '') {
    files = [options.path];
    explicit = true;
  } else {
    files = kubeConfigPrecedence(env);
    if (files.length === 0) files = [path.join(options.homeDir ?? env['HOME'] ?? homedir(), '.kube', 'config')];
  }

  const loaded: KubeConfig[] = [];
  const loadedFiles: string[] = [];
  for (const file of files) {
    searched.push(path.resolve(file));
    try {
      const config = await loadKubeConfigFile(file);
      loaded.push(config);
      loadedFiles.push(path.resolve(file));
    } catch (err) {
      if (!explicit && err instanceof KubeConfigReadError && isMissing(err)) continue;
      throw err;
    }
  }

  let config = mergeKubeConfigs(loaded);
  config.source = { kind: 'files', files: loadedFiles };
  const overrides: ConfigOverrides = { ...options.overrides };
  if (options.context && !overrides.context) overrides.context = options.context;

  // Like client-go, a configuration that selects no context at all is as good as none: in a pod, the
  // in-cluster configuration is used then (an explicit --server makes a flags-only configuration).
  const selectsNothing = !overrides.context && !config.currentContext && !overrides.server;
  if (selectsNothing) {
    const root = options.inClusterRoot ?? '/';
    searched.push(`in-cluster (${path.join(root, serviceAccountDir)})`);
    const inCluster = await isInClusterPossible({ root, env });
    // Files with entries but no current context: let restConfigFrom explain what is missing.
    if (!inCluster && !isEmptyKubeConfig(config)) return applyOverrides(config, resolveOverridePaths(overrides));
    if (!inCluster) throw new NoConfigurationError(searched);
    config = await inClusterKubeConfig({ root, env });
    // In a pod only the token and CA can be overridden (upstream's inClusterClientConfig; a server
    // override makes a flags-only configuration instead); the namespace follows the usual rules.
    const { token, certificateAuthority, namespace } = resolveOverridePaths(overrides);
    return applyOverrides(config, { token, certificateAuthority, namespace });
  }
  const result = applyOverrides(config, resolveOverridePaths(overrides));
  // Inside a pod, a context without a namespace means the pod's namespace
  // (DeferredLoadingClientConfig.Namespace falls back to inClusterClientConfig.Namespace).
  const root = options.inClusterRoot ?? '/';
  if (await isInClusterPossible({ root, env })) result.source = { kind: 'files', files: loadedFiles, inClusterNamespace: await inClusterNamespace({ root, env }) };
  return result;
}

/** File flags are relative to the working directory. */
function resolveOverridePaths(overrides: ConfigOverrides): ConfigOverrides {
  const out = { ...overrides };
  if (out.certificateAuthority) out.certificateAuthority = path.resolve(out.certificateAuthority);
  if (out.clientCertificate) out.clientCertificate = path.resolve(out.clientCertificate);
  if (out.clientKey) out.clientKey = path.resolve(out.clientKey);
  return out;
}
