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
  /** Ends the run's use of the globals and puts every replaced one back (unless held). Idempotent. */
  restore(): void;
}

// What the replacements read while a run is in progress.
interface RunState {
  readonly sched: Scheduler;
  readonly startMs: number;
  readonly userRandom: Prng;
  readonly cryptoRandom: Prng;
  readonly timers: Map<number, TimerEntry>;
  readonly uncaught: (err: unknown) => void;
  nextId: number;
  realIo: SimulationRealIoError | undefined;
}

interface Saved {
  readonly target: object;
  readonly key: PropertyKey;
  readonly descriptor: PropertyDescriptor | undefined;
}

// The real functions, taken when this module loads (before any run).
const RealDate = Date;
const promisifyCustom = Symbol.for('nodejs.util.promisify.custom');
const realSetTimeoutCustom = (globalThis.setTimeout as unknown as Record<symbol, ((...args: unknown[]) => unknown) | undefined>)[promisifyCustom];

// The run in progress, if any: the replacements serve it, and forward to the real functions otherwise.
let current: RunState | undefined;
// The seed of the run in progress, for the overlap error.
let activeSeed = 0;
// Undoes the replacements while they are installed.
let installed: (() => void) | undefined;
// Holders keeping the replacements installed between runs (explore, shrink).
let holds = 0;

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
  /** The run that created it. */
  readonly run: RunState;
  readonly #cancel: (t: VirtualTimeout) => void;
  readonly #refresh: (t: VirtualTimeout) => void;
  constructor(id: number, run: RunState, cancel: (t: VirtualTimeout) => void, refresh: (t: VirtualTimeout) => void) {
    this.id = id;
    this.run = run;
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
 * Starts a run's use of the virtual globals (see the file comment): replaces them unless they are held
 * installed, and returns the handle that ends it. Throws {@link SimulationOverlapError} while another run
 * is in progress.
 */
export function installVirtualGlobals(host: VirtualGlobalsHost): VirtualGlobals {
  if (current !== undefined) throw new SimulationOverlapError(`a simulation run (seed ${activeSeed}) is already in progress in this process; runs replace process-wide globals and must not overlap: await one before starting the next`);
  installed ??= replaceGlobals();
  const run: RunState = {
    sched: host.sched,
    startMs: host.sched.clock.now(),
    // Math.random keeps the stream it always had (seed ^ 0x5eed); crypto gets its own.
    userRandom: new Prng(host.seed ^ 0x5eed),
    cryptoRandom: new Prng(host.seed ^ 0xc0ffee),
    timers: new Map(),
    uncaught: host.uncaught,
    nextId: 1,
    realIo: undefined,
  };
  current = run;
  activeSeed = host.seed;
  let ended = false;
  return {
    get realIo() {
      return run.realIo;
    },
    get pendingTimers() {
      return run.timers.size;
    },
    restore(): void {
      if (ended) return;
      ended = true;
      run.timers.clear();
      if (current === run) current = undefined;
      release();
    },
  };
}

/**
 * Keeps the replaced globals installed between the runs of a series (explore, shrink), so that each run
 * does not replace and restore them (module.syncBuiltinESMExports and the redefinitions cost about
 * 0.1 ms a run). Between runs the replacements forward to the real functions. Returns the function that
 * lets go; the globals are put back once nothing holds them and no run is in progress.
 */
export function holdVirtualGlobals(): () => void {
  holds++;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    holds--;
    release();
  };
}

function release(): void {
  if (holds > 0 || current !== undefined || installed === undefined) return;
  const undo = installed;
  installed = undefined;
  undo();
}

// Replaces the globals with functions that serve the run in progress (`current`) and forward to the real
// ones otherwise. All or nothing: a replacement that fails puts back those made before it. Returns the undo.
function replaceGlobals(): () => void {
  const saved: Saved[] = [];
  const undo = (): void => {
    for (const s of saved.reverse()) {
      if (s.descriptor === undefined) Reflect.deleteProperty(s.target, s.key);
      else Object.defineProperty(s.target, s.key, s.descriptor);
    }
    saved.length = 0;
    syncBuiltinESMExports();
  };
  // Replaces target[key] by make(real), real being the function it replaces.
  const set = <F>(target: object, key: PropertyKey, make: (real: F) => unknown): void => {
    const descriptor = Object.getOwnPropertyDescriptor(target, key);
    const real = Reflect.get(target, key) as F;
    saved.push({ target, key, descriptor });
    Object.defineProperty(target, key, { value: make(typeof real === 'function' ? (real as { bind(t: unknown): F }).bind(target) : real), writable: true, configurable: true, enumerable: descriptor?.enumerable ?? false });
  };
  try {
    replace(set);
    syncBuiltinESMExports();
  } catch (err) {
    undo();
    throw err;
  }
  return undo;
}

