/**
 * Virtual globals for the code under test during one simulation run. No upstream counterpart: it is the
 * layer deterministic simulators put between the program and its operating system (FoundationDB's
 * simulated `INetwork`, TigerBeetle's VOPR), here by replacing Node.js globals for the length of a run,
 * as @sinonjs/fake-timers does for tests, but driven by the run's seeded scheduler instead of by hand.
 *
 * kubeloom's own code takes time from an injected Clock (a lint rule forbids timers in src/); a user's
 * controller may not. While a run is in progress:
 *
 * - `setTimeout`, `setInterval` (and their `clear*`, also from `node:timers`, and `node:timers/promises`'
 *   `setTimeout`/`setInterval`), and `AbortSignal.timeout`, run on the virtual clock: each firing is a
 *   scheduler step on a lane of its own (`timer/<id>/`), so the seed may interleave it with watch events
 *   and responses. Delays follow Node's coercion (below 1 ms or not a number: 1 ms).
 * - `Date.now()`, `new Date()`, `Date()` and `performance.now()` read the virtual clock.
 * - `Math.random` draws from a generator seeded by the run; `crypto.randomUUID`, `crypto.getRandomValues`
 *   (the global and `node:crypto`'s), `randomBytes` and `randomInt` from another, so that code drawing
 *   UUIDs does not shift the `Math.random` stream (backoff jitter) of code that was there before.
 * - Real I/O cannot be replayed, so it is refused and the run ends with a {@link SimulationRealIoError}
 *   naming it: a network connection leaving the process (`net.Socket#connect`, which `fetch`, `http`,
 *   `https` and `tls` all use), a DNS lookup, an asynchronous file-system call (`node:fs` callbacks and
 *   `node:fs/promises`; synchronous calls are allowed: they return before the next step), a child process.
 *
 * `setImmediate`, `queueMicrotask` and `process.nextTick` stay real: with no real timer and no I/O left,
 * Node.js runs them in a fixed order (FIFO within each queue), which is deterministic already; a
 * scheduler step is itself one `setImmediate` turn ({@link drainMicrotasks}).
 *
 * Named imports of built-in modules (`import { randomUUID } from 'node:crypto'`) see the replacements
 * through `module.syncBuiltinESMExports()`. A reference taken before the run (`const now = Date.now` at
 * module load) keeps the real function, except `Date.now`, which is replaced on the real `Date` too.
 * Only one run may be in progress per process: a second install throws {@link SimulationOverlapError}.
 */
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { Buffer } from 'node:buffer';
import { Socket } from 'node:net';
import { SimulationOverlapError, SimulationRealIoError } from './errors.ts';
import { Prng } from './prng.ts';
import type { Scheduler } from './scheduler.ts';

const require = createRequire(import.meta.url);

/** What a run gives the virtual globals. */
export interface VirtualGlobalsHost {
  /** The run's scheduler: its clock is the virtual time, and timers fire as its steps. */
  readonly sched: Scheduler;
  /** The run's seed (the generators behind `Math.random` and `crypto` derive from it). */
  readonly seed: number;
  /** Called when a timer callback throws: in Node.js that is an uncaught exception. */
  readonly uncaught: (err: unknown) => void;
}

/** The installed globals of one run. */
export interface VirtualGlobals {
  /** The first real I/O the code under test attempted, if any (the run ends with it). */
  readonly realIo: SimulationRealIoError | undefined;
  /** User timers (setTimeout, setInterval) still pending. */
  readonly pendingTimers: number;
  /** Puts every replaced global back. Idempotent. */
  restore(): void;
}

interface Saved {
  readonly target: object;
  readonly key: PropertyKey;
  readonly descriptor: PropertyDescriptor | undefined;
}

// The real functions, taken when this module loads (before any run).
const RealDate = Date;
const realClearTimeout = globalThis.clearTimeout;
const realClearInterval = globalThis.clearInterval;

let active: string | undefined;

/** Node.js's own coercion of a timer delay (lib/internal/timers.js): not a number in [1, 2^31 - 1] → 1. */
function coerceDelay(ms: unknown): number {
  const n = Number(ms);
  return n >= 1 && n <= 2 ** 31 - 1 ? Math.trunc(n) : 1;
}

