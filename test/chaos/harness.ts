/**
 * The chaos harness: an embedded API server, a chaos proxy in front of it, a SharedIndexInformer
 * reading through the proxy, a writer changing objects directly on the server, and a recorder that
 * checks every notification a handler receives against what the writer actually wrote.
 *
 * Invariants checked (see docs/reliability.md):
 * 1. Convergence: once the writer stops, the informer's store, the handler's own view built from
 *    notifications, and the server's contents are equal (keys and resourceVersions).
 * 2. Consistent history per key: an add only for an absent key, an update or delete only for a
 *    present one (so never an update after a delete without a new add); the old object of an update
 *    and a tombstone's object are exactly the last state notified; resourceVersions never go backwards.
 * 3. Nothing invented: every resourceVersion notified for a key is one the writer produced for it
 *    (a live state for adds and updates, a deletion for deletes).
 * 4. Duplicates only where upstream allows them: an update whose resourceVersion equals the old one
 *    (a relist re-delivering an unchanged object) only after a relist, at most one per object per relist.
 */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import type { ConfigMap } from '../../src/api/core/v1.ts';
import { startApiServer, startChaosProxy, type ApiServer, type ChaosConnection, type ChaosFault, type ChaosProxy } from '../../src/testing/index.ts';
import { newClientset, type Clientset } from '../../src/kubernetes/index.ts';
import type { ListOptions } from '../../src/apimachinery/options.ts';
import { DeletedFinalStateUnknown, ListWatch, SharedIndexInformer, newListWatchFromClient } from '../../src/tools/cache/index.ts';

export const namespace = 'default';

