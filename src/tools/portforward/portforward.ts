/**
 * Port forwarding (client-go `tools/portforward/portforward.go` with `tunneling_dialer.go` and
 * `tunneling_connection.go`): local TCP listeners whose connections are carried to a pod's ports
 * over one SPDY/3.1 connection tunnelled in a WebSocket (`SPDY/3.1+portforward.k8s.io`, served by
 * kube-apiserver since 1.30; see docs/remotecommand.md for older clusters). Every accepted local
 * connection gets its own pair of SPDY streams sharing a `requestID`: an error stream (half-closed at
 * once; the server writes a failure there) and a data stream.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { createWebSocketStream } from 'ws';
import { KubeloomError } from '../../apimachinery/errors.ts';
import type { RestClient } from '../../rest/client.ts';
import { resourcePath, type RestRequest } from '../../rest/request.ts';
import { dialWebSocket } from '../../rest/websocket.ts';
import { SpdyConnection, type SpdyStream } from '../../util/httpstream/spdy/connection.ts';
import { startHeartbeat, type HeartbeatOptions } from '../../util/httpstream/heartbeat.ts';

/** The port-forward stream protocol (portforward.PortForwardProtocolV1Name). */
export const PortForwardProtocolV1Name = 'portforward.k8s.io';
/** The WebSocket subprotocol tunnelling SPDY (the `SPDY/3.1+` prefix names the tunnelled protocol). */
export const PortForwardTunnelProtocol = `SPDY/3.1+${PortForwardProtocolV1Name}`;

/** A port-forward could not be set up (bad port spec, no listener could be opened). */
export class PortForwardError extends KubeloomError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_KUBE_PORT_FORWARD', message, options);
  }
}

/** One forwarded connection failed; the server's message is in `message` (reported through `onError`). */
export class ForwardedConnectionError extends KubeloomError {
  /** The local port of the failed connection. */
  readonly localPort: number;
  /** The pod port it was forwarded to. */
  readonly remotePort: number;
  constructor(localPort: number, remotePort: number, message: string, options?: { cause?: unknown }) {
    super('ERR_KUBE_PORT_FORWARD_CONNECTION', `an error occurred forwarding ${localPort} -> ${remotePort}: ${message}`, options);
    this.localPort = localPort;
    this.remotePort = remotePort;
  }
}

/** The connection to the server ended while forwarding (kubectl's "lost connection to pod"). */
export class LostConnectionError extends KubeloomError {
  constructor(options?: { cause?: unknown }) {
    super('ERR_KUBE_PORT_FORWARD_LOST', 'lost connection to pod', options);
  }
}

/** A local port forwarded to a remote one (portforward.ForwardedPort). */
export interface ForwardedPort {
  /** The local port (after listening: the one chosen for 0). */
  local: number;
  /** The pod port. */
  remote: number;
}

/** Options of {@link portForward}. */
export interface PortForwardOptions {
  /** The pod's namespace. */
  namespace: string;
  /** The pod's name. */
  pod: string;
  /**
   * Ports as kubectl takes them: `"8080:80"` (local:remote), `"80"` (same port) or `":80"` (any free
   * local port), or as `{ local, remote }` objects (local 0 = any free port).
   */
  ports: ReadonlyArray<string | ForwardedPort>;
  /** Local addresses to listen on (default `['localhost']`: 127.0.0.1 and ::1, as kubectl). */
  addresses?: readonly string[];
  /** Aborting closes the forward, as {@link PortForwarder.close}. */
  signal?: AbortSignal;
  /** Called for each forwarded connection that failed (default: ignore). */
  onError?: (err: ForwardedConnectionError) => void;
  /** WebSocket ping/pong liveness (default: every 5 s, dropped after 61 s of silence); `false` turns it off. */
  heartbeat?: HeartbeatOptions | false;
}

