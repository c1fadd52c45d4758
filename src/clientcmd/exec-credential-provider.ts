/**
 * Exec credential plugins (client-go's plugin/pkg/client/auth/exec) as a {@link CredentialProvider}.
 *
 * The plugin is spawned directly (an argument array, never a shell) with the parent's environment plus
 * the configured `env` and KUBERNETES_EXEC_INFO, an ExecCredential describing the request. Its stdout
 * must be an ExecCredential of the configured apiVersion with a token or a client certificate and key.
 * The credential is cached until `status.expirationTimestamp` (forever when absent) or until
 * {@link ExecCredentialProvider.invalidate} (the REST client calls it after a 401). Concurrent callers
 * share a single plugin run, and {@link execCredentialProviderFor} shares one provider per plugin
 * configuration and cluster across the whole process, as client-go caches its authenticators, so
 * clients built from the same kubeconfig run the plugin once.
 */
import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { isatty } from 'node:tty';
import { inspect } from 'node:util';
import type { Credentials, CredentialProvider } from '../rest/config.ts';
import { ExecPluginCallStatus, type ExecPluginCallStatusValue, reportExecPluginCall, reportExecPluginCertRotation, setExecPluginCertExpiry } from '../tools/metrics/exec-plugin.ts';
import { realClock, type Clock } from '../util/clock/clock.ts';
import type { ExecConfig } from './api/types.ts';
import {
  ExecPluginFailedError,
  ExecPluginInteractiveError,
  ExecPluginNotFoundError,
  ExecPluginOutputError,
} from './errors.ts';
import { protectSecrets, REDACTED, scrubText } from './redact.ts';

/** The cluster a plugin is asked to authenticate to (sent when `provideClusterInfo` is set). */
export interface ExecClusterInfo {
  /** The API server URL. */
  server: string;
  /** Server name for SNI and certificate checks. */
  tlsServerName?: string | undefined;
  /** Whether certificate verification is off. */
  insecureSkipTlsVerify?: boolean | undefined;
  /** PEM CA bundle; sent base64-encoded as certificate-authority-data. */
  certificateAuthorityData?: string | undefined;
  /** Proxy URL. */
  proxyUrl?: string | undefined;
  /** Whether responses are asked for uncompressed. */
  disableCompression?: boolean | undefined;
  /** The cluster's `client.authentication.k8s.io/exec` extension. */
  config?: unknown;
}

/** Options for {@link ExecCredentialProvider}. */
export interface ExecCredentialProviderOptions {
  /** The plugin stanza of the kubeconfig user (already validated). */
  exec: ExecConfig;
  /** The target cluster, passed to the plugin when `exec.provideClusterInfo` is true. */
  cluster?: ExecClusterInfo;
  /** Decides when a credential has expired. Default: the real clock. */
  clock?: Clock | undefined;
  /** The environment the plugin inherits before `exec.env` is added. Default: `process.env`. */
  env?: NodeJS.ProcessEnv | undefined;
  /** Whether standard input is a terminal. Default: `tty.isatty(0)`. */
  stdinIsTTY?: boolean | undefined;
}

// Limits on what is read from a plugin: a credential is a few KiB; anything larger is a broken plugin.
const maxStdoutBytes = 4 * 1024 * 1024;
const maxStderrBytes = 64 * 1024;
// How much scrubbed stderr goes into an error message.
const stderrExcerptChars = 1024;

interface Cached {
  credentials: Credentials;
  /** ms since the epoch; undefined = never expires. */
  expiresAt: number | undefined;
}

/** The client certificate a provider holds, for the rotation and expiry metrics. */
interface HeldCert {
  /** The PEM the plugin returned (a different one is a rotation). */
  pem: string;
  /** Its leaf's validity, ms since the epoch; undefined when it does not parse. */
  notBefore: number | undefined;
  notAfter: number | undefined;
}

function heldCert(pem: string): HeldCert {
  try {
    const leaf = new X509Certificate(pem);
    return { pem, notBefore: Date.parse(leaf.validFrom), notAfter: Date.parse(leaf.validTo) };
  } catch {
    // The REST client reports an unusable certificate when it builds its TLS context.
    return { pem, notBefore: undefined, notAfter: undefined };
  }
}

