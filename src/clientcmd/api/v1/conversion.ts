/**
 * Conversion between the on-disk kubeconfig ({@link KubeConfigV1}) and the in-memory form
 * ({@link KubeConfig}), with the type checks client-go's decoder performs. Every problem is reported
 * with the file and the YAML path of the field; values are never quoted, as they may be secret.
 */
import type { ConfigProblem } from '../../errors.ts';
import { InvalidKubeConfigError } from '../../errors.ts';
import type { AuthInfo, Cluster, Context, ExecConfig, ExecInteractiveMode, KubeConfig } from '../types.ts';
import { newKubeConfig, setEntry } from '../types.ts';
import type { AuthInfoV1, ClusterV1, ContextV1, ExecConfigV1, KubeConfigV1, NamedExtensionV1 } from './types.ts';

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  return `a ${typeof v}`;
}

const base64Pattern = /^[A-Za-z0-9+/\r\n]*={0,2}[\r\n]*$/;

/** Collects problems while walking one file. */
class Reader {
  readonly problems: ConfigProblem[] = [];
  readonly file: string | undefined;
  constructor(file: string | undefined) {
    this.file = file;
  }

  problem(field: string, message: string): void {
    this.problems.push(this.file !== undefined ? { file: this.file, field, message } : { field, message });
  }

  /** An optional string; `null` counts as absent (as Go's decoder treats it). */
  str(o: Obj, key: string, path: string): string | undefined {
    const v = o[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string') return v;
    this.problem(`${path}.${key}`, `must be a string, got ${typeName(v)}`);
    return undefined;
  }

  bool(o: Obj, key: string, path: string): boolean | undefined {
    const v = o[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'boolean') return v;
    this.problem(`${path}.${key}`, `must be true or false, got ${typeName(v)}`);
    return undefined;
  }

  strList(o: Obj, key: string, path: string): string[] | undefined {
    const v = o[key];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v)) {
      this.problem(`${path}.${key}`, `must be a list of strings, got ${typeName(v)}`);
      return undefined;
    }
    const out: string[] = [];
    v.forEach((item: unknown, i) => {
      if (typeof item === 'string') out.push(item);
      else this.problem(`${path}.${key}[${i}]`, `must be a string, got ${typeName(item)}`);
    });
    return out;
  }

  /** A base64 `*-data` field, decoded to text. */
  data(o: Obj, key: string, path: string): string | undefined {
    const v = this.str(o, key, path);
    if (v === undefined || v === '') return undefined;
    if (!base64Pattern.test(v)) {
      this.problem(`${path}.${key}`, 'is not valid base64');
      return undefined;
    }
    return Buffer.from(v, 'base64').toString('utf8');
  }

  mapping(o: Obj, key: string, path: string): Obj | undefined {
    const v = o[key];
    if (v === undefined || v === null) return undefined;
    if (isObj(v)) return v;
    this.problem(`${path}.${key}`, `must be a mapping, got ${typeName(v)}`);
    return undefined;
  }

  extensions(o: Obj, path: string): Record<string, unknown> | undefined {
    const v = o['extensions'];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v)) {
      this.problem(`${path}.extensions`, `must be a list, got ${typeName(v)}`);
      return undefined;
    }
    const out: Record<string, unknown> = {};
    v.forEach((item: unknown, i) => {
      if (!isObj(item) || typeof item['name'] !== 'string') {
        this.problem(`${path}.extensions[${i}]`, 'must be a mapping with a string name');
        return;
      }
      setEntry(out, item['name'], item['extension']);
    });
    return out;
  }

  /** Walks a named list (`clusters`, `users`, `contexts`), checking names are present and unique. */
  namedList(root: Obj, listKey: string, itemKey: string, each: (item: Obj, path: string, name: string) => void): void {
    const v = root[listKey];
    if (v === undefined || v === null) return;
    if (!Array.isArray(v)) {
      this.problem(listKey, `must be a list, got ${typeName(v)}`);
      return;
    }
    const seen = new Set<string>();
    v.forEach((entry: unknown, i) => {
      const at = `${listKey}[${i}]`;
      if (!isObj(entry)) {
        this.problem(at, `must be a mapping with name and ${itemKey}, got ${typeName(entry)}`);
        return;
      }
      const name = entry['name'];
      if (typeof name !== 'string') {
        this.problem(`${at}.name`, name === undefined || name === null ? 'is required' : `must be a string, got ${typeName(name)}`);
        return;
      }
      const path = `${listKey}[${JSON.stringify(name)}]`;
      if (seen.has(name)) {
        this.problem(path, `duplicate name ${JSON.stringify(name)} in ${listKey}`);
        return;
      }
      seen.add(name);
      const body = entry[itemKey];
      if (body === undefined || body === null) {
        each({}, `${path}.${itemKey}`, name);
        return;
      }
      if (!isObj(body)) {
        this.problem(`${path}.${itemKey}`, `must be a mapping, got ${typeName(body)}`);
        return;
      }
      each(body, `${path}.${itemKey}`, name);
    });
  }
}