/** Parses one kubectl-style port spec (parsePorts upstream). */
export function parsePortSpec(spec: string | ForwardedPort): ForwardedPort {
  if (typeof spec !== 'string') {
    if (!Number.isInteger(spec.local) || spec.local < 0 || spec.local > 65535) throw new PortForwardError(`invalid local port ${spec.local}`);
    if (!Number.isInteger(spec.remote) || spec.remote < 1 || spec.remote > 65535) throw new PortForwardError(`invalid remote port ${spec.remote}`);
    return { local: spec.local, remote: spec.remote };
  }
  const parts = spec.split(':');
  if (parts.length > 2) throw new PortForwardError(`invalid port format '${spec}'`);
  const [localText, remoteText] = parts.length === 1 ? [parts[0]!, parts[0]!] : [parts[0]!, parts[1]!];
  const parse = (text: string, what: string, min: number): number => {
    if (!/^\d+$/.test(text)) throw new PortForwardError(`error parsing ${what} port '${text}'`);
    const n = Number(text);
    if (n < min || n > 65535) throw new PortForwardError(`${what} port ${text} out of range`);
    return n;
  };
  const remote = parse(remoteText, 'remote', 1);
  if (remote === 0) throw new PortForwardError("remote port must be > 0");
  const local = localText === '' ? 0 : parse(localText, 'local', 0);
  return { local, remote };
}

function listenAddresses(addresses: readonly string[]): string[] {
  const out: string[] = [];
  for (const a of addresses) {
    if (a === 'localhost') out.push('127.0.0.1', '::1');
    else out.push(a);
  }
  return [...new Set(out)];
}

/** The port-forward request as data: GET .../pods/{pod}/portforward. */
export function buildPortForward(namespace: string, pod: string): RestRequest {
  return { verb: 'GET', path: resourcePath({ group: '', version: 'v1', namespace, resource: 'pods', name: pod, subresource: 'portforward' }), query: [], headers: {} };
}

/**
 * A running port-forward. `ready` resolves once every local port listens; `done` settles when the
 * forward ends — resolved after {@link PortForwarder.close}, rejected with {@link LostConnectionError}
 * when the server connection drops.
 */
export class PortForwarder {
  /** Resolves with the ports once every local port listens. */
  readonly ready: Promise<ForwardedPort[]>;
  /** Settles when the forward ends: resolved after close, rejected with LostConnectionError when the connection drops. */
  readonly done: Promise<void>;
  readonly #client: RestClient;
  readonly #options: PortForwardOptions;
  readonly #servers: Server[] = [];
  readonly #sockets = new Set<Socket>();
  #conn: SpdyConnection | undefined;
  #ports: ForwardedPort[] = [];
  #nextRequestId = 0;
  #closing = false;
  #settle!: (err?: Error) => void;

  /** Starts forwarding; see {@link portForward}. */
  constructor(client: RestClient, options: PortForwardOptions) {
    this.#client = client;
    this.#options = options;
    this.done = new Promise<void>((resolve, reject) => {
      this.#settle = (err) => (err === undefined ? resolve() : reject(err));
    });
    this.done.catch(() => undefined);
    this.ready = this.#start();
    this.ready.catch(() => undefined);
  }

  /** The forwarded ports with the local ports actually bound (after `ready`). */
  getPorts(): ForwardedPort[] {
    return this.#ports.map((p) => ({ ...p }));
  }

