/**
 * Whether the API server behind one REST client's connections is reachable, as every request of the
 * client (and of the clients derived from it with `withConfig`) learns it. kubeloom's: client-go has
 * no counterpart; there every reflector sits out its own backoff (reflector.go: 800 ms → 30 s, ×2,
 * jitter 1.0) after an outage, so a client's informers come back one by one, up to a minute after the
 * server did.
 *
 * Here a reflector that failed for want of a connection still backs off as upstream (the requests a
 * down server receives do not change), but it also waits on {@link Reachability.whenReachable}: the
 * first request of the client that gets an answer, or the client's own readiness probe, wakes every
 * waiting reflector at once (spread over {@link ReachabilityOptions.wakeSpreadMs} so that they do not
 * all LIST in the same millisecond).
 *
 * The probe runs only while something waits, at a bounded rate: a TCP connect to the server's port
 * (refused by the peer's kernel: not a request) every `tcpProbeMaxIntervalMs` at most, and only once
 * a connection is accepted, a `GET /readyz` (on the client's connections, with its credentials) at
 * most every `httpProbeMaxIntervalMs`. Any answer below 500 but 429 counts as reachable (a 401 or
 * 403 is a server that is up; `/readyz` answers 500 while it is not ready).
 */
import { connect } from 'node:net';
import type { Clock } from '../util/clock/clock.ts';
import { someErrorInChain } from '../apimachinery/errors.ts';

/** First wait before a TCP probe; doubles up to {@link defaultTcpProbeMaxIntervalMs}. Not upstream. */
export const defaultTcpProbeInitialIntervalMs = 250;
/** Longest wait between two TCP probes while a waiter is parked (a refused connect costs the server nothing). */
export const defaultTcpProbeMaxIntervalMs = 1_000;
/** First wait between two HTTP probes of a server that accepts connections but answers none (or 5xx). */
export const defaultHttpProbeInitialIntervalMs = 1_000;
/** Longest wait between two HTTP probes: the probe's own bound on requests to a server that is not ready. */
export const defaultHttpProbeMaxIntervalMs = 4_000;
/** Waiters are released at random within this span after the server is seen again. */
export const defaultWakeSpreadMs = 500;

/** The server's address for the TCP probe. */
export interface TcpTarget {
  /** Host name or IP address (IPv6 without brackets). */
  host: string;
  /** TCP port. */
  port: number;
}

/** Options of a {@link Reachability}. */
export interface ReachabilityOptions {
  /** Time source of the probe's waits and the wake spread. */
  clock: Clock;
  /** Where to connect for the TCP probe; undefined skips that stage (a proxy sits in between). */
  tcpTarget?: TcpTarget;
  /** The HTTP probe: resolves with the status code, rejects when no answer came. */
  httpProbe: (signal: AbortSignal) => Promise<number>;
  /** See {@link defaultTcpProbeMaxIntervalMs}. */
  tcpProbeMaxIntervalMs?: number;
  /** See {@link defaultHttpProbeMaxIntervalMs}. */
  httpProbeMaxIntervalMs?: number;
  /** See {@link defaultWakeSpreadMs}. */
  wakeSpreadMs?: number;
  /** Random source in [0, 1) for the wake spread (default Math.random). */
  random?: () => number;
  /**
   * False: waiters are never woken early and nothing is probed, so that reflectors sit out their whole
   * backoff as client-go's do (default true).
   */
  wake?: boolean;
}

/** What a {@link Reachability} did, for tests and benchmarks. */
export interface ReachabilityStats {
  /** Times the server was seen unreachable after being reachable. */
  outages: number;
  /** Times it was seen reachable again. */
  recoveries: number;
  /** TCP connects tried by the probe. */
  tcpProbes: number;
  /** HTTP requests sent by the probe. */
  httpProbes: number;
}

/** True when a response with this status says the server is up and serving. */
export function isServingStatus(code: number): boolean {
  return code < 500 && code !== 429;
}

/** Error codes (of the error or a cause) that mean no connection to the server could be made or kept. */
const unreachableCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_CLOSED']);

/** True when `err` (or a cause) is a connection that could not be made or was lost. */
export function isUnreachableError(err: unknown): boolean {
  return someErrorInChain(err, (e) => {
    const code = (e as { code?: unknown }).code;
    return typeof code === 'string' && unreachableCodes.has(code);
  });
}

/** See the module comment. One per connection pool; {@link RestClient.reachability} exposes it. */
export class Reachability {
  readonly #clock: Clock;
  readonly #tcpTarget: TcpTarget | undefined;
  readonly #httpProbe: (signal: AbortSignal) => Promise<number>;
  readonly #tcpMaxMs: number;
  readonly #httpMaxMs: number;
  readonly #spreadMs: number;
  readonly #random: () => number;
  readonly #wake: boolean;
  readonly #waiters = new Set<() => void>();
  readonly #stop = new AbortController();
  #down = false;
  #probing = false;
  readonly #stats: ReachabilityStats = { outages: 0, recoveries: 0, tcpProbes: 0, httpProbes: 0 };

