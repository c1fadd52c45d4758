/**
 * The manager's HTTP servers (controller-runtime pkg/manager/server.go, pkg/metrics/server): a
 * {@link Runnable} in the `httpServers` group that listens on an address such as `127.0.0.1:8080` or
 * `:8081` (all interfaces), serves until the manager stops, then closes. `waitReady` resolves once it
 * listens, so `address()` is known (useful with port 0). With `tls` it serves HTTPS (the secure metrics
 * server of pkg/metrics/server/server.go).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { KubeloomError } from '../apimachinery/errors.ts';
import { RunnableGroup, type Runnable } from './runnable.ts';

/** A bind address that does not parse, or a server that could not listen. */
export class ServerError extends KubeloomError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_MANAGER_SERVER', message, options);
  }
}

/** A parsed bind address. */
export interface BindAddress {
  /** The host to listen on ('::' for an empty host: all interfaces). */
  host: string;
  /** The port (0: any free port). */
  port: number;
}

/** `host:port` (host may be empty or bracketed IPv6) → host and port. */
export function parseBindAddress(address: string): BindAddress {
  const i = address.lastIndexOf(':');
  if (i < 0) throw new ServerError(`bind address ${JSON.stringify(address)}: expected host:port`);
  let host = address.slice(0, i);
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  const port = Number(address.slice(i + 1));
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ServerError(`bind address ${JSON.stringify(address)}: bad port`);
  return { host: host === '' ? '::' : host, port };
}

/** A certificate and key (PEM) to serve HTTPS with. */
export interface ServingKeyPair {
  /** The certificate chain (PEM). */
  cert: string;
  /** The private key (PEM). */
  key: string;
}

/** Options of {@link HttpServerRunnable}. */
export interface HttpServerOptions {
  /** Serve HTTPS with the key pair this resolves to, asked for once when the server starts (default: plain HTTP). */
  tls?: () => Promise<ServingKeyPair>;
}

/** An HTTP server run by the manager (manager.Server). */
export class HttpServerRunnable implements Runnable {
  /** Runs in the httpServers group. */
  readonly runnableGroup = RunnableGroup.HttpServers;
  /** For messages: "metrics", "health probe". */
  readonly name: string;
  readonly #bind: string;
  readonly #handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  #listening: Promise<void> | undefined;
  #resolveListening!: () => void;
  #address: string | undefined;
  readonly #tls: HttpServerOptions['tls'];

  constructor(name: string, bindAddress: string, handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>, options: HttpServerOptions = {}) {
    this.name = name;
    this.#tls = options.tls;
    this.#bind = bindAddress;
    this.#handler = handler;
    this.#listening = new Promise((r) => (this.#resolveListening = r));
  }

  /** Not leader-only: probes and metrics answer on every replica. */
  needLeaderElection(): boolean {
    return false;
  }

  /** `host:port` it listens on, once listening. */
  address(): string | undefined {
    return this.#address;
  }

  async waitReady(signal: AbortSignal): Promise<boolean> {
    await Promise.race([this.#listening, new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }))]);
    return this.#address !== undefined;
  }

  async start(signal: AbortSignal): Promise<void> {
    const { host, port } = parseBindAddress(this.#bind);
    const serve = (req: IncomingMessage, res: ServerResponse): void => {
      this.#handler(req, res).catch((err: unknown) => {
        res.statusCode = 500;
        res.end(String(err));
      });
    };
    const server = this.#tls === undefined ? createServer(serve) : createHttpsServer(await this.#tls(), serve);
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err) => reject(new ServerError(`${this.name} server could not listen on ${this.#bind}: ${err.message}`, { cause: err })));
      server.listen(port, host, () => resolve());
    });
    const a = server.address() as AddressInfo;
    this.#address = a.family === 'IPv6' ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`;
    this.#resolveListening();
    if (!signal.aborted) await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
}
