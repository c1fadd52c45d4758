/**
 * A loopback TCP forwarder that can stop listening (connections refused, as while a kube-apiserver
 * restarts) and listen again on the same port. Shared by test/informer-recovery.test.ts and
 * bench/informer-recovery.ts, which both take a server away and bring it back under a live client.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

/** Forwards every connection accepted on 127.0.0.1:{@link TcpForwarder.port} to a target address. */
export class TcpForwarder {
  /** The port listened on: 0 until the first {@link TcpForwarder.listen}, then kept across close/listen. */
  port = 0;
  #server: Server | undefined;
  readonly #sockets = new Set<Socket>();
  readonly #target: { host: string; port: number };

  /** @param target where each accepted connection is forwarded to. */
  constructor(target: { host: string; port: number }) {
    this.#target = target;
  }

  /** Whether it is listening now. */
  get up(): boolean {
    return this.#server !== undefined;
  }

  /** Listens (again) on {@link TcpForwarder.port}, or on a free port the first time. */
  async listen(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.#target);
      for (const s of [client, upstream]) {
        this.#sockets.add(s);
        s.on('close', () => this.#sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', () => resolve()));
    this.port = (server.address() as { port: number }).port;
    this.#server = server;
  }

  /** Stops listening and destroys every forwarded connection; later connects are refused. */
  async close(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (server === undefined) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const s of this.#sockets) s.destroy();
    await closed;
  }
}
