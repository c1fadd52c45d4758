/**
 * A chaos TCP proxy for tests: sits on loopback between a client and a server (e.g. the embedded API
 * server) and breaks connections the way real networks do — resets, half-open stalls, latency, and
 * streams cut at an exact byte — so a client's reconnect, resume and timeout paths can be tested
 * without a real network.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { realClock, type Clock, type Timer } from '../util/clock/clock.ts';

/**
 * A fault applied to one proxied connection.
 * - `reset`: both sides are destroyed with a TCP RST.
 * - `stall`: half-open: the proxy keeps accepting bytes in both directions and delivers nothing, and
 *   never closes the connection (a peer gone without a FIN, a black-holing middlebox). Final: a
 *   stalled connection only ever ends by a `reset` (or the client giving up), since TCP never skips
 *   bytes to deliver later ones.
 * - `delay`: every later chunk in both directions is delivered `ms` late (order kept).
 * - `cut`: exactly `afterBytes` more bytes are delivered from the server to the client, then both
 *   sides are destroyed (a stream cut at an arbitrary byte offset).
 */
export type ChaosFault =
  | {
      /** Destroy both sides at once. */
      type: 'reset';
    }
  | {
      /** Stop forwarding, keeping the connection open. */
      type: 'stall';
    }
  | {
      /** Deliver every later chunk late. */
      type: 'delay';
      /** The delay per chunk. */
      ms: number;
    }
  | {
      /** Cut the stream after some more bytes. */
      type: 'cut';
      /** Bytes still delivered from the server before the cut. */
      afterBytes: number;
    };

/** Which connections a request rule applies to. */
export interface ChaosRequestRule {
  /**
   * Matched against each HTTP/1.1 request line the client sends (e.g. `GET /api/v1/pods?watch=true HTTP/1.1`).
   * The fault hits the connection carrying the request, right after the request line was seen and before
   * it is forwarded; a `cut` counts the response bytes from there.
   */
  match: RegExp;
  /** What happens to matching requests. */
  fault: ChaosFault;
  /** How many matching requests are hit (default 1). */
  count?: number;
}

/** A proxied connection, as seen by tests. */
export interface ChaosConnection {
  /** Connection number, from 1 in accept order. */
  readonly id: number;
  /** Request lines seen on this connection, oldest first (HTTP/1.1 keeps connections alive). */
  readonly requests: readonly string[];
  /** Bytes delivered client → server and server → client. */
  readonly bytesUp: number;
  /** Bytes sent from the server to the client so far. */
  readonly bytesDown: number;
  /** Bytes delivered server → client since the last request line: > 0 once the current request is being answered. */
  readonly responseBytes: number;
  /** The fault currently applied, if any. */
  readonly fault: ChaosFault | undefined;
  /** Whether the connection has closed. */
  readonly closed: boolean;
  /** Applies a fault to this connection now (on a stalled or cut connection, only `reset` still applies). */
  inject(fault: ChaosFault): void;
}

/** Counters of what a {@link ChaosProxy} did. */
export interface ChaosStats {
  /** Connections accepted so far. */
  connections: number;
  /** Faults applied, by type. */
  faults: Record<ChaosFault['type'], number>;
}

/** Options of {@link startChaosProxy}. */
export interface ChaosProxyOptions {
  /** The server's port. */
  targetPort: number;
  /** The server's host (default '127.0.0.1'). */
  targetHost?: string;
  /** Port to listen on (default 0: any free port). The proxy always listens on 127.0.0.1. */
  port?: number;
  /** Time source for `delay` faults (default: the real clock). */
  clock?: Clock;
}

/** A running chaos proxy (see {@link startChaosProxy}). */
export interface ChaosProxy {
  /** `127.0.0.1:<port>`; combine with a scheme: `http://${proxy.address}`. */
  readonly address: string;
  /** The port the proxy listens on. */
  readonly port: number;
  /** Open connections, oldest first. */
  connections(): ChaosConnection[];
  /** Applies a fault to every open connection. */
  injectAll(fault: ChaosFault): number;
  /** Applies a fault to every connection accepted from now on, until {@link ChaosProxy.heal}. */
  injectNew(fault: ChaosFault): void;
  /** Applies a fault to the connection of the next request(s) whose request line matches. */
  onRequest(rule: ChaosRequestRule): void;
  /** Resets every open connection (shorthand for `injectAll({ type: 'reset' })`). */
  resetAll(): number;
  /** Stops applying faults to new connections and drops pending request rules (open faulty connections stay as they are). */
  heal(): void;
  /** Stops accepting connections (new ones are refused) until {@link ChaosProxy.resume}; open ones stay. */
  pause(): Promise<void>;
  /** Listens again on the same port. */
  resume(): Promise<void>;
  /** Counts of connections and bytes so far. */
  stats(): ChaosStats;
  /** Destroys every connection and closes the listener. */
  stop(): Promise<void>;
}

