/**
 * Errors raised while loading kubeconfigs and obtaining credentials.
 *
 * Messages name the file and the field at fault and never contain secret values: tokens, passwords,
 * keys, exec arguments, exec output and YAML snippets (which could contain any of those) are left out.
 */
import { KubeloomError } from '../apimachinery/errors.ts';

/** One problem found in a kubeconfig: which file, which field (YAML path), what is wrong. */
export interface ConfigProblem {
  /** The kubeconfig file, when known. */
  file?: string;
  /** YAML path of the offending field, e.g. `users["alice"].user.exec.command`. */
  field: string;
  /** What is wrong, without the field's value when the value could be secret. */
  message: string;
}

function describeProblem(p: ConfigProblem): string {
  return `${p.file !== undefined ? `${p.file}: ` : ''}${p.field}: ${p.message}`;
}

/** A kubeconfig is not valid YAML. `line`/`column` are 1-based. */
export class KubeConfigParseError extends KubeloomError {
  /** The file that failed to parse. */
  readonly file: string;
  /** 1-based line of the error, when known. */
  readonly line: number | undefined;
  /** 1-based column of the error, when known. */
  readonly column: number | undefined;
  constructor(file: string, reason: string, line?: number, column?: number) {
    const where = line !== undefined ? `:${line}${column !== undefined ? `:${column}` : ''}` : '';
    super('ERR_KUBECONFIG_PARSE', `error loading config file ${file}${where}: ${reason}`);
    this.file = file;
    this.line = line;
    this.column = column;
  }
}

/**
 * A kubeconfig is well-formed YAML but not a usable configuration (clientcmd's errConfigurationInvalid):
 * a field of the wrong type, a context naming a missing cluster, a cluster without a server, …
 * All problems found are reported together.
 */
export class InvalidKubeConfigError extends KubeloomError {
  /** Every problem found. */
  readonly problems: readonly ConfigProblem[];
  constructor(problems: readonly ConfigProblem[]) {
    const lines = problems.map(describeProblem);
    super(
      'ERR_KUBECONFIG_INVALID',
      lines.length === 1 ? `invalid configuration: ${lines[0]}` : `invalid configuration:\n  - ${lines.join('\n  - ')}`,
    );
    this.problems = problems;
  }

  /** The file of the first problem (convenience for the common single-problem case). */
  get file(): string | undefined {
    return this.problems[0]?.file;
  }

  /** The field of the first problem. */
  get field(): string | undefined {
    return this.problems[0]?.field;
  }
}

/** A file named by a kubeconfig (or the kubeconfig itself) could not be read. */
export class KubeConfigReadError extends KubeloomError {
  /** The file that could not be read. */
  readonly file: string;
  /** The kubeconfig field naming the file, when the file is referenced from one. */
  readonly field: string | undefined;
  constructor(file: string, field: string | undefined, cause: unknown, referencedFrom?: string) {
    const reason = (cause as { code?: unknown } | null)?.code;
    const via = field !== undefined ? ` (${referencedFrom !== undefined ? `${referencedFrom}: ` : ''}${field})` : '';
    super('ERR_KUBECONFIG_READ', `unable to read ${file}${via}: ${typeof reason === 'string' ? reason : String(cause)}`, { cause });
    this.file = file;
    this.field = field;
  }
}

/**
 * No configuration was found anywhere: no explicit path, no KUBECONFIG file, no ~/.kube/config and not
 * running in a cluster (clientcmd.ErrEmptyConfig). Callers may use it to fall back to something else,
 * such as an embedded API server.
 */
export class NoConfigurationError extends KubeloomError {
  /** The places that were looked at, in order. */
  readonly searched: readonly string[];
  constructor(searched: readonly string[]) {
    super(
      'ERR_NO_CONFIGURATION',
      `no configuration has been provided: looked at ${searched.length > 0 ? searched.join(', ') : 'nothing'}; ` +
        'set KUBECONFIG, create ~/.kube/config or run inside a cluster',
    );
    this.searched = searched;
  }
}

/** The in-cluster environment is missing (rest.ErrNotInCluster). */
export class NotInClusterError extends KubeloomError {
  constructor() {
    super(
      'ERR_NOT_IN_CLUSTER',
      'unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined',
    );
  }
}

/** A user uses a legacy `auth-provider` (gcp, azure, oidc), which kubeloom does not implement. */
export class UnsupportedAuthProviderError extends KubeloomError {
  /** The provider's name, e.g. `gcp`. */
  readonly provider: string;
  constructor(provider: string, user: string, file?: string) {
    super(
      'ERR_AUTH_PROVIDER_UNSUPPORTED',
      `${file !== undefined ? `${file}: ` : ''}users["${user}"].user.auth-provider: the "${provider}" auth provider is not supported; ` +
        'use an exec credential plugin instead (client.authentication.k8s.io/v1, e.g. gke-gcloud-auth-plugin, kubelogin)',
    );
    this.provider = provider;
  }
}

/** Base class of exec credential plugin failures. `command` is the plugin path (never its arguments). */
export class ExecPluginError extends KubeloomError {
  /** The plugin executable. */
  readonly command: string;
  constructor(code: string, command: string, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.command = command;
  }
}

/** The plugin's executable was not found (or is not executable); the message carries the installHint. */
export class ExecPluginNotFoundError extends ExecPluginError {
  constructor(command: string, installHint: string | undefined, reason: string) {
    super(
      'ERR_EXEC_PLUGIN_NOT_FOUND',
      command,
      `exec: executable ${command} not found (${reason})${installHint ? `\n\n${installHint}` : ''}`,
    );
  }
}

/** The plugin exited unsuccessfully. `stderr` is truncated and scrubbed of anything that looks secret. */
export class ExecPluginFailedError extends ExecPluginError {
  /** Its exit code, or null when a signal ended it. */
  readonly exitCode: number | null;
  /** The signal that ended it, or null. */
  readonly signal: string | null;
  /** What it wrote to stderr (truncated). */
  readonly stderr: string;
  constructor(command: string, exitCode: number | null, signal: string | null, stderr: string) {
    const how =
      exitCode !== null ? `failed with exit code ${exitCode}` : signal !== null ? `was terminated by signal ${signal}` : 'could not be started';
    super('ERR_EXEC_PLUGIN_FAILED', command, `exec: executable ${command} ${how}${stderr ? `: ${stderr}` : ''}`);
    this.exitCode = exitCode;
    this.signal = signal;
    this.stderr = stderr;
  }
}

/** The plugin's output is not a valid ExecCredential (its content is never quoted). */
export class ExecPluginOutputError extends ExecPluginError {
  constructor(command: string, reason: string) {
    super('ERR_EXEC_PLUGIN_OUTPUT', command, `exec plugin ${command}: ${reason}`);
  }
}

/** The plugin needs a terminal (interactiveMode Always) but standard input is not one. */
export class ExecPluginInteractiveError extends ExecPluginError {
  constructor(command: string) {
    super(
      'ERR_EXEC_PLUGIN_INTERACTIVE',
      command,
      `exec plugin ${command} cannot support interactive mode: standard input is not a terminal`,
    );
  }
}