  /** Stops listening, closes every forwarded connection and the server connection. */
  async close(): Promise<void> {
    if (this.#closing) return this.done.catch(() => undefined);
    this.#closing = true;
    await this.ready.catch(() => undefined);
    await this.#teardown();
    this.#settle();
  }

  async #teardown(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    this.#sockets.clear();
    this.#conn?.close();
    await Promise.all(this.#servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }

  async #start(): Promise<ForwardedPort[]> {
    const { signal } = this.#options;
    const specs = this.#options.ports.map(parsePortSpec);
    if (specs.length === 0) throw new PortForwardError('at least 1 PORT is required for port-forward');
    const onAbort = (): void => void this.close();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const { socket } = await dialWebSocket(this.#client, buildPortForward(this.#options.namespace, this.#options.pod), {
        protocols: [PortForwardTunnelProtocol],
        ...(signal === undefined ? {} : { signal }),
      });
      if (this.#options.heartbeat !== false) startHeartbeat(socket, this.#options.heartbeat);
      const tunnel = createWebSocketStream(socket);
      tunnel.on('error', () => undefined);
      const conn = new SpdyConnection(tunnel, { server: false });
      this.#conn = conn;
      void conn.closed.then((err) => {
        if (this.#closing) return;
        this.#closing = true;
        void this.#teardown().then(() => this.#settle(new LostConnectionError(err === undefined ? undefined : { cause: err })));
      });
      const addresses = listenAddresses(this.#options.addresses ?? ['localhost']);
      for (const spec of specs) this.#ports.push(await this.#listen(spec, addresses));
      if (this.#closing) throw new PortForwardError('port-forward closed before it was ready');
      return this.getPorts();
    } catch (err) {
      this.#closing = true;
      await this.#teardown();
      this.#settle(err as Error);
      throw err;
    }
  }

  /** Listens on every address for one port; succeeds when at least one address could be bound, as kubectl. */
  async #listen(spec: ForwardedPort, addresses: readonly string[]): Promise<ForwardedPort> {
    let local = spec.local;
    const failures: string[] = [];
    for (const address of addresses) {
      // Half-open: a client that finished sending still receives the pod's answer.
      const server = createServer({ allowHalfOpen: true }, (socket) => this.#handleConnection(socket, local, spec.remote));
      try {
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(local, address, () => {
            server.off('error', reject);
            resolve();
          });
        });
      } catch (err) {
        failures.push(`${address}: ${(err as Error).message}`);
        continue;
      }
      const bound = server.address();
      if (local === 0 && bound !== null && typeof bound === 'object') local = bound.port;
      this.#servers.push(server);
    }
    if (failures.length === addresses.length) throw new PortForwardError(`unable to listen on port ${spec.local}: ${failures.join('; ')}`);
    return { local, remote: spec.remote };
  }

  #handleConnection(socket: Socket, local: number, remote: number): void {
    const conn = this.#conn;
    if (conn === undefined || this.#closing) {
      socket.destroy();
      return;
    }
    this.#sockets.add(socket);
    socket.once('close', () => this.#sockets.delete(socket));
    socket.on('error', () => undefined);
    const requestId = String(this.#nextRequestId++);
    const report = (message: string, cause?: unknown): void => {
      this.#options.onError?.(new ForwardedConnectionError(local, remote, message, cause === undefined ? undefined : { cause }));
    };
    void (async () => {
      let errorStream: SpdyStream;
      let dataStream: SpdyStream;
      try {
        errorStream = await conn.createStream({ streamtype: ['error'], port: [String(remote)], requestid: [requestId] });
        errorStream.end();
        dataStream = await conn.createStream({ streamtype: ['data'], port: [String(remote)], requestid: [requestId] });
      } catch (err) {
        report(`error creating forwarding stream: ${(err as Error).message}`, err);
        socket.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      errorStream.on('data', (c: Buffer) => chunks.push(c));
      errorStream.on('error', () => undefined);
      errorStream.once('end', () => {
        const message = Buffer.concat(chunks).toString('utf8');
        if (message !== '') {
          report(message);
          socket.destroy();
        }
      });
      dataStream.on('error', () => socket.destroy());
      if (socket.destroyed) {
        dataStream.end();
        return;
      }
      socket.pipe(dataStream);
      dataStream.pipe(socket);
      socket.once('close', () => {
        if (!dataStream.writableEnded) dataStream.end();
      });
    })();
  }
}

/**
 * Forwards local ports to a pod (`kubectl port-forward`).
 *
 * @example
 * const pf = portForward(client, { namespace: 'default', pod: 'web', ports: ['8080:80'] });
 * const [{ local }] = await pf.ready;
 * // ... connect to 127.0.0.1:local ...
 * await pf.close();
 */
export function portForward(client: RestClient, options: PortForwardOptions): PortForwarder {
  return new PortForwarder(client, options);
}