/** exec.go's incrementCallsMetric: the exit code and call status a plugin run's failure counts as. */
function callOutcome(err: unknown): [number, ExecPluginCallStatusValue] {
  if (err instanceof ExecPluginNotFoundError) return [1, ExecPluginCallStatus.pluginNotFoundError];
  if (err instanceof ExecPluginFailedError) {
    // Go's ExitError.ExitCode() is -1 for a process ended by a signal.
    if (err.exitCode !== null) return [err.exitCode, ExecPluginCallStatus.pluginExecutionError];
    if (err.signal !== null) return [-1, ExecPluginCallStatus.pluginExecutionError];
  }
  // Could not be started for another reason, or its output passed kubeloom's size limit.
  return [1, ExecPluginCallStatus.clientInternalError];
}

/**
 * Runs an exec credential plugin and caches what it returns.
 *
 * @example
 * const provider = new ExecCredentialProvider({ exec: { command: 'kubelogin', args: ['get-token'],
 *   apiVersion: 'client.authentication.k8s.io/v1', interactiveMode: 'Never' } });
 * const { token } = await provider.getCredentials();
 */
export class ExecCredentialProvider implements CredentialProvider {
  readonly #exec: ExecConfig;
  readonly #cluster: ExecClusterInfo | undefined;
  readonly #clock: Clock;
  readonly #env: NodeJS.ProcessEnv;
  readonly #stdinIsTTY: boolean;
  #cached: Cached | undefined;
  #running: Promise<Cached> | undefined;
  // The client certificate last returned, kept after invalidate() as exec.go keeps cachedCreds.
  #cert: HeldCert | undefined;

  constructor(options: ExecCredentialProviderOptions) {
    this.#exec = { ...options.exec, args: [...(options.exec.args ?? [])], env: [...(options.exec.env ?? [])] };
    this.#cluster = options.cluster;
    this.#clock = options.clock ?? realClock;
    this.#env = options.env ?? process.env;
    // isatty(0) rather than process.stdin.isTTY: touching process.stdin would open a stream on it.
    this.#stdinIsTTY = options.stdinIsTTY ?? isatty(0);
  }

  /** The plugin's command (for messages; arguments are never exposed). */
  get command(): string {
    return this.#exec.command;
  }