/**
 * The object `setTimeout` returns, shaped as Node.js's `Timeout` (`ref`, `unref`, `hasRef`, `refresh`,
 * `close`, a primitive value usable as an id).
 */
class VirtualTimeout {
  readonly id: number;
  readonly #cancel: (t: VirtualTimeout) => void;
  readonly #refresh: (t: VirtualTimeout) => void;
  constructor(id: number, cancel: (t: VirtualTimeout) => void, refresh: (t: VirtualTimeout) => void) {
    this.id = id;
    this.#cancel = cancel;
    this.#refresh = refresh;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  hasRef(): boolean {
    return true;
  }
  refresh(): this {
    this.#refresh(this);
    return this;
  }
  close(): this {
    this.#cancel(this);
    return this;
  }
  [Symbol.toPrimitive](): number {
    return this.id;
  }
  [Symbol.dispose](): void {
    this.#cancel(this);
  }
}

interface TimerEntry {
  readonly handle: VirtualTimeout;
  readonly fn: (...args: unknown[]) => void;
  readonly args: unknown[];
  readonly delay: number;
  readonly repeat: boolean;
  readonly kind: string;
}

function fillRandom(g: Prng, bytes: Uint8Array): void {
  for (let i = 0; i < bytes.length; i += 4) {
    const v = g.nextUint32();
    for (let j = 0; j < 4 && i + j < bytes.length; j++) bytes[i + j] = (v >>> (8 * j)) & 0xff;
  }
}

