/**
 * Exec and attach (client-go `tools/remotecommand`: `remotecommand.go`, `websocket.go`, `v4.go`,
 * `v5.go`): runs a command in a container, or attaches to its main process, over a WebSocket to the
 * API server speaking `v5.channel.k8s.io` (or `v4.channel.k8s.io` when the server only has that),
 * with the caller's Node streams for stdin, stdout and stderr, an optional TTY with resizing, and the
 * command's outcome read from the error channel's Status.
 *
 * SPDY (the protocol before WebSockets, the only one before kube-apiserver 1.29/1.30 translated
 * WebSocket streams) is not spoken: see docs/remotecommand.md.
 */
import type { Readable, Writable } from 'node:stream';
import type { Status } from '../../api/meta/v1.ts';
import { StatusError } from '../../apimachinery/errors.ts';
import type { RestClient } from '../../rest/client.ts';
import { resourcePath, type RestRequest } from '../../rest/request.ts';
import { dialWebSocket } from '../../rest/websocket.ts';
import { ChannelConnection } from '../../util/httpstream/wsstream.ts';
import { startHeartbeat, type HeartbeatOptions } from '../../util/httpstream/heartbeat.ts';
import { ExitCodeCauseType, NonZeroExitCodeReason, StreamChannel, StreamProtocolV5Name, defaultStreamProtocols } from './constants.ts';
import { NonZeroExitCodeError, StreamProtocolError } from './errors.ts';
import { encodeTerminalSize, type TerminalSize, type TerminalSizeQueue } from './resize.ts';

/** The streams of a remote command session (remotecommand.StreamOptions). Omitted streams are not requested. */
export interface StreamOptions {
  /** Sent to the process's stdin; its end closes stdin remotely (v5 only: v4 cannot half-close). */
  stdin?: Readable;
  /** Receives the process's stdout. Not ended by the session. */
  stdout?: Writable;
  /** Receives the process's stderr. Not requested with `tty` (a terminal merges it into stdout). */
  stderr?: Writable;
  /** Allocate a terminal. */
  tty?: boolean;
  /** The terminal's size at start (sent before anything else; needs `tty`). */
  terminalSize?: TerminalSize;
  /** Later sizes (needs `tty`). Reading stops when the session ends. */
  terminalSizeQueue?: TerminalSizeQueue;
  /** Aborting ends the session at once; the call rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Subprotocols to offer, most preferred first (default v5.channel.k8s.io, v4.channel.k8s.io). */
  protocols?: readonly string[];
  /**
   * Ping/pong liveness of the connection (default: a ping every 5 s, dropped after 61 s of silence,
   * as client-go); `false` turns it off.
   */
  heartbeat?: HeartbeatOptions | false;
}

/** Options of {@link exec}. */
export interface ExecOptions extends StreamOptions {
  /** The pod's namespace. */
  namespace: string;
  /** The pod's name. */
  pod: string;
  /** The container; may be omitted when the pod has exactly one. */
  container?: string;
  /** The command and its arguments (not run through a shell). */
  command: readonly string[];
}

/** Options of {@link attach}. */
export interface AttachOptions extends StreamOptions {
  /** The pod's namespace. */
  namespace: string;
  /** The pod's name. */
  pod: string;
  /** The container (default: the pod's only or default container). */
  container?: string;
}

function streamQuery(options: StreamOptions, extra: Array<[string, string]>): Array<[string, string]> {
  const q: Array<[string, string]> = [...extra];
  const tty = options.tty === true;
  if (options.stderr !== undefined && !tty) q.push(['stderr', 'true']);
  if (options.stdin !== undefined) q.push(['stdin', 'true']);
  if (options.stdout !== undefined) q.push(['stdout', 'true']);
  if (tty) q.push(['tty', 'true']);
  // url.Values.Encode sorts by key and keeps the order of repeated keys.
  return q.map((e, i) => [e, i] as const).sort((a, b) => (a[0][0] < b[0][0] ? -1 : a[0][0] > b[0][0] ? 1 : a[1] - b[1])).map(([e]) => e);
}

/** The exec request as data: POST .../pods/{pod}/exec?command=...&container=...&stdin=true... */
export function buildExec(options: ExecOptions): RestRequest {
  const extra: Array<[string, string]> = options.command.map((c) => ['command', c]);
  if (options.container !== undefined && options.container !== '') extra.push(['container', options.container]);
  return { verb: 'POST', path: resourcePath({ group: '', version: 'v1', namespace: options.namespace, resource: 'pods', name: options.pod, subresource: 'exec' }), query: streamQuery(options, extra), headers: {} };
}

/** The attach request as data: POST .../pods/{pod}/attach?container=...&stdin=true... */
export function buildAttach(options: AttachOptions): RestRequest {
  const extra: Array<[string, string]> = [];
  if (options.container !== undefined && options.container !== '') extra.push(['container', options.container]);
  return { verb: 'POST', path: resourcePath({ group: '', version: 'v1', namespace: options.namespace, resource: 'pods', name: options.pod, subresource: 'attach' }), query: streamQuery(options, extra), headers: {} };
}

/**
 * Decodes the error channel as client-go's v4 error decoder: nothing or a Success Status is success;
 * NonZeroExitCode with an ExitCode cause becomes {@link NonZeroExitCodeError}; any other Failure is a
 * StatusError; anything else a {@link StreamProtocolError}.
 */