function withOrigin<T extends { locationOfOrigin?: string }>(entry: T, file: string | undefined): T {
  if (file !== undefined) entry.locationOfOrigin = file;
  return entry;
}

function definedOnly<T extends object>(obj: T): T {
  for (const key of Object.keys(obj) as (keyof T)[]) if (obj[key] === undefined) delete obj[key];
  return obj;
}

function readCluster(r: Reader, o: Obj, path: string): Cluster {
  return withOrigin(
    definedOnly<Cluster>({
      server: r.str(o, 'server', path) ?? '',
      tlsServerName: r.str(o, 'tls-server-name', path),
      insecureSkipTlsVerify: r.bool(o, 'insecure-skip-tls-verify', path),
      certificateAuthority: r.str(o, 'certificate-authority', path) || undefined,
      certificateAuthorityData: r.data(o, 'certificate-authority-data', path),
      proxyUrl: r.str(o, 'proxy-url', path) || undefined,
      disableCompression: r.bool(o, 'disable-compression', path),
      extensions: r.extensions(o, path),
    }),
    r.file,
  );
}

function readExec(r: Reader, o: Obj, path: string): ExecConfig {
  const env: { name: string; value: string }[] = [];
  const rawEnv = o['env'];
  if (rawEnv !== undefined && rawEnv !== null) {
    if (!Array.isArray(rawEnv)) r.problem(`${path}.env`, `must be a list, got ${typeName(rawEnv)}`);
    else
      rawEnv.forEach((item: unknown, i) => {
        if (!isObj(item)) {
          r.problem(`${path}.env[${i}]`, `must be a mapping with name and value, got ${typeName(item)}`);
          return;
        }
        const name = r.str(item, 'name', `${path}.env[${i}]`) ?? '';
        const value = r.str(item, 'value', `${path}.env[${i}]`) ?? '';
        env.push({ name, value });
      });
  }
  const apiVersion = r.str(o, 'apiVersion', path) ?? '';
  let interactiveMode = r.str(o, 'interactiveMode', path);
  // Upstream's v1 defaulting: older plugin APIs could always prompt, so they default to IfAvailable;
  // client.authentication.k8s.io/v1 requires the field (validation reports it when missing).
  if (!interactiveMode && (apiVersion === 'client.authentication.k8s.io/v1beta1' || apiVersion === 'client.authentication.k8s.io/v1alpha1')) {
    interactiveMode = 'IfAvailable';
  }
  return definedOnly<ExecConfig>({
    command: r.str(o, 'command', path) ?? '',
    args: r.strList(o, 'args', path),
    env: rawEnv === undefined || rawEnv === null ? undefined : env,
    apiVersion,
    installHint: r.str(o, 'installHint', path),
    provideClusterInfo: r.bool(o, 'provideClusterInfo', path),
    interactiveMode: (interactiveMode || undefined) as ExecInteractiveMode | undefined,
  });
}