/** A tiny deterministic PRNG (mulberry32), so a failing scenario replays the same writes. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `cond` until true; fails after `limitMs` naming `what` (a deadline, not an assertion on time). */
export async function until(what: string, cond: () => boolean | Promise<boolean>, limitMs = 15_000): Promise<void> {
  const deadline = performance.now() + limitMs;
  while (!(await cond())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

const rvOf = (o: ConfigMap | undefined): number => Number(o?.metadata?.resourceVersion ?? NaN);
const keyOf = (o: ConfigMap): string => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

/**
 * Creates, updates and deletes configmaps from a fixed pool of names straight on the server (not
 * through the proxy), remembering every resourceVersion each write produced.
 */
export class Writer {
  readonly #cs: Clientset;
  readonly #random: () => number;
  readonly #names: string[];
  /** key → resourceVersions of live states (creates, updates). */
  readonly live = new Map<string, Set<number>>();
  /**
   * key → revision ranges [first, last] each holding one deletion of it. A DELETE answers with a
   * Status, not the deleted object, so a deletion's revision is known to lie between the server's
   * revision before the call and after it.
   */
  readonly deletions = new Map<string, Array<[number, number]>>();
  readonly #revision: () => number;
  /** Keys whose outcome is unknown (a write failed in flight); their history is not checked. */
  readonly uncertain = new Set<string>();
  readonly #present = new Set<string>();
  writes = 0;
  #loop: Promise<void> | undefined;
  #stop = false;

  constructor(cs: Clientset, revision: () => number, seed: number, poolSize = 12) {
    this.#cs = cs;
    this.#revision = revision;
    this.#random = prng(seed);
    this.#names = Array.from({ length: poolSize }, (_, i) => `cm-${i}`);
  }

  #record(obj: ConfigMap): void {
    const key = keyOf(obj);
    let set = this.live.get(key);
    if (set === undefined) this.live.set(key, (set = new Set()));
    set.add(rvOf(obj));
  }

  /** True when `rv` can be the revision of a deletion of `key`. */
  deletedAt(key: string, rv: number): boolean {
    return (this.deletions.get(key) ?? []).some(([first, last]) => rv >= first && rv <= last);
  }

  /** One random write: create an absent name, else update (2/3) or delete (1/3) it. */
  async step(): Promise<void> {
    const name = this.#names[Math.floor(this.#random() * this.#names.length)]!;
    const key = `${namespace}/${name}`;
    const client = this.#cs.coreV1().configMaps(namespace);
    try {
      if (!this.#present.has(key)) {
        this.#record(await client.create({ metadata: { name }, data: { v: String(this.writes) } }));
        this.#present.add(key);
      } else if (this.#random() < 2 / 3) {
        this.#record(await client.update({ metadata: { name }, data: { v: String(this.writes) } }));
      } else {
        const first = this.#revision() + 1;
        await client.delete(name);
        let ranges = this.deletions.get(key);
        if (ranges === undefined) this.deletions.set(key, (ranges = []));
        ranges.push([first, this.#revision()]);
        this.#present.delete(key);
      }
      this.writes++;
    } catch {
      // Only a server restart makes writes fail; the key's fate is then unknown until re-read.
      this.uncertain.add(key);
      try {
        await client.get(name);
        this.#present.add(key);
      } catch {
        this.#present.delete(key);
      }
    }
  }

  /** Writes `n` times in a row. */
  async burst(n: number): Promise<void> {
    for (let i = 0; i < n; i++) await this.step();
  }

  /** Writes continuously (one write every ~2 ms) until {@link Writer.stop}. */
  start(): void {
    this.#stop = false;
    this.#loop = (async () => {
      while (!this.#stop) {
        await this.step();
        await sleep(2);
      }
    })();
  }

  async stop(): Promise<void> {
    this.#stop = true;
    await this.#loop;
    this.#loop = undefined;
  }
}

/** Checks every notification one handler receives (invariants 2–4) and keeps the handler's view. */
export class HistoryRecorder {
  readonly #writer: Writer;
  /** The handler's view: key → last notified object. */
  readonly view = new Map<string, ConfigMap>();
  /** key → highest resourceVersion notified (deletions included). */
  readonly #highest = new Map<string, number>();
  readonly violations: string[] = [];
  notifications = 0;
  /** Updates that re-delivered the same resourceVersion (allowed after relists only). */
  sameVersionUpdates = 0;
  /** Deletes notified as tombstones (a relist noticed the deletion). */
  tombstones = 0;

  constructor(writer: Writer) {
    this.#writer = writer;
  }

  #violation(msg: string): void {
    if (this.violations.length < 20) this.violations.push(msg);
  }

  /** Checked once the writer stopped: a notification may arrive before the write's response does. */
  readonly #pending: Array<{ live: boolean; key: string; rv: number; what: string }> = [];

  #known(live: boolean, key: string, rv: number, what: string): void {
    this.#pending.push({ live, key, rv, what });
  }

  /** Checks invariant 3 for everything notified so far (call after the writer stopped). */
  checkKnown(): void {
    for (const { live, key, rv, what } of this.#pending.splice(0)) {
      if (this.#writer.uncertain.has(key)) continue;
      const known = live ? this.#writer.live.get(key)?.has(rv) === true : this.#writer.deletedAt(key, rv);
      if (!known) this.#violation(`${what} ${key}@${rv}: not a resourceVersion the writer produced for it`);
    }
  }

  #forward(key: string, rv: number, what: string, allowEqual: boolean): void {
    const prev = this.#highest.get(key) ?? 0;
    if (rv < prev || (rv === prev && !allowEqual)) this.#violation(`${what} ${key}@${rv}: resourceVersion went backwards (last ${prev})`);
    this.#highest.set(key, Math.max(prev, rv));
  }

  onAdd(obj: ConfigMap): void {
    this.notifications++;
    const key = keyOf(obj);
    const rv = rvOf(obj);
    if (this.view.has(key)) this.#violation(`add ${key}@${rv}: already present @${rvOf(this.view.get(key))}`);
    this.#known(true, key, rv, 'add');
    this.#forward(key, rv, 'add', false);
    this.view.set(key, obj);
  }

  onUpdate(old: ConfigMap, obj: ConfigMap): void {
    this.notifications++;
    const key = keyOf(obj);
    const rv = rvOf(obj);
    const last = this.view.get(key);
    if (last === undefined) this.#violation(`update ${key}@${rv}: not present (update after delete without add)`);
    else if (rvOf(last) !== rvOf(old)) this.#violation(`update ${key}@${rv}: old object @${rvOf(old)} is not the last notified @${rvOf(last)}`);
    if (rv === rvOf(old)) this.sameVersionUpdates++;
    this.#known(true, key, rv, 'update');
    this.#forward(key, rv, 'update', true);
    this.view.set(key, obj);
  }

  onDelete(obj: ConfigMap | DeletedFinalStateUnknown<ConfigMap>): void {
    this.notifications++;
    const tomb = obj instanceof DeletedFinalStateUnknown;
    const key = tomb ? obj.key : keyOf(obj);
    const state = tomb ? obj.obj : obj;
    const rv = rvOf(state);
    const last = this.view.get(key);
    if (last === undefined) this.#violation(`delete ${key}@${rv}: not present`);
    if (tomb) {
      this.tombstones++;
      if (last !== undefined && rvOf(last) !== rv) this.#violation(`tombstone ${key}@${rv}: last notified state is @${rvOf(last)}`);
    } else {
      this.#known(false, key, rv, 'delete');
      this.#forward(key, rv, 'delete', false);
    }
    this.view.delete(key);
  }
}