  constructor(options: ReachabilityOptions) {
    this.#clock = options.clock;
    this.#tcpTarget = options.tcpTarget;
    this.#httpProbe = options.httpProbe;
    this.#tcpMaxMs = options.tcpProbeMaxIntervalMs ?? defaultTcpProbeMaxIntervalMs;
    this.#httpMaxMs = options.httpProbeMaxIntervalMs ?? defaultHttpProbeMaxIntervalMs;
    this.#spreadMs = options.wakeSpreadMs ?? defaultWakeSpreadMs;
    this.#random = options.random ?? Math.random;
    this.#wake = options.wake ?? true;
  }

  /** False from a connection failure until the next answer from the server. */
  get reachable(): boolean {
    return !this.#down;
  }

  /** Counters of outages, recoveries and probes. */
  stats(): ReachabilityStats {
    return { ...this.#stats };
  }

  /** Number of waiters parked in {@link Reachability.whenReachable}. */
  waiterCount(): number {
    return this.#waiters.size;
  }

  /** A request found no server (connection refused, reset, timed out). */
  reportUnreachable(): void {
    if (this.#down || this.#stop.signal.aborted) return;
    this.#down = true;
    this.#stats.outages++;
    if (this.#waiters.size > 0) this.#startProbing();
  }

  /** A request got an answer with this status; a serving one ends an outage and wakes the waiters. */
  reportResponse(statusCode: number): void {
    if (!isServingStatus(statusCode) || !this.#down) return;
    this.#down = false;
    this.#stats.recoveries++;
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const wake of waiters) {
      const delay = this.#spreadMs > 0 ? Math.floor(this.#random() * this.#spreadMs) : 0;
      if (delay === 0) wake();
      else this.#clock.afterFunc(delay, wake);
    }
  }

  /**
   * Resolves once the server answered a request after an outage (at once when none is known), with
   * a random delay of up to `wakeSpreadMs`; rejects with `signal.reason` when `signal` aborts first.
   * While anything waits, the probe runs.
   */
  whenReachable(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    if (!this.#wake) return new Promise<void>((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
    if (!this.#down) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        this.#waiters.delete(wake);
        reject(signal.reason as Error);
      };
      const wake = (): void => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      this.#waiters.add(wake);
      signal.addEventListener('abort', onAbort, { once: true });
      this.#startProbing();
    });
  }

  /** Stops the probe for good (the client was closed); waiters keep waiting on their own signals. */
  close(): void {
    this.#stop.abort();
  }

  #startProbing(): void {
    if (this.#probing || this.#stop.signal.aborted) return;
    this.#probing = true;
    void this.#probeLoop().finally(() => {
      this.#probing = false;
      // A new outage may have started (with waiters) while the loop was finishing.
      if (this.#down && this.#waiters.size > 0 && !this.#stop.signal.aborted) this.#startProbing();
    });
  }

  async #probeLoop(): Promise<void> {
    const signal = this.#stop.signal;
    let tcpDelay = Math.min(defaultTcpProbeInitialIntervalMs, this.#tcpMaxMs);
    let httpDelay = Math.min(defaultHttpProbeInitialIntervalMs, this.#httpMaxMs);
    let nextHttpAt = this.#clock.now();
    while (this.#down && this.#waiters.size > 0 && !signal.aborted) {
      try {
        await this.#clock.sleep(tcpDelay, signal);
      } catch {
        return;
      }
      tcpDelay = Math.min(tcpDelay * 2, this.#tcpMaxMs);
      if (!this.#down || this.#waiters.size === 0) return;
      if (this.#tcpTarget !== undefined) {
        this.#stats.tcpProbes++;
        if (!(await tcpConnects(this.#tcpTarget, this.#clock, signal))) continue;
      }
      // Accepting connections: ask over HTTP, at the HTTP probe's own bounded rate.
      if (this.#clock.now() < nextHttpAt) continue;
      nextHttpAt = this.#clock.now() + httpDelay;
      httpDelay = Math.min(httpDelay * 2, this.#httpMaxMs);
      this.#stats.httpProbes++;
      try {
        const code = await this.#httpProbe(signal);
        this.reportResponse(code);
      } catch {
        // No answer: still down.
      }
    }
  }
}

/** Tries a TCP connection to `target` (given up after a second); true when it was accepted. */
function tcpConnects(target: TcpTarget, clock: Clock, signal: AbortSignal): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const socket = connect({ host: target.host, port: target.port });
    const finish = (ok: boolean): void => {
      timer.stop();
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(ok);
    };
    const onAbort = (): void => finish(false);
    const timer = clock.afterFunc(1_000, () => finish(false));
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}