function readAuthInfo(r: Reader, o: Obj, path: string): AuthInfo {
  let extra: Record<string, string[]> | undefined;
  const rawExtra = r.mapping(o, 'as-user-extra', path);
  if (rawExtra !== undefined) {
    extra = {};
    for (const key of Object.keys(rawExtra)) {
      const values = r.strList(rawExtra, key, `${path}.as-user-extra`);
      if (values !== undefined) setEntry(extra, key, values);
    }
  }
  let authProvider: AuthInfo['authProvider'];
  const rawProvider = r.mapping(o, 'auth-provider', path);
  if (rawProvider !== undefined) {
    const config: Record<string, string> = {};
    const rawConfig = r.mapping(rawProvider, 'config', `${path}.auth-provider`);
    for (const key of Object.keys(rawConfig ?? {})) {
      const value = r.str(rawConfig!, key, `${path}.auth-provider.config`);
      if (value !== undefined) setEntry(config, key, value);
    }
    authProvider = { name: r.str(rawProvider, 'name', `${path}.auth-provider`) ?? '', config };
  }
  const rawExec = r.mapping(o, 'exec', path);
  return withOrigin(
    definedOnly<AuthInfo>({
      clientCertificate: r.str(o, 'client-certificate', path) || undefined,
      clientCertificateData: r.data(o, 'client-certificate-data', path),
      clientKey: r.str(o, 'client-key', path) || undefined,
      clientKeyData: r.data(o, 'client-key-data', path),
      token: r.str(o, 'token', path) || undefined,
      tokenFile: r.str(o, 'tokenFile', path) || undefined,
      impersonate: r.str(o, 'as', path) || undefined,
      impersonateUid: r.str(o, 'as-uid', path) || undefined,
      impersonateGroups: r.strList(o, 'as-groups', path),
      impersonateUserExtra: extra,
      username: r.str(o, 'username', path) || undefined,
      password: r.str(o, 'password', path) || undefined,
      authProvider,
      exec: rawExec === undefined ? undefined : readExec(r, rawExec, `${path}.exec`),
      extensions: r.extensions(o, path),
    }),
    r.file,
  );
}

function readContext(r: Reader, o: Obj, path: string): Context {
  return withOrigin(
    definedOnly<Context>({
      cluster: r.str(o, 'cluster', path) ?? '',
      authInfo: r.str(o, 'user', path) ?? '',
      namespace: r.str(o, 'namespace', path) || undefined,
      extensions: r.extensions(o, path),
    }),
    r.file,
  );
}

/**
 * Converts a parsed kubeconfig document (the result of YAML parsing) to the in-memory form.
 * `null`/`undefined` (an empty file) gives an empty config, as upstream.
 *
 * @throws {InvalidKubeConfigError} listing every field of the wrong type, every duplicate name, …
 */
export function kubeConfigFromV1(doc: unknown, file?: string): KubeConfig {
  const config = newKubeConfig();
  if (doc === undefined || doc === null) return config;
  const r = new Reader(file);
  if (!isObj(doc)) {
    r.problem('(document)', `must be a mapping, got ${typeName(doc)}`);
    throw new InvalidKubeConfigError(r.problems);
  }
  const kind = r.str(doc, 'kind', '(document)');
  if (kind !== undefined && kind !== '' && kind !== 'Config') r.problem('kind', `must be Config, got ${JSON.stringify(kind)}`);
  const apiVersion = r.str(doc, 'apiVersion', '(document)');
  if (apiVersion !== undefined && apiVersion !== '' && apiVersion !== 'v1') r.problem('apiVersion', `must be v1, got ${JSON.stringify(apiVersion)}`);

  const prefs = r.mapping(doc, 'preferences', '(document)');
  if (prefs !== undefined) config.preferences = definedOnly({ colors: r.bool(prefs, 'colors', 'preferences'), extensions: r.extensions(prefs, 'preferences') });
  r.namedList(doc, 'clusters', 'cluster', (o, path, name) => setEntry(config.clusters, name, readCluster(r, o, path)));
  r.namedList(doc, 'users', 'user', (o, path, name) => setEntry(config.authInfos, name, readAuthInfo(r, o, path)));
  r.namedList(doc, 'contexts', 'context', (o, path, name) => setEntry(config.contexts, name, readContext(r, o, path)));
  config.currentContext = r.str(doc, 'current-context', '(document)') ?? '';
  const extensions = r.extensions(doc, '(document)');
  if (extensions !== undefined) config.extensions = extensions;
  // Paths built at the top level read "(document).kind"; report them by their plain name instead.
  for (const p of r.problems) if (p.field.startsWith('(document).')) p.field = p.field.slice('(document).'.length);
  if (r.problems.length > 0) throw new InvalidKubeConfigError(r.problems);
  return config;
}