/** Options of one chaos world. */
export interface WorldOptions {
  /** Initial state by watch-list (default) or by LIST. */
  useWatchList?: boolean;
  seed?: number;
  /** Objects written before the informer starts. */
  initialWrites?: number;
}

/** Everything a scenario touches. */
export interface World {
  server: ApiServer;
  proxy: ChaosProxy;
  /** Talks to the server directly. */
  direct: Clientset;
  /** Talks through the proxy. */
  viaProxy: Clientset;
  writer: Writer;
  recorder: HistoryRecorder;
  informer: SharedIndexInformer<ConfigMap>;
  /** Initial-state requests (LISTs and watch-lists) the informer made, and plain watches. */
  relists: ListOptions[];
  watches: ListOptions[];
  /** Errors the reflector reported. */
  errors: unknown[];
  useWatchList: boolean;
  /** A request line regexp matching the informer's initial-state requests (LIST or watch-list). */
  relistRequest: RegExp;
  /** A request line regexp matching the informer's plain (resuming) watches. */
  watchRequest: RegExp;
  /** Starts the informer (done by {@link withWorld} unless `start: false`). */
  start(): Promise<void>;
}

// Client-side LIST timeout: a stalled LIST is abandoned after this (RestConfig.timeoutMs).
const listTimeoutMs = 1_000;
// Watches silent for longer than this are treated as half-open; the server sends bookmarks every 200 ms.
const watchIdleTimeoutMs = 1_200;
const bookmarkIntervalMs = 200;

/** Totals over every scenario of a process, for the report. */
export const totals = { scenarios: 0, proxyFaults: 0, serverFaults: 0, notifications: 0, writes: 0, relists: 0 };

/** Prints {@link totals} once the file's tests are done (figures for docs/reliability.md). */
export function printTotalsAfterAll(file: string): void {
  after(() => console.log(`chaos totals (${file}): ${JSON.stringify(totals)}`));
}

/**
 * Runs `fn` in a fresh world and then checks the invariants: stops the writer, waits until the
 * store, the handler's view and the server agree, and asserts there was no violation.
 */