export function decodeErrorChannel(message: Buffer): Error | undefined {
  if (message.length === 0) return undefined;
  let status: Status;
  try {
    status = JSON.parse(message.toString('utf8')) as Status;
  } catch (err) {
    return new StreamProtocolError(`error stream could not be decoded: ${JSON.stringify(message.toString('utf8').slice(0, 200))}`, { cause: err });
  }
  if (typeof status !== 'object' || status === null) return new StreamProtocolError('error stream did not carry a Status');
  if (status.status === 'Success') return undefined;
  if (status.status !== 'Failure') return new StreamProtocolError('unknown error');
  if (status.reason === NonZeroExitCodeReason) {
    const causes = status.details?.causes;
    if (causes === undefined) return new StreamProtocolError('details must be set');
    for (const c of causes) {
      if (c.reason !== ExitCodeCauseType) continue;
      const rc = Number(c.message);
      if (!/^\d+$/.test(c.message ?? '') || rc > 255) return new StreamProtocolError(`invalid exit code value ${JSON.stringify(c.message)}`);
      return new NonZeroExitCodeError(rc, status);
    }
    return new StreamProtocolError(`no ${ExitCodeCauseType} cause given`);
  }
  return new StatusError({ ...status, code: status.code ?? 500 });
}

function drained(r: Readable): Promise<void> {
  return new Promise((resolve, reject) => {
    if (r.readableEnded) {
      resolve();
      return;
    }
    r.once('end', resolve);
    r.once('error', reject);
    r.once('close', () => (r.readableEnded ? resolve() : reject(r.errored ?? new Error('stream closed before its end'))));
  });
}

async function readWhole(r: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of r) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Runs one remote command session on `req` (an exec or attach request). Resolves when the command
 * ended successfully and its output was delivered; rejects with {@link NonZeroExitCodeError} for a
 * non-zero exit, a StatusError for other failures, an UpgradeFailureError when the server refused
 * the connection (`cause` holding its Status), a StreamClosedError when the connection broke, or
 * the signal's reason when aborted.
 */
export async function streamRemoteCommand(client: RestClient, req: RestRequest, options: StreamOptions): Promise<void> {
  const { signal } = options;
  const { socket, protocol } = await dialWebSocket(client, req, { protocols: options.protocols ?? defaultStreamProtocols, ...(signal === undefined ? {} : { signal }) });
  const conn = new ChannelConnection(socket, { closeSignal: protocol === StreamProtocolV5Name });
  const stopHeartbeat = options.heartbeat === false ? () => undefined : startHeartbeat(socket, options.heartbeat);
  const tty = options.tty === true;
  const work: Array<Promise<unknown>> = [];
  let finished = false;

  const status = readWhole(conn.readable(StreamChannel.error));
  const outputs: Array<Promise<void>> = [];
  // A destination that fails ends the session: its data could no longer be delivered.
  let failOutput: (err: unknown) => void = () => undefined;
  const outputFailed = new Promise<never>((_resolve, reject) => {
    failOutput = reject;
  });
  outputFailed.catch(() => undefined);
  const forward = (channel: number, to: Writable | undefined): void => {
    if (to === undefined) return;
    const r = conn.readable(channel);
    r.pipe(to, { end: false });
    const onError = (err: unknown): void => {
      conn.destroy();
      failOutput(err);
    };
    to.once('error', onError);
    outputs.push(drained(r).finally(() => to.off('error', onError)));
  };
  forward(StreamChannel.stdout, options.stdout);
  if (!tty) forward(StreamChannel.stderr, options.stderr);

  const stdin = options.stdin;
  const stdinWriter = stdin === undefined ? undefined : conn.writable(StreamChannel.stdin);
  if (stdin !== undefined && stdinWriter !== undefined) {
    stdinWriter.on('error', () => undefined);
    stdin.pipe(stdinWriter);
  }

  if (tty) {
    if (options.terminalSize !== undefined) work.push(conn.sendMessage(StreamChannel.resize, encodeTerminalSize(options.terminalSize)).catch(() => undefined));
    const queue = options.terminalSizeQueue;
    if (queue !== undefined) {
      work.push(
        (async () => {
          for (;;) {
            const size = await queue.next();
            if (size === undefined || finished) return;
            await conn.sendMessage(StreamChannel.resize, encodeTerminalSize(size));
          }
        })().catch(() => undefined),
      );
    }
  }

  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    if (signal === undefined) return;
    onAbort = () => {
      conn.destroy(signal.reason instanceof Error ? signal.reason : undefined);
      reject(signal.reason);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => undefined);

  try {
    const [message] = await Promise.race([Promise.all([status, ...outputs]), aborted, outputFailed]);
    const err = decodeErrorChannel(message);
    if (err !== undefined) throw err;
  } finally {
    finished = true;
    stopHeartbeat();
    if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
    if (stdin !== undefined && stdinWriter !== undefined) stdin.unpipe(stdinWriter);
    conn.close();
  }
}

/**
 * Runs `command` in a container of a pod (`kubectl exec`). See {@link streamRemoteCommand} for
 * the outcome.
 *
 * @example
 * await exec(client, { namespace: 'default', pod: 'web', command: ['ls', '/'], stdout: process.stdout, stderr: process.stderr });
 */
export function exec(client: RestClient, options: ExecOptions): Promise<void> {
  return streamRemoteCommand(client, buildExec(options), options);
}

/** Attaches to the main process of a container (`kubectl attach`). See {@link streamRemoteCommand}. */
export function attach(client: RestClient, options: AttachOptions): Promise<void> {
  return streamRemoteCommand(client, buildAttach(options), options);
}