// Request lines longer than this are not recognised (the tail kept between chunks is bounded).
const maxRequestLine = 16_384;
const requestLine = /^(?:GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS) \S+ HTTP\/1\.[01]$/;

/** One chunk waiting to be delivered (under `delay`, or behind chunks that are). */
interface Pending {
  due: number;
  run: () => void;
}

class Connection implements ChaosConnection {
  readonly id: number;
  readonly requests: string[] = [];
  bytesUp = 0;
  bytesDown = 0;
  responseBytes = 0;
  fault: ChaosFault | undefined;
  closed = false;
  readonly #client: Socket;
  readonly #server: Socket;
  readonly #proxy: Proxy;
  readonly #clock: Clock;
  /** Partial line carried over between client chunks, to find request lines split across chunks. */
  #lineTail = '';
  /** Response bytes still allowed through under a `cut`. */
  #cutRemaining = 0;
  /** Set once a cut delivered its last byte: the client side is being ended. */
  #cutting = false;
  /** Deliveries in order; one timer for the head. */
  readonly #pending: Pending[] = [];
  #timer: Timer | undefined;

  constructor(id: number, client: Socket, server: Socket, proxy: Proxy, clock: Clock) {
    this.id = id;
    this.#client = client;
    this.#server = server;
    this.#proxy = proxy;
    this.#clock = clock;
    client.on('data', (chunk: Buffer) => this.#fromClient(chunk));
    server.on('data', (chunk: Buffer) => this.#fromServer(chunk));
    // FINs are passed on, except while stalled: a half-open connection tells nobody anything.
    client.on('end', () => {
      if (this.fault?.type !== 'stall') this.#deliver(() => server.end());
    });
    server.on('end', () => {
      if (this.fault?.type !== 'stall' && !this.#cutting) this.#deliver(() => client.end());
    });
    const onClientGone = (): void => this.destroy(false);
    // While stalled the client must not learn that the server went away; a cut ends the client itself.
    const onServerGone = (): void => {
      if (this.fault?.type !== 'stall' && !this.#cutting) this.destroy(false);
    };
    client.on('error', onClientGone);
    client.on('close', onClientGone);
    server.on('error', onServerGone);
    server.on('close', onServerGone);
  }

  inject(fault: ChaosFault): void {
    if (this.closed) return;
    // Stalls and cuts are final: lifting one would deliver bytes after a gap, which TCP never does.
    if ((this.fault?.type === 'stall' || this.#cutting) && fault.type !== 'reset') return;
    this.#proxy.count(fault);
    this.fault = fault;
    switch (fault.type) {
      case 'reset':
        this.destroy(true);
        break;
      case 'cut':
        this.#cutRemaining = fault.afterBytes;
        if (this.#cutRemaining <= 0) this.#cut(Buffer.alloc(0));
        break;
      default:
        break;
    }
  }

  destroy(reset: boolean): void {
    if (this.closed) return;
    this.closed = true;
    this.#timer?.stop();
    this.#timer = undefined;
    this.#pending.length = 0;
    for (const s of [this.#client, this.#server]) {
      if (s.destroyed) continue;
      if (reset) s.resetAndDestroy();
      else s.destroy();
    }
    this.#proxy.forget(this);
  }

  #fromClient(chunk: Buffer): void {
    this.#scanRequests(chunk);
    if (this.closed || this.fault?.type === 'stall') return;
    this.bytesUp += chunk.length;
    this.#deliver(() => this.#server.write(chunk));
  }

  #fromServer(chunk: Buffer): void {
    if (this.closed || this.#cutting || this.fault?.type === 'stall') return;
    if (this.fault?.type === 'cut' && chunk.length >= this.#cutRemaining) {
      this.#cut(chunk.subarray(0, this.#cutRemaining));
      return;
    }
    if (this.fault?.type === 'cut') this.#cutRemaining -= chunk.length;
    this.bytesDown += chunk.length;
    this.responseBytes += chunk.length;
    this.#deliver(() => this.#client.write(chunk));
  }

  /** Delivers the last bytes a cut lets through, then closes both sides. */
  #cut(last: Buffer): void {
    this.#cutting = true;
    this.#cutRemaining = 0;
    this.bytesDown += last.length;
    this.responseBytes += last.length;
    this.#server.destroy();
    this.#deliver(() => {
      if (last.length > 0) this.#client.write(last);
      this.#client.end(() => this.destroy(false));
    });
  }

  /** Runs `fn` now, or in order behind earlier deliveries, `ms` late under a delay fault. */
  #deliver(fn: () => void): void {
    const delay = this.fault?.type === 'delay' ? this.fault.ms : 0;
    if (delay <= 0 && this.#pending.length === 0) {
      fn();
      return;
    }
    const last = this.#pending[this.#pending.length - 1];
    const due = Math.max(this.#clock.now() + delay, last?.due ?? 0);
    this.#pending.push({ due, run: fn });
    if (this.#timer === undefined) this.#arm();
  }

  #arm(): void {
    const head = this.#pending[0];
    if (head === undefined || this.closed) return;
    this.#timer = this.#clock.afterFunc(Math.max(0, head.due - this.#clock.now()), () => {
      this.#timer = undefined;
      const now = this.#clock.now();
      while (!this.closed && this.#pending.length > 0 && this.#pending[0]!.due <= now) this.#pending.shift()!.run();
      this.#arm();
    });
  }

  #scanRequests(chunk: Buffer): void {
    const text = this.#lineTail + chunk.toString('latin1');
    const lines = text.split('\r\n');
    this.#lineTail = (lines.pop() ?? '').slice(-maxRequestLine);
    for (const line of lines) {
      if (!requestLine.test(line)) continue;
      this.requests.push(line);
      this.responseBytes = 0;
      const rule = this.#proxy.takeRule(line);
      if (rule !== undefined) this.inject(rule);
      if (this.closed) return;
    }
  }
}

class Proxy implements ChaosProxy {
  address = '';
  port = 0;
  readonly #server: Server;
  readonly #clock: Clock;
  readonly #targetHost: string;
  readonly #targetPort: number;
  readonly #open = new Map<number, Connection>();
  readonly #rules: Array<{ match: RegExp; fault: ChaosFault; remaining: number }> = [];
  #newFault: ChaosFault | undefined;
  #nextId = 1;
  #listening = false;
  #stats: ChaosStats = { connections: 0, faults: { reset: 0, stall: 0, delay: 0, cut: 0 } };

  constructor(options: ChaosProxyOptions) {
    this.#targetHost = options.targetHost ?? '127.0.0.1';
    this.#targetPort = options.targetPort;
    this.port = options.port ?? 0;
    this.#clock = options.clock ?? realClock;
    this.#server = createServer((client) => this.#accept(client));
  }

  #accept(client: Socket): void {
    client.setNoDelay(true);
    const upstream = connect({ host: this.#targetHost, port: this.#targetPort, noDelay: true });
    const conn = new Connection(this.#nextId++, client, upstream, this, this.#clock);
    this.#open.set(conn.id, conn);
    this.#stats.connections++;
    if (this.#newFault !== undefined) conn.inject(this.#newFault);
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(this.port, '127.0.0.1', () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
    this.#listening = true;
    const a = this.#server.address();
    if (a === null || typeof a === 'string') throw new Error('chaos proxy: no TCP address');
    this.port = a.port;
    this.address = `127.0.0.1:${a.port}`;
  }

  count(fault: ChaosFault): void {
    this.#stats.faults[fault.type]++;
  }

  forget(conn: Connection): void {
    this.#open.delete(conn.id);
  }

  takeRule(line: string): ChaosFault | undefined {
    const i = this.#rules.findIndex((r) => r.match.test(line));
    if (i < 0) return undefined;
    const rule = this.#rules[i]!;
    if (--rule.remaining <= 0) this.#rules.splice(i, 1);
    return rule.fault;
  }

  connections(): ChaosConnection[] {
    return [...this.#open.values()];
  }

  injectAll(fault: ChaosFault): number {
    const conns = [...this.#open.values()];
    for (const c of conns) c.inject(fault);
    return conns.length;
  }

  injectNew(fault: ChaosFault): void {
    this.#newFault = fault;
  }

  onRequest(rule: ChaosRequestRule): void {
    this.#rules.push({ match: rule.match, fault: rule.fault, remaining: rule.count ?? 1 });
  }

  resetAll(): number {
    return this.injectAll({ type: 'reset' });
  }

  heal(): void {
    this.#newFault = undefined;
    this.#rules.length = 0;
  }

  async pause(): Promise<void> {
    if (!this.#listening) return;
    this.#listening = false;
    // close() stops accepting at once; its callback would wait for the open connections, which stay.
    this.#server.close();
    await Promise.resolve();
  }

  async resume(): Promise<void> {
    if (this.#listening) return;
    await this.listen();
  }

  stats(): ChaosStats {
    return { connections: this.#stats.connections, faults: { ...this.#stats.faults } };
  }

  async stop(): Promise<void> {
    for (const c of [...this.#open.values()]) c.destroy(false);
    await this.pause();
  }
}

/**
 * Starts a chaos proxy on 127.0.0.1 forwarding to `targetHost:targetPort`. Without faults it is a
 * transparent byte pipe; faults are applied per connection, to all open connections, to new
 * connections, or to the connection of the next matching HTTP request.
 *
 * @example
 * const server = await startApiServer();
 * const proxy = await startChaosProxy({ targetPort: Number(new URL(server.url).port) });
 * const cs = newClientset({ host: `http://${proxy.address}` });
 * proxy.onRequest({ match: /watch=true/, fault: { type: 'stall' } }); // the next watch goes half-open
 * proxy.resetAll();                                                  // RST every open connection
 * await proxy.stop();
 */
export async function startChaosProxy(options: ChaosProxyOptions): Promise<ChaosProxy> {
  const proxy = new Proxy(options);
  await proxy.listen();
  return proxy;
}
