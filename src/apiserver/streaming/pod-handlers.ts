/**
 * What stands in for the kubelet behind the embedded API server's streaming subresources: handlers a
 * test (or `kubeloom apiserver --pod-handlers <module>`) supplies per pod. A container handler is a
 * function that receives the command and the session's streams and returns the exit code; a port is
 * a TCP address the forwarded connection is dialled to, or a function that serves the connection.
 */
import { resolve } from 'node:path';
import type { Duplex, Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';

/** A terminal size in character cells. */
export interface TerminalSize {
  /** Columns. */
  width: number;
  /** Rows. */
  height: number;
}

/** One exec or attach session as a container handler sees it. */
export interface ExecSession {
  /** The pod's namespace. */
  namespace: string;
  /** The pod's name. */
  pod: string;
  /** The container's name. */
  container: string;
  /** The command for exec; empty for attach. */
  command: string[];
  /** Whether this is an attach (to the container's main process) rather than an exec. */
  attach: boolean;
  /** Whether the client asked for a terminal. */
  tty: boolean;
  /** The client's stdin, when requested; ends when the client closes it (v5) or disconnects. */
  stdin?: Readable;
  /** To the client's stdout, when requested. Respect backpressure (`write()` returning false). */
  stdout?: Writable;
  /** To the client's stderr, when requested (never with a TTY). */
  stderr?: Writable;
  /** Terminal sizes the client sends (TTY sessions); ends with the session. */
  resize: AsyncIterable<TerminalSize>;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
}

/**
 * Runs a command (or serves an attach): resolves with the exit code (0 or nothing for success);
 * throwing ends the session with a 500 InternalError Status, as a failing container runtime does.
 */
export type ContainerHandler = (session: ExecSession) => number | undefined | void | Promise<number | undefined | void>;

/** Where a forwarded connection to a pod port goes: a TCP address, or a function serving the connection itself. */
export type PortTarget =
  | {
      /** Host to dial (default `127.0.0.1`). */
      host?: string;
      /** Port to dial. */
      port: number;
    }
  | ((connection: Duplex) => void);

/** The handlers of one pod. */
export interface PodHandler {
  /** Container handlers by container name; `'*'` serves every container of the pod. */
  containers?: Record<string, ContainerHandler>;
  /** Port targets by pod port; `'*'` serves every port. */
  ports?: {
    [port: number]: PortTarget;
    /** Serves every port without its own entry. */
    '*'?: PortTarget;
  };
}

/**
 * The handlers of every pod: a record keyed `"<namespace>/<pod>"`, `"<pod>"` (any namespace) or
 * `"*"` (every pod), or a function returning a pod's handler. The default export of a
 * `--pod-handlers` module has this type.
 *
 * @example
 * export default {
 *   'default/web': {
 *     containers: { app: async ({ command, stdout }) => { stdout?.end(command.join(' ') + '\n'); return 0; } },
 *     ports: { 8080: { host: '127.0.0.1', port: 3000 } },
 *   },
 * } satisfies PodHandlers;
 */
export type PodHandlers = Record<string, PodHandler> | ((namespace: string, pod: string) => PodHandler | undefined);

/** The handler for one pod from a {@link PodHandlers}, most specific key first. */
export function podHandlerFor(handlers: PodHandlers | undefined, namespace: string, pod: string): PodHandler | undefined {
  if (handlers === undefined) return undefined;
  if (typeof handlers === 'function') return handlers(namespace, pod);
  return handlers[`${namespace}/${pod}`] ?? handlers[pod] ?? handlers['*'];
}

/** The container handler of a pod handler. */
export function containerHandlerFor(handler: PodHandler | undefined, container: string): ContainerHandler | undefined {
  const c = handler?.containers;
  if (c === undefined) return undefined;
  return Object.hasOwn(c, container) ? c[container] : c['*'];
}

/** The target of a pod port. */
export function portTargetFor(handler: PodHandler | undefined, port: number): PortTarget | undefined {
  const p = handler?.ports;
  if (p === undefined) return undefined;
  return Object.hasOwn(p, port) ? p[port] : p['*'];
}

/**
 * Loads the {@link PodHandlers} a module exports by default (`kubeloom apiserver --pod-handlers`).
 * Throws when the module has no default export of the right shape.
 */
export async function loadPodHandlers(path: string): Promise<PodHandlers> {
  const mod = (await import(pathToFileURL(resolve(path)).href)) as { default?: unknown };
  const handlers = mod.default;
  if (typeof handlers === 'function') return handlers as PodHandlers;
  if (handlers === null || typeof handlers !== 'object') throw new TypeError('the module must export PodHandlers (an object or a function) as its default export');
  for (const [key, h] of Object.entries(handlers)) {
    if (h === null || typeof h !== 'object') throw new TypeError(`handler "${key}" is not an object with containers and/or ports`);
  }
  return handlers as PodHandlers;
}
