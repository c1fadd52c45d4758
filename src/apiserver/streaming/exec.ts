/**
 * One exec or attach session over an accepted WebSocket (`v5.channel.k8s.io` or `v4.channel.k8s.io`),
 * served as the kubelet's `pkg/kubelet/cri/streaming/remotecommand/exec.go` serves it: the container
 * handler runs with the requested streams, then the error channel carries the outcome as a Status
 * (Success; Failure/NonZeroExitCode with an ExitCode cause; 500 InternalError when the handler threw)
 * and the connection closes normally.
 */
import type { Readable } from 'node:stream';
import type WebSocket from 'ws';
import type { Status } from '../../api/meta/v1.ts';
import { ChannelConnection } from '../../util/httpstream/wsstream.ts';
import { StreamChannel, StreamProtocolV5Name } from '../../tools/remotecommand/constants.ts';
import { decodeTerminalSize, type TerminalSize } from '../../tools/remotecommand/resize.ts';
import type { ContainerHandler, ExecSession } from './pod-handlers.ts';

/** What the request asked for (PodExecOptions / PodAttachOptions). */
export interface ExecRequest {
  namespace: string;
  pod: string;
  container: string;
  command: string[];
  attach: boolean;
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

/** Splits a resize channel's bytes into JSON documents (a stream of objects, as json.Decoder reads it). */
async function* terminalSizes(r: Readable): AsyncGenerator<TerminalSize, void, undefined> {
  let text = '';
  for await (const chunk of r) {
    text += (chunk as Buffer).toString('utf8');
    let depth = 0;
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c === '{') depth++;
      else if (c === '}' && depth > 0 && --depth === 0) {
        const size = decodeTerminalSize(text.slice(start, i + 1));
        if (size !== undefined) yield size;
        start = i + 1;
      }
    }
    text = text.slice(start);
  }
}

function exitStatus(code: number, command: readonly string[]): Status {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: command '${command.join(' ')}' exited with ${code}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(code) }] },
  };
}

function internalErrorStatus(message: string): Status {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `Internal error occurred: error executing command in container: ${message}`,
    reason: 'InternalError',
    details: { causes: [{ message: `error executing command in container: ${message}` }] },
    code: 500,
  };
}

function finished(w: NodeJS.WritableStream & { writableFinished?: boolean; destroyed?: boolean }): Promise<void> {
  return new Promise((resolve) => {
    if (w.writableFinished === true || w.destroyed === true) {
      resolve();
      return;
    }
    w.once('finish', () => resolve());
    w.once('close', () => resolve());
    w.once('error', () => resolve());
  });
}

/** Runs `handler` for one session on `socket`; never throws (failures go to the error channel). */
export async function serveExecSession(socket: WebSocket, protocol: string, req: ExecRequest, handler: ContainerHandler): Promise<void> {
  const conn = new ChannelConnection(socket, { closeSignal: protocol === StreamProtocolV5Name, sendCloseSignal: false });
  const controller = new AbortController();
  void conn.closed.then(() => controller.abort(new Error('the client closed the stream connection')));
  const stdout = req.stdout ? conn.writable(StreamChannel.stdout) : undefined;
  const stderr = req.stderr && !req.tty ? conn.writable(StreamChannel.stderr) : undefined;
  const stdin = req.stdin ? conn.readable(StreamChannel.stdin) : undefined;
  for (const w of [stdout, stderr]) w?.on('error', () => undefined);
  stdin?.on('error', () => undefined);
  const resize: AsyncIterable<TerminalSize> = req.tty ? terminalSizes(conn.readable(StreamChannel.resize)) : (async function* () {})();
  const session: ExecSession = {
    namespace: req.namespace,
    pod: req.pod,
    container: req.container,
    command: req.command,
    attach: req.attach,
    tty: req.tty,
    resize,
    signal: controller.signal,
    ...(stdin === undefined ? {} : { stdin }),
    ...(stdout === undefined ? {} : { stdout }),
    ...(stderr === undefined ? {} : { stderr }),
  };
  let status: Status;
  try {
    const code = (await handler(session)) ?? 0;
    status = code === 0 ? { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' } : exitStatus(code, req.command);
  } catch (err) {
    status = internalErrorStatus(err instanceof Error ? err.message : String(err));
  }
  if (controller.signal.aborted) return;
  try {
    // Output the handler left open is ended; everything written reaches the client before the status.
    for (const w of [stdout, stderr]) if (w !== undefined && !w.writableEnded) w.end();
    await Promise.all([stdout, stderr].filter((w) => w !== undefined).map((w) => finished(w)));
    await conn.sendMessage(StreamChannel.error, JSON.stringify(status));
    conn.close();
  } catch {
    conn.destroy();
  }
}
