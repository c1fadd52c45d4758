/**
 * Errors of remote commands: a command's non-zero exit (client-go's `exec.CodeExitError` built by
 * `tools/remotecommand/v4.go`'s error decoder) and a status channel that breaks the protocol.
 */
import type { Status } from '../../api/meta/v1.ts';
import { KubeloomError } from '../../apimachinery/errors.ts';

/** The command ran and exited with a non-zero code. */
export class NonZeroExitCodeError extends KubeloomError {
  /** The command's exit code (1-255). */
  readonly exitCode: number;
  /** The Status the server sent on the error channel. */
  readonly status: Status;
  constructor(exitCode: number, status: Status) {
    super('ERR_KUBE_NON_ZERO_EXIT_CODE', `command terminated with exit code ${exitCode}`);
    this.exitCode = exitCode;
    this.status = status;
  }
}

/** The error channel carried something that is not a valid Status (client-go: "error stream protocol error"). */
export class StreamProtocolError extends KubeloomError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_KUBE_STREAM_PROTOCOL', `error stream protocol error: ${message}`, options);
  }
}