function b64(text: string | undefined): string | undefined {
  return text === undefined ? undefined : Buffer.from(text, 'utf8').toString('base64');
}

function extensionsV1(ext: Record<string, unknown> | undefined): NamedExtensionV1[] | undefined {
  return ext === undefined ? undefined : Object.entries(ext).map(([name, extension]) => ({ name, extension }));
}

function clusterV1(c: Cluster): ClusterV1 {
  return definedOnly<ClusterV1>({
    server: c.server,
    'tls-server-name': c.tlsServerName,
    'insecure-skip-tls-verify': c.insecureSkipTlsVerify,
    'certificate-authority': c.certificateAuthority,
    'certificate-authority-data': b64(c.certificateAuthorityData),
    'proxy-url': c.proxyUrl,
    'disable-compression': c.disableCompression,
    extensions: extensionsV1(c.extensions),
  });
}

function execV1(e: ExecConfig): ExecConfigV1 {
  return definedOnly<ExecConfigV1>({
    command: e.command,
    args: e.args && [...e.args],
    env: e.env?.map((v) => ({ name: v.name, value: v.value })),
    apiVersion: e.apiVersion,
    installHint: e.installHint,
    provideClusterInfo: e.provideClusterInfo,
    interactiveMode: e.interactiveMode,
  });
}

function authInfoV1(a: AuthInfo): AuthInfoV1 {
  return definedOnly<AuthInfoV1>({
    'client-certificate': a.clientCertificate,
    'client-certificate-data': b64(a.clientCertificateData),
    'client-key': a.clientKey,
    'client-key-data': b64(a.clientKeyData),
    token: a.token,
    tokenFile: a.tokenFile,
    as: a.impersonate,
    'as-uid': a.impersonateUid,
    'as-groups': a.impersonateGroups && [...a.impersonateGroups],
    'as-user-extra': a.impersonateUserExtra && Object.fromEntries(Object.entries(a.impersonateUserExtra).map(([k, v]) => [k, [...v]])),
    username: a.username,
    password: a.password,
    'auth-provider': a.authProvider && definedOnly({ name: a.authProvider.name, config: a.authProvider.config && { ...a.authProvider.config } }),
    exec: a.exec && execV1(a.exec),
    extensions: extensionsV1(a.extensions),
  });
}

function contextV1(c: Context): ContextV1 {
  return definedOnly<ContextV1>({ cluster: c.cluster, user: c.authInfo, namespace: c.namespace, extensions: extensionsV1(c.extensions) });
}

/**
 * Converts an in-memory config to the on-disk form, secrets included (this is what the writer saves).
 * Entries are sorted by name so that files are stable across writes.
 */
export function kubeConfigToV1(config: KubeConfig): KubeConfigV1 {
  const sorted = <T, U>(record: Record<string, T>, fn: (v: T) => U): [string, U][] =>
    Object.keys(record)
      .sort()
      .map((name) => [name, fn(record[name]!)]);
  const out: KubeConfigV1 = {
    apiVersion: 'v1',
    kind: 'Config',
    preferences: definedOnly({ colors: config.preferences.colors, extensions: extensionsV1(config.preferences.extensions) }),
    clusters: sorted(config.clusters, clusterV1).map(([name, cluster]) => ({ name, cluster })),
    users: sorted(config.authInfos, authInfoV1).map(([name, user]) => ({ name, user })),
    contexts: sorted(config.contexts, contextV1).map(([name, context]) => ({ name, context })),
    'current-context': config.currentContext,
  };
  const ext = extensionsV1(config.extensions);
  if (ext !== undefined) out.extensions = ext;
  return out;
}