  /**
   * The cached credential while it is valid; otherwise runs the plugin (once for all concurrent callers).
   * Aborting `signal` rejects this call only: a plugin run shared with other callers is not killed.
   */
  async getCredentials(signal?: AbortSignal): Promise<Credentials> {
    signal?.throwIfAborted();
    const cached = this.#cached;
    // Upstream treats a credential as expired only once the clock is strictly past its expiry.
    if (cached !== undefined && (cached.expiresAt === undefined || this.#clock.now() <= cached.expiresAt)) return cached.credentials;
    if (this.#running === undefined) {
      const run = this.#run().then((result) => {
        this.#cached = result;
        this.#noteCertificate(result.credentials.clientCertificateData);
        return result;
      });
      this.#running = run;
      // The run is shared; whoever started it may have gone (aborted), so never leave it unhandled.
      run.then(
        () => {
          if (this.#running === run) this.#running = undefined;
        },
        () => {
          if (this.#running === run) this.#running = undefined;
        },
      );
    }
    const running = this.#running;
    if (signal === undefined) return (await running).credentials;
    return new Promise<Credentials>((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      running.then(
        (r) => {
          signal.removeEventListener('abort', onAbort);
          resolve(r.credentials);
        },
        (err: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(err);
        },
      );
    });
  }

  /**
   * Drops the cached credential: the next {@link getCredentials} runs the plugin again. With `used`
   * (the credentials a request was refused with), only when those are still the cached ones, so
   * several requests failing with the same credential run the plugin once (maybeRefreshCreds).
   */
  invalidate(used?: Credentials): void {
    if (used !== undefined && this.#cached?.credentials !== used) return;
    this.#cached = undefined;
  }

  /**
   * exec.go's refreshCredsLocked, metrics part: a certificate different from the one held counts its
   * age (since its notBefore) in the rotation histogram, and the held certificate's notAfter feeds the
   * TTL gauge.
   */
  #noteCertificate(pem: string | undefined): void {
    const old = this.#cert;
    if (old !== undefined && old.pem !== pem && old.notBefore !== undefined) reportExecPluginCertRotation((this.#clock.now() - old.notBefore) / 1000);
    this.#cert = pem === undefined ? undefined : old?.pem === pem ? old : heldCert(pem);
    setExecPluginCertExpiry(this, this.#cert?.notAfter);
  }

  /** Inspection shows the command, never credentials. */
  [inspect.custom](): string {
    return `ExecCredentialProvider { command: ${inspect(this.#exec.command)}, apiVersion: ${inspect(this.#exec.apiVersion)}, args: ${this.#exec.args?.length ? `[ '${REDACTED}' ]` : '[]'} }`;
  }

  /** JSON form without credentials (for logs). */
  toJSON(): unknown {
    return { command: this.#exec.command, apiVersion: this.#exec.apiVersion };
  }

  #interactive(): boolean {
    switch (this.#exec.interactiveMode) {
      case 'Never':
        return false;
      case 'Always':
        if (!this.#stdinIsTTY) throw new ExecPluginInteractiveError(this.#exec.command);
        return true;
      default:
        return this.#stdinIsTTY;
    }
  }

  /** The ExecCredential passed in KUBERNETES_EXEC_INFO. */
  #execInfo(interactive: boolean): string {
    const spec: Record<string, unknown> = { interactive };
    const c = this.#cluster;
    if (this.#exec.provideClusterInfo && c !== undefined) {
      const cluster: Record<string, unknown> = { server: c.server };
      if (c.tlsServerName) cluster['tls-server-name'] = c.tlsServerName;
      if (c.insecureSkipTlsVerify) cluster['insecure-skip-tls-verify'] = true;
      if (c.certificateAuthorityData) cluster['certificate-authority-data'] = Buffer.from(c.certificateAuthorityData).toString('base64');
      if (c.proxyUrl) cluster['proxy-url'] = c.proxyUrl;
      if (c.disableCompression) cluster['disable-compression'] = true;
      if (c.config !== undefined) cluster['config'] = c.config;
      spec['cluster'] = cluster;
    }
    return JSON.stringify({ apiVersion: this.#exec.apiVersion, kind: 'ExecCredential', spec });
  }

  async #run(): Promise<Cached> {
    const interactive = this.#interactive();
    const env: NodeJS.ProcessEnv = { ...this.#env };
    for (const { name, value } of this.#exec.env ?? []) env[name] = value;
    env['KUBERNETES_EXEC_INFO'] = this.#execInfo(interactive);
    let output: { stdout: Buffer; stderr: string };
    try {
      output = await this.#spawn(env, interactive);
    } catch (err) {
      reportExecPluginCall(...callOutcome(err));
      throw err;
    }
    // Counted as upstream does, once the plugin exited 0, whatever its output turns out to be.
    reportExecPluginCall(0, ExecPluginCallStatus.noError);
    return this.#parse(output.stdout, output.stderr);
  }

  #spawn(env: NodeJS.ProcessEnv, interactive: boolean): Promise<{ stdout: Buffer; stderr: string }> {
    const command = this.#exec.command;
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = (err: Error): void => {
        if (!settled) {
          settled = true;
          reject(err);
        }
      };
      const child = spawn(command, this.#exec.args ?? [], {
        env,
        shell: false,
        windowsHide: true,
        stdio: [interactive ? 'inherit' : 'ignore', 'pipe', 'pipe'],
      });
      const out: Buffer[] = [];
      let outBytes = 0;
      const err: Buffer[] = [];
      let errBytes = 0;
      child.stdout.on('data', (chunk: Buffer) => {
        outBytes += chunk.length;
        if (outBytes > maxStdoutBytes) {
          child.kill();
          fail(new ExecPluginOutputError(command, `output exceeds ${maxStdoutBytes} bytes`));
          return;
        }
        out.push(chunk);
      });
      child.stderr.on('data', (chunk: Buffer) => {
        // An interactive plugin talks to the user on stderr: let them see it.
        if (interactive) process.stderr.write(chunk);
        if (errBytes < maxStderrBytes) err.push(chunk.subarray(0, maxStderrBytes - errBytes));
        errBytes += chunk.length;
      });
      child.on('error', (e: NodeJS.ErrnoException) => {
        if (e.code === 'ENOENT' || e.code === 'EACCES' || e.code === 'ENOTDIR') {
          fail(new ExecPluginNotFoundError(command, this.#exec.installHint, e.code === 'EACCES' ? 'permission denied' : 'no such file'));
        } else {
          fail(new ExecPluginFailedError(command, null, null, e.code ?? 'spawn failed'));
        }
      });
      child.on('close', (code, signal) => {
        const stderr = Buffer.concat(err).toString('utf8');
        if (code !== 0) fail(new ExecPluginFailedError(command, code, signal, scrubText(stderr, stderrExcerptChars)));
        else if (!settled) {
          settled = true;
          resolve({ stdout: Buffer.concat(out), stderr });
        }
      });
    });
  }

  #parse(stdout: Buffer, _stderr: string): Cached {
    const command = this.#exec.command;
    const bad = (reason: string): ExecPluginOutputError => new ExecPluginOutputError(command, reason);
    let doc: unknown;
    try {
      doc = JSON.parse(stdout.toString('utf8'));
    } catch {
      // JSON.parse's message quotes the input, which is the credential: say only what went wrong.
      throw bad(`output is not a JSON ExecCredential (${stdout.length} bytes)`);
    }
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw bad('output is not a JSON object');
    const cred = doc as Record<string, unknown>;
    const apiVersion = cred['apiVersion'];
    if (apiVersion !== this.#exec.apiVersion) {
      const got = typeof apiVersion === 'string' ? JSON.stringify(apiVersion.slice(0, 100)) : 'none';
      throw bad(`exec plugin is configured to use API version ${this.#exec.apiVersion}, plugin returned version ${got}`);
    }
    if (cred['kind'] !== 'ExecCredential') throw bad('output kind must be ExecCredential');
    const status = cred['status'];
    if (typeof status !== 'object' || status === null || Array.isArray(status)) throw bad("exec plugin didn't return a status field");
    const s = status as Record<string, unknown>;
    for (const key of ['token', 'clientCertificateData', 'clientKeyData', 'expirationTimestamp']) {
      if (s[key] !== undefined && s[key] !== null && typeof s[key] !== 'string') throw bad(`status.${key} must be a string`);
    }
    const token = (s['token'] as string | undefined) || undefined;
    const cert = (s['clientCertificateData'] as string | undefined) || undefined;
    const key = (s['clientKeyData'] as string | undefined) || undefined;
    if (!token && !cert && !key) throw bad("exec plugin didn't return a token or cert/key pair");
    if (Boolean(cert) !== Boolean(key)) throw bad('exec plugin returned only certificate or key, not both');
    let expiresAt: number | undefined;
    const exp = s['expirationTimestamp'] as string | undefined;
    if (exp) {
      expiresAt = Date.parse(exp);
      if (Number.isNaN(expiresAt)) throw bad('status.expirationTimestamp is not an RFC 3339 time');
    }
    const credentials: Credentials = {};
    if (token) credentials.token = token;
    if (cert) credentials.clientCertificateData = cert;
    if (key) credentials.clientKeyData = key;
    protectSecrets(
      credentials,
      (c) => ({
        ...(c.token !== undefined ? { token: REDACTED } : {}),
        ...(c.clientCertificateData !== undefined ? { clientCertificateData: 'DATA+OMITTED' } : {}),
        ...(c.clientKeyData !== undefined ? { clientKeyData: REDACTED } : {}),
      }),
      'Credentials',
    );
    return { credentials: Object.freeze(credentials), expiresAt };
  }
}

// Providers shared process-wide (exec.go's globalCache), per clock so tests on fake clocks stay apart.
const providerCache = new WeakMap<Clock, Map<string, ExecCredentialProvider>>();

/**
 * The process-wide provider for a plugin configuration and cluster (exec.GetAuthenticator): the
 * same `exec` stanza and cluster (the cluster counts only with `provideClusterInfo`, as upstream
 * keys it) give the same provider, hence one plugin run and one cached credential for all clients.
 * A provider given its own `env` or `stdinIsTTY` is shared only with callers giving the same ones.
 *
 * @example
 * const a = execCredentialProviderFor({ exec });
 * a === execCredentialProviderFor({ exec }); // true
 */
export function execCredentialProviderFor(options: ExecCredentialProviderOptions): ExecCredentialProvider {
  const clock = options.clock ?? realClock;
  // Built field by field: printing the config redacts arguments and env values (protectSecrets),
  // and configs differing only there must not share a provider.
  const e = options.exec;
  const c = e.provideClusterInfo === true ? options.cluster : undefined;
  const key = JSON.stringify([
    e.command,
    [...(e.args ?? [])],
    (e.env ?? []).map((v) => [v.name, v.value]),
    e.apiVersion,
    e.installHint ?? '',
    e.provideClusterInfo === true,
    e.interactiveMode ?? '',
    c === undefined ? null : [c.server, c.tlsServerName ?? '', c.insecureSkipTlsVerify === true, c.certificateAuthorityData ?? '', c.proxyUrl ?? '', c.disableCompression === true, JSON.stringify(c.config ?? null)],
    options.env === undefined ? null : Object.entries(options.env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    options.stdinIsTTY ?? null,
  ]);
  let byKey = providerCache.get(clock);
  if (byKey === undefined) {
    byKey = new Map();
    providerCache.set(clock, byKey);
  }
  let provider = byKey.get(key);
  if (provider === undefined) {
    provider = new ExecCredentialProvider(options);
    byKey.set(key, provider);
  }
  return provider;
}