type Setter = <F>(target: object, key: PropertyKey, make: (real: F) => unknown) => void;
type Fn = (...args: unknown[]) => unknown;

function refuse(run: RunState, operation: string): SimulationRealIoError {
  const err = new SimulationRealIoError(operation);
  if (run.realIo === undefined) {
    run.realIo = err;
    run.sched.log(`REAL I/O refused: ${operation}`);
  }
  return err;
}

function replace(set: Setter): void {
  // Random numbers.
  set<() => number>(Math, 'random', (real) => () => (current === undefined ? real() : current.userRandom.next()));

  // Time.
  set<() => number>(RealDate, 'now', (real) => () => (current === undefined ? real() : current.sched.clock.now()));
  set(globalThis, 'Date', () =>
    new Proxy(RealDate, {
      construct: (target, args: unknown[], newTarget) => Reflect.construct(target, args.length === 0 && current !== undefined ? [current.sched.clock.now()] : args, newTarget) as object,
      apply: () => new RealDate(current === undefined ? RealDate.now() : current.sched.clock.now()).toString(),
    }),
  );
  set<() => number>(performance, 'now', (real) => () => (current === undefined ? real() : current.sched.clock.now() - current.startMs));

  // Timers.
  const laneOf = (id: number): string => `timer/${id}/`;
  const cancel = (h: VirtualTimeout): void => {
    if (h.run.timers.delete(h.id)) h.run.sched.dropLanes(laneOf(h.id));
  };
  const arm = (run: RunState, e: TimerEntry): void => {
    run.sched.post(
      laneOf(e.handle.id),
      `${e.kind} #${e.handle.id}`,
      () => {
        if (run.timers.get(e.handle.id) !== e) return;
        run.sched.log(`TIMER ${e.kind} #${e.handle.id} (${e.delay}ms)`);
        if (e.repeat) arm(run, e);
        else run.timers.delete(e.handle.id);
        try {
          e.fn(...e.args);
        } catch (err) {
          run.uncaught(err);
        }
      },
      e.delay,
    );
  };
  const refresh = (h: VirtualTimeout): void => {
    const e = h.run.timers.get(h.id);
    if (e === undefined) return;
    h.run.sched.dropLanes(laneOf(h.id));
    arm(h.run, e);
  };
  const start = (run: RunState, kind: string, repeat: boolean, fn: unknown, ms: unknown, args: unknown[]): VirtualTimeout => {
    if (typeof fn !== 'function') throw new TypeError(`The "callback" argument must be of type function. Received ${typeof fn}`);
    const handle = new VirtualTimeout(run.nextId++, run, cancel, refresh);
    const e: TimerEntry = { handle, fn: fn as (...a: unknown[]) => void, args, delay: coerceDelay(ms), repeat, kind };
    run.timers.set(handle.id, e);
    arm(run, e);
    return handle;
  };
  const timer = (kind: string, repeat: boolean) => (real: Fn) => (fn: unknown, ms?: unknown, ...args: unknown[]): unknown => (current === undefined ? real(fn, ms, ...args) : start(current, kind, repeat, fn, ms, args));
  const clear = (real: Fn) => (h: unknown): void => {
    if (h instanceof VirtualTimeout) cancel(h);
    else if ((typeof h === 'number' || typeof h === 'string') && current?.timers.has(Number(h)) === true) cancel(current.timers.get(Number(h))!.handle);
    else real(h);
  };
  // timers/promises.setTimeout(delay, value, { signal }) on the virtual clock.
  const sleep = <T>(run: RunState, ms?: number, value?: T, options?: { signal?: AbortSignal }): Promise<T> => {
    const signal = options?.signal;
    if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        cancel(h);
        reject(signal!.reason as Error);
      };
      const h = start(run, 'setTimeout', false, () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(value as T);
      }, ms, []);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  };
  const promised = (real: Fn) => <T>(ms?: number, value?: T, options?: { signal?: AbortSignal }): Promise<T> => (current === undefined ? (real(ms, value, options) as Promise<T>) : sleep(current, ms, value, options));
  // util.promisify(setTimeout) uses the function's promisify.custom (timers/promises' setTimeout).
  const withPromisify = (real: Fn, make: (real: Fn) => Fn): Fn => {
    const f = make(real);
    if (realSetTimeoutCustom !== undefined) Object.defineProperty(f, promisifyCustom, { value: promised(realSetTimeoutCustom) });
    return f;
  };
  for (const target of [globalThis, require('node:timers') as object]) {
    set<Fn>(target, 'setTimeout', (real) => withPromisify(real, timer('setTimeout', false)));
    set<Fn>(target, 'setInterval', timer('setInterval', true));
    set<Fn>(target, 'clearTimeout', clear);
    set<Fn>(target, 'clearInterval', clear);
  }
  const timersPromises = require('node:timers/promises') as { scheduler?: object };
  set<Fn>(timersPromises, 'setTimeout', promised);
  set<Fn>(timersPromises, 'setInterval', (real) =>
    function ticks<T>(ms?: number, value?: T, options?: { signal?: AbortSignal }): AsyncIterable<T> {
      const run = current;
      if (run === undefined) return real(ms, value, options) as AsyncIterable<T>;
      return (async function* (): AsyncGenerator<T> {
        for (;;) yield await sleep(run, ms, value, options);
      })();
    },
  );
  if (timersPromises.scheduler !== undefined) set<Fn>(timersPromises.scheduler, 'wait', (real) => (ms: number, options?: { signal?: AbortSignal }) => (current === undefined ? real(ms, options) : sleep(current, ms, undefined, options)));
  set<(ms: number) => AbortSignal>(AbortSignal, 'timeout', (real) => (ms: number): AbortSignal => {
    if (current === undefined) return real(ms);
    const c = new AbortController();
    start(current, 'setTimeout', false, () => c.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), ms, []);
    return c.signal;
  });

  // crypto: the global Web Crypto object and node:crypto.
  set<() => string>(globalThis.crypto, 'randomUUID', (real) => () => (current === undefined ? real() : uuidFrom(current.cryptoRandom)));
  set<(a: ArrayBufferView | null) => unknown>(globalThis.crypto, 'getRandomValues', (real) => <T extends ArrayBufferView | null>(array: T): T => {
    if (current === undefined) return real(array) as T;
    if (array !== null) fillRandom(current.cryptoRandom, new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
    return array;
  });
  // node:crypto's getRandomValues is a non-configurable getter for the global object's method, replaced above.
  const cryptoModule = require('node:crypto') as object;
  set<() => string>(cryptoModule, 'randomUUID', (real) => () => (current === undefined ? real() : uuidFrom(current.cryptoRandom)));
  set<Fn>(cryptoModule, 'randomBytes', (real) => (size: number, cb?: (err: Error | null, buf: Buffer) => void): unknown => {
    if (current === undefined) return real(size, cb);
    const buf = Buffer.alloc(size);
    fillRandom(current.cryptoRandom, buf);
    if (cb === undefined) return buf;
    queueMicrotask(() => cb(null, buf));
    return undefined;
  });
  set<Fn>(cryptoModule, 'randomInt', (real) => (a: number, b?: unknown, c?: unknown): unknown => {
    if (current === undefined) return real(a, b, c);
    const [min, max, cb] = typeof b === 'number' ? [a, b, c] : [0, a, b];
    const n = min + Math.floor(current.cryptoRandom.next() * (max - min));
    if (typeof cb !== 'function') return n;
    queueMicrotask(() => (cb as (err: Error | null, n: number) => void)(null, n));
    return undefined;
  });

  // Real I/O: refused during a run, which then ends with the first one.
  // Called with the socket as `this`, as the method it replaces.
  const realConnect = Reflect.get(Socket.prototype, 'connect') as Fn;
  set(Socket.prototype, 'connect', () =>
    function connect(this: Socket, ...args: unknown[]): unknown {
      if (current === undefined) return realConnect.apply(this, args);
      throw refuse(current, `net.connect ${describeConnect(args)}`);
    },
  );
  const refuseAll = (module: Record<string, unknown>, names: readonly string[], prefix: string, promises: boolean): void => {
    for (const name of names) {
      if (typeof module[name] !== 'function') continue;
      set<Fn>(module, name, (real) => (...args: unknown[]): unknown => {
        if (current === undefined) return real(...args);
        const err = refuse(current, `${prefix}.${name}${typeof args[0] === 'string' ? ` ${args[0]}` : ''}`);
        if (promises) return Promise.reject(err);
        throw err;
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
}
