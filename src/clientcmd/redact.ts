/**
 * Keeping secrets out of output.
 *
 * Config objects built by clientcmd carry tokens, passwords, private keys and exec plugin arguments.
 * {@link protectSecrets} gives such an object non-enumerable `util.inspect`, `toJSON` and `toString`
 * implementations that print a redacted copy, so that `console.log(config)`, a logger serialising it
 * with `JSON.stringify`, or a template string never reveal a secret. The kubeconfig writer reads the
 * fields directly and is unaffected.
 *
 * The replacement strings are kubectl's (`kubectl config view`): secrets become `REDACTED`, large
 * non-secret blobs (certificates, CA bundles) `DATA+OMITTED`.
 */
import { inspect, type InspectOptions } from 'node:util';
import type { RestConfig } from '../rest/config.ts';
import type { AuthInfo, Cluster, Context, KubeConfig } from './api/types.ts';

/** Printed instead of a secret value. */
export const REDACTED = 'REDACTED';
/** Printed instead of certificate data. */
export const DATA_OMITTED = 'DATA+OMITTED';

type Redactor<T> = (value: T) => unknown;

/**
 * Makes `target` print `redactor(target)` under `util.inspect`, `JSON.stringify` and `String()`.
 * The added methods are non-enumerable, so spreading or iterating the object is unchanged
 * (a spread copy is, however, no longer protected). Returns `target`.
 */
export function protectSecrets<T extends object>(target: T, redactor: Redactor<T>, label = 'Object'): T {
  const custom = function (this: T, _depth: number, options: InspectOptions): string {
    return `${label} ${inspect(redactor(this), { ...options, customInspect: true })}`;
  };
  Object.defineProperty(target, inspect.custom, { value: custom, enumerable: false, configurable: true, writable: true });
  Object.defineProperty(target, 'toJSON', {
    value: function (this: T): unknown {
      return redactor(this);
    },
    enumerable: false,
    configurable: true,
    writable: true,
  });
  Object.defineProperty(target, 'toString', {
    value: function (this: T): string {
      return `${label} ${inspect(redactor(this), { depth: 6, breakLength: Infinity })}`;
    },
    enumerable: false,
    configurable: true,
    writable: true,
  });
  return target;
}

function secret(value: string | undefined): string | undefined {
  return value === undefined ? undefined : REDACTED;
}

function omitted(value: string | undefined): string | undefined {
  return value === undefined ? undefined : DATA_OMITTED;
}

function compact(obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (v !== undefined) out[k] = v;
  return out;
}

/** A printable copy of a cluster entry. */
export function redactCluster(cluster: Cluster): Record<string, unknown> {
  return compact({ ...cluster, certificateAuthorityData: omitted(cluster.certificateAuthorityData) });
}

/** A printable copy of a user entry: tokens, passwords, keys, exec args/env and auth-provider config hidden. */
export function redactAuthInfo(authInfo: AuthInfo): Record<string, unknown> {
  const { exec, authProvider } = authInfo;
  return compact({
    ...authInfo,
    token: secret(authInfo.token),
    password: secret(authInfo.password),
    clientKeyData: secret(authInfo.clientKeyData),
    clientCertificateData: omitted(authInfo.clientCertificateData),
    exec:
      exec === undefined
        ? undefined
        : compact({
            ...exec,
            args: exec.args === undefined ? undefined : exec.args.length > 0 ? [REDACTED] : [],
            env: exec.env?.map((e) => ({ name: e.name, value: REDACTED })),
          }),
    authProvider:
      authProvider === undefined
        ? undefined
        : compact({
            name: authProvider.name,
            config: authProvider.config === undefined ? undefined : Object.fromEntries(Object.keys(authProvider.config).map((k) => [k, REDACTED])),
          }),
  });
}

function mapRecord<T>(record: Record<string, T>, fn: (v: T) => unknown): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, fn(v)]));
}

/** A printable copy of a whole kubeconfig. */
export function redactKubeConfig(config: KubeConfig): Record<string, unknown> {
  return compact({
    ...config,
    clusters: mapRecord(config.clusters, redactCluster),
    authInfos: mapRecord(config.authInfos, redactAuthInfo),
    contexts: mapRecord(config.contexts, (c: Context) => ({ ...c })),
  });
}

/** A printable copy of a RestConfig (rest.Config's String/GoString do the same upstream). */
export function redactRestConfig(config: RestConfig): Record<string, unknown> {
  const tls = config.tls;
  return compact({
    ...config,
    bearerToken: secret(config.bearerToken),
    password: secret(config.password),
    credentialProvider: config.credentialProvider === undefined ? undefined : '[CredentialProvider]',
    rateLimiter: config.rateLimiter === undefined ? undefined : '[RequestRateLimiter]',
    tls:
      tls === undefined
        ? undefined
        : compact({ ...tls, caData: omitted(tls.caData), certData: omitted(tls.certData), keyData: secret(tls.keyData) }),
  });
}

/** Protects every entry of a kubeconfig and the config itself. Returns `config`. */
export function protectKubeConfig(config: KubeConfig): KubeConfig {
  for (const c of Object.values(config.clusters)) protectSecrets(c, redactCluster, 'Cluster');
  for (const a of Object.values(config.authInfos)) {
    protectSecrets(a, redactAuthInfo, 'AuthInfo');
    if (a.exec !== undefined) protectSecrets(a.exec, (e) => redactAuthInfo({ exec: e }).exec, 'ExecConfig');
    if (a.authProvider !== undefined) protectSecrets(a.authProvider, (p) => redactAuthInfo({ authProvider: p }).authProvider, 'AuthProviderConfig');
  }
  return protectSecrets(config, redactKubeConfig, 'KubeConfig');
}

/** Protects a RestConfig (and its TLS settings). Returns `config`. */
export function protectRestConfig<T extends RestConfig>(config: T): T {
  if (config.tls !== undefined) protectSecrets(config.tls, (t) => redactRestConfig({ host: '', tls: t }).tls, 'TlsClientConfig');
  return protectSecrets(config, redactRestConfig, 'RestConfig');
}

// Patterns for text we did not produce (a plugin's stderr): whatever looks like a credential is masked.
const scrubRules: readonly [RegExp, string][] = [
  [/-----BEGIN [A-Z0-9 ]*-----[\s\S]*?(?:-----END [A-Z0-9 ]*-----|$)/g, REDACTED], // PEM blocks
  [/\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.?[A-Za-z0-9_-]*/g, REDACTED], // JWTs
  [/\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${REDACTED}`], // Authorization header values
  [/("?(?:[a-z_-]*token|password|secret|[a-z_-]*key(?:-data|Data)?)"?\s*[:=]\s*)(?:"[^"]*"|\S+)/gi, `$1${REDACTED}`],
  [/[A-Za-z0-9+/_=-]{32,}/g, REDACTED], // long opaque strings: API keys, base64 blobs
];

/**
 * Masks anything in free text that looks like a credential (PEM blocks, JWTs, `token: …` pairs, long
 * opaque strings) and truncates it to `maxLength` characters. Used on exec plugin stderr before it goes
 * into an error message.
 */
export function scrubText(text: string, maxLength = 1024): string {
  let out = text;
  for (const [pattern, replacement] of scrubRules) out = out.replace(pattern, replacement);
  out = out.trim();
  return out.length > maxLength ? `${out.slice(0, maxLength)}… (truncated)` : out;
}