export async function withWorld(options: WorldOptions & { start?: boolean }, fn: (w: World) => Promise<void>): Promise<World> {
  const realServer = await startApiServer({ bookmarkIntervalMs });
  // Counts the server faults a scenario injects (reset() is not a fault).
  let serverFaults = 0;
  const faults = new Proxy(realServer.faults, {
    get: (target, p, receiver) => {
      const v: unknown = Reflect.get(target, p, receiver);
      if (typeof v !== 'function') return v;
      return (...args: unknown[]): unknown => {
        if (p !== 'reset') serverFaults++;
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  const server = new Proxy(realServer, {
    get: (target, p) => {
      if (p === 'faults') return faults;
      const v: unknown = Reflect.get(target, p, target);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  const proxy = await startChaosProxy({ targetPort: Number(new URL(server.url).port) });
  const direct = newClientset({ host: server.url, qps: -1 });
  const viaProxy = newClientset({ host: `http://${proxy.address}`, qps: -1, timeoutMs: listTimeoutMs });
  const writer = new Writer(direct, () => realServer.revision(), options.seed ?? 1);
  const recorder = new HistoryRecorder(writer);
  const relists: ListOptions[] = [];
  const watches: ListOptions[] = [];
  const errors: unknown[] = [];
  const base = newListWatchFromClient(viaProxy.coreV1().configMaps(namespace));
  const lw = new ListWatch<ConfigMap>({
    list: (o) => {
      const { signal: _s, ...rest } = o;
      relists.push(rest);
      return base.list(o);
    },
    watch: (o) => {
      const { signal: _s, ...rest } = o;
      (o.sendInitialEvents === true ? relists : watches).push(rest);
      return base.watch(o);
    },
  });
  const useWatchList = options.useWatchList ?? true;
  const informer = new SharedIndexInformer<ConfigMap>(lw, {
    objectDescription: 'configmaps',
    onHandlerError: (err) => recorder.violations.push(`handler failed: ${String(err)}`),
    // Short fixed backoff keeps scenarios quick; the backoff policy itself is unit-tested on a fake clock.
    reflector: { backoffManager: { nextDelay: () => 25 }, useWatchList, watchIdleTimeoutMs },
  });
  informer.setWatchErrorHandler((_r, err) => void errors.push(err));
  informer.addEventHandler({
    onAdd: (o) => recorder.onAdd(o),
    onUpdate: (o, n) => recorder.onUpdate(o, n),
    onDelete: (o) => recorder.onDelete(o),
  });
  const stop = new AbortController();
  let running: Promise<void> | undefined;
  const world: World = {
    server,
    proxy,
    direct,
    viaProxy,
    writer,
    recorder,
    informer,
    relists,
    watches,
    errors,
    useWatchList,
    relistRequest: useWatchList ? /configmaps\?.*sendInitialEvents=true/ : /configmaps(\?(?!.*watch=true).*)? HTTP/,
    watchRequest: /configmaps\?(?!.*sendInitialEvents).*watch=true/,
    start: async () => {
      running ??= informer.run({ signal: stop.signal });
      await Promise.resolve();
    },
  };
  try {
    await writer.burst(options.initialWrites ?? 10);
    if (options.start !== false) {
      await world.start();
      await until('the informer to sync', () => informer.hasSynced());
    }
    await fn(world);
    await writer.stop();
    proxy.heal();
    server.faults.reset();
    await world.start();
    await converged(world);
    recorder.checkKnown();
    assert.deepEqual(recorder.violations, [], `history violations (seed ${options.seed ?? 1})`);
    const extraRelists = Math.max(0, relists.length - 1);
    // Invariant 4: same-version updates come only from relists, at most one per listed object.
    assert.ok(recorder.sameVersionUpdates <= extraRelists * 12, `${recorder.sameVersionUpdates} same-version updates for ${extraRelists} relists`);
    totals.scenarios++;
    const stats = proxy.stats();
    totals.proxyFaults += Object.values(stats.faults).reduce((a, b) => a + b, 0);
    totals.serverFaults += serverFaults;
    totals.notifications += recorder.notifications;
    totals.writes += writer.writes;
    totals.relists += extraRelists;
    return world;
  } finally {
    stop.abort();
    await writer.stop();
    await running;
    await proxy.stop();
    await server.stop();
    await Promise.all([direct.restClient.close(), viaProxy.restClient.close()]);
  }
}

async function serverState(w: World): Promise<string[]> {
  const list = await w.direct.coreV1().configMaps(namespace).list();
  return list.items.map((c) => `${keyOf(c)}@${rvOf(c)}`).sort();
}

const stateOf = (objs: Iterable<ConfigMap>): string[] => [...objs].map((c) => `${keyOf(c)}@${rvOf(c)}`).sort();

/** Waits until store, handler view and server agree (invariant 1); on timeout shows the difference. */
export async function converged(w: World): Promise<void> {
  let last: { store: string[]; view: string[]; server: string[] } = { store: [], view: [], server: [] };
  try {
    await until('the cache to equal the server', async () => {
      last = { store: stateOf(w.informer.getStore().list()), view: stateOf(w.recorder.view.values()), server: await serverState(w) };
      return JSON.stringify(last.store) === JSON.stringify(last.server) && JSON.stringify(last.view) === JSON.stringify(last.server);
    });
  } catch (err) {
    assert.deepEqual({ store: last.store, view: last.view }, { store: last.server, view: last.server }, `not converged; reflector errors: ${w.errors.map(String).join('; ')}`);
    throw err;
  }
}

/** Forces a relist: the watch goes half-open while the writer writes, history is compacted, then the connection resets (→ 410 → relist). */
export async function forceRelist(w: World, writes = 5): Promise<void> {
  const before = w.relists.length;
  await injectWatch(w, { type: 'stall' });
  await w.writer.burst(writes);
  w.server.faults.compact();
  w.proxy.resetAll();
  await until('a relist', () => w.relists.length > before);
}

/** The proxied connections currently carrying a watch (their last request is a watch). */
export function watchConnections(w: World): ChaosConnection[] {
  return w.proxy.connections().filter((c) => /watch=true/.test(c.requests[c.requests.length - 1] ?? ''));
}

/** Applies `fault` to the connections carrying a watch; at least one must exist. */
export async function injectWatch(w: World, fault: ChaosFault): Promise<void> {
  await until('an open watch connection', () => watchConnections(w).length > 0);
  for (const c of watchConnections(w)) c.inject(fault);
}

/**
 * Waits until a watch is live now: a proxied watch connection, unfaulted, is being answered (the
 * server registered it), and the informer received an event written after this call (the writer
 * must be running).
 */
export async function liveWatch(w: World): Promise<void> {
  const rv = w.server.revision();
  await until('a live watch', () => Number(w.informer.lastSyncResourceVersion()) > rv && watchConnections(w).some((c) => c.fault === undefined && c.responseBytes > 0));
}