function uuidFrom(g: Prng): `${string}-${string}-${string}-${string}-${string}` {
  const b = new Uint8Array(16);
  fillRandom(g, b);
  // RFC 9562 version 4, variant 10.
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

// The target of a net.Socket#connect call, for the error: `host:port` or the path of a Unix socket.
function describeConnect(args: unknown[]): string {
  let first = args[0];
  // net.connect passes its normalized arguments as one array.
  if (Array.isArray(first)) first = first[0];
  if (typeof first === 'object' && first !== null) {
    const o = first as { path?: unknown; host?: unknown; port?: unknown };
    if (typeof o.path === 'string') return o.path;
    return `${typeof o.host === 'string' ? o.host : 'localhost'}:${String(o.port)}`;
  }
  if (typeof first === 'string' && !/^\d+$/.test(first)) return first;
  return `${typeof args[1] === 'string' ? args[1] : 'localhost'}:${String(first)}`;
}

const fsAsync = ['access', 'appendFile', 'chmod', 'copyFile', 'cp', 'lstat', 'mkdir', 'mkdtemp', 'open', 'opendir', 'readFile', 'readdir', 'readlink', 'realpath', 'rename', 'rm', 'rmdir', 'stat', 'truncate', 'unlink', 'utimes', 'writeFile'];
const dnsAsync = ['lookup', 'lookupService', 'resolve', 'resolve4', 'resolve6', 'resolveAny', 'resolveCname', 'resolveMx', 'resolveNs', 'resolveSrv', 'resolveTxt', 'reverse'];
const childAsync = ['spawn', 'exec', 'execFile', 'fork'];

/**
 * Replaces the globals for one run (see the file comment) and returns the handle that restores them.
 * Throws {@link SimulationOverlapError} while another run's globals are installed.
 */
export function installVirtualGlobals(host: VirtualGlobalsHost): VirtualGlobals {
  if (active !== undefined) throw new SimulationOverlapError(`a simulation run (${active}) is already in progress in this process; runs replace process-wide globals and must not overlap: await one before starting the next`);
  const saved: Saved[] = [];
  const undo = (): void => {
    for (const s of saved.reverse()) {
      if (s.descriptor === undefined) Reflect.deleteProperty(s.target, s.key);
      else Object.defineProperty(s.target, s.key, s.descriptor);
    }
    saved.length = 0;
    syncBuiltinESMExports();
  };
  const set = (target: object, key: PropertyKey, value: unknown): void => {
    const descriptor = Object.getOwnPropertyDescriptor(target, key);
    saved.push({ target, key, descriptor });
    Object.defineProperty(target, key, { value, writable: true, configurable: true, enumerable: descriptor?.enumerable ?? false });
  };
  // All or nothing: a replacement that fails puts back those made before it.
  try {
    return install(host, set, undo);
  } catch (err) {
    undo();
    throw err;
  }
}

function install(host: VirtualGlobalsHost, set: (target: object, key: PropertyKey, value: unknown) => void, undo: () => void): VirtualGlobals {
  const { sched } = host;
  const clock = sched.clock;
  const startMs = clock.now();
  let realIo: SimulationRealIoError | undefined;
  const refuse = (operation: string): SimulationRealIoError => {
    const err = new SimulationRealIoError(operation);
    if (realIo === undefined) {
      realIo = err;
      sched.log(`REAL I/O refused: ${operation}`);
    }
    return err;
  };

  // Random numbers: Math.random keeps the stream it always had (seed ^ 0x5eed), crypto gets its own.
  const userRandom = new Prng(host.seed ^ 0x5eed);
  const cryptoRandom = new Prng(host.seed ^ 0xc0ffee);
  set(Math, 'random', () => userRandom.next());

  // Time.
  const now = (): number => clock.now();
  set(RealDate, 'now', now);
  const VirtualDate = new Proxy(RealDate, {
    construct: (target, args: unknown[], newTarget) => Reflect.construct(target, args.length === 0 ? [clock.now()] : args, newTarget) as object,
    apply: () => new RealDate(clock.now()).toString(),
  });
  set(globalThis, 'Date', VirtualDate);
  set(performance, 'now', () => clock.now() - startMs);

  // Timers.
  let nextId = 1;
  const timers = new Map<number, TimerEntry>();
  const laneOf = (id: number): string => `timer/${id}/`;
  const cancel = (h: VirtualTimeout): void => {
    if (timers.delete(h.id)) sched.dropLanes(laneOf(h.id));
  };
  const arm = (e: TimerEntry): void => {
    sched.post(
      laneOf(e.handle.id),
      `${e.kind} #${e.handle.id}`,
      () => {
        if (timers.get(e.handle.id) !== e) return;
        sched.log(`TIMER ${e.kind} #${e.handle.id} (${e.delay}ms)`);
        if (e.repeat) arm(e);
        else timers.delete(e.handle.id);
        try {
          e.fn(...e.args);
        } catch (err) {
          host.uncaught(err);
        }
      },
      e.delay,
    );
  };
  const refresh = (h: VirtualTimeout): void => {
    const e = timers.get(h.id);
    if (e === undefined) return;
    sched.dropLanes(laneOf(h.id));
    arm(e);
  };
  const start = (kind: string, repeat: boolean, fn: unknown, ms: unknown, args: unknown[]): VirtualTimeout => {
    if (typeof fn !== 'function') throw new TypeError(`The "callback" argument must be of type function. Received ${typeof fn}`);
    const handle = new VirtualTimeout(nextId++, cancel, refresh);
    const e: TimerEntry = { handle, fn: fn as (...a: unknown[]) => void, args, delay: coerceDelay(ms), repeat, kind };
    timers.set(handle.id, e);
    arm(e);
    return handle;
  };
  const clear = (real: (h: never) => void) => (h: unknown): void => {
    if (h instanceof VirtualTimeout) cancel(h);
    else if ((typeof h === 'number' || typeof h === 'string') && timers.has(Number(h))) cancel(timers.get(Number(h))!.handle);
    else if (h !== undefined && h !== null) real(h as never);
  };
  const vSetTimeout = (fn: unknown, ms?: unknown, ...args: unknown[]): VirtualTimeout => start('setTimeout', false, fn, ms, args);
  const vSetInterval = (fn: unknown, ms?: unknown, ...args: unknown[]): VirtualTimeout => start('setInterval', true, fn, ms, args);
  const vClearTimeout = clear(realClearTimeout);
  const vClearInterval = clear(realClearInterval);
  // timers/promises.setTimeout(delay, value, { signal }).
  const sleep = <T>(ms?: number, value?: T, options?: { signal?: AbortSignal }): Promise<T> => {
    const signal = options?.signal;
    if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        cancel(h);
        reject(signal!.reason as Error);
      };
      const h = vSetTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve(value as T);
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  };
  Object.defineProperty(vSetTimeout, Symbol.for('nodejs.util.promisify.custom'), { value: sleep });
  async function* ticks<T>(ms?: number, value?: T, options?: { signal?: AbortSignal }): AsyncGenerator<T> {
    for (;;) {
      yield await sleep(ms, value, options);
    }
  }
  set(globalThis, 'setTimeout', vSetTimeout);
  set(globalThis, 'setInterval', vSetInterval);
  set(globalThis, 'clearTimeout', vClearTimeout);
  set(globalThis, 'clearInterval', vClearInterval);
  const timersModule = require('node:timers') as object;
  set(timersModule, 'setTimeout', vSetTimeout);
  set(timersModule, 'setInterval', vSetInterval);
  set(timersModule, 'clearTimeout', vClearTimeout);
  set(timersModule, 'clearInterval', vClearInterval);
  const timersPromises = require('node:timers/promises') as { scheduler?: object };
  set(timersPromises, 'setTimeout', sleep);
  set(timersPromises, 'setInterval', ticks);
  if (timersPromises.scheduler !== undefined) set(timersPromises.scheduler, 'wait', (ms: number, options?: { signal?: AbortSignal }) => sleep(ms, undefined, options));
  set(AbortSignal, 'timeout', (ms: number): AbortSignal => {
    const c = new AbortController();
    vSetTimeout(() => c.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), ms);
    return c.signal;
  });

  // crypto: the global Web Crypto object and node:crypto.
  const randomUUID = (): string => uuidFrom(cryptoRandom);
  const getRandomValues = <T extends ArrayBufferView | null>(array: T): T => {
    if (array !== null) fillRandom(cryptoRandom, new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
    return array;
  };
  const randomBytes = (size: number, cb?: (err: Error | null, buf: Buffer) => void): Buffer | undefined => {
    const buf = Buffer.alloc(size);
    fillRandom(cryptoRandom, buf);
    if (cb === undefined) return buf;
    queueMicrotask(() => cb(null, buf));
    return undefined;
  };
  const randomInt = (a: number, b?: number | ((err: Error | null, n: number) => void), c?: (err: Error | null, n: number) => void): number | undefined => {
    const [min, max, cb] = typeof b === 'number' ? [a, b, c] : [0, a, b];
    const n = min + Math.floor(cryptoRandom.next() * (max - min));
    if (cb === undefined) return n;
    queueMicrotask(() => cb(null, n));
    return undefined;
  };
  set(globalThis.crypto, 'randomUUID', randomUUID);
  set(globalThis.crypto, 'getRandomValues', getRandomValues);
  const cryptoModule = require('node:crypto') as object;
  set(cryptoModule, 'randomUUID', randomUUID);
  // node:crypto's getRandomValues is a non-configurable getter for the global object's method, patched above.
  set(cryptoModule, 'randomBytes', randomBytes);
  set(cryptoModule, 'randomInt', randomInt);

  // Real I/O: refused, and the run ends with the first one.
  set(Socket.prototype, 'connect', function connect(...args: unknown[]): never {
    throw refuse(`net.connect ${describeConnect(args)}`);
  });
  const refuseAll = (module: Record<string, unknown>, names: readonly string[], prefix: string, promises: boolean): void => {
    for (const name of names) {
      if (typeof module[name] !== 'function') continue;
      set(module, name, (...args: unknown[]): unknown => {
        const what = `${prefix}.${name}${typeof args[0] === 'string' ? ` ${args[0]}` : ''}`;
        if (promises) return Promise.reject(refuse(what));
        throw refuse(what);
      });
    }
  };
  const fsModule = require('node:fs') as Record<string, unknown> & { promises: Record<string, unknown> };
  refuseAll(fsModule, fsAsync, 'fs', false);
  refuseAll(fsModule.promises, fsAsync, 'fs.promises', true);
  const dnsModule = require('node:dns') as Record<string, unknown> & { promises: Record<string, unknown> };
  refuseAll(dnsModule, dnsAsync, 'dns', false);
  refuseAll(dnsModule.promises, dnsAsync, 'dns.promises', true);
  refuseAll(require('node:child_process') as Record<string, unknown>, childAsync, 'child_process', false);
  syncBuiltinESMExports();
  active = `seed ${host.seed}`;

  let restored = false;
  return {
    get realIo() {
      return realIo;
    },
    get pendingTimers() {
      return timers.size;
    },
    restore(): void {
      if (restored) return;
      restored = true;
      undo();
      timers.clear();
      active = undefined;
    },
  };
}
