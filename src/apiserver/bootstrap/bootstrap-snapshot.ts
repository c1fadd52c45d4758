/**
 * The bootstrap objects (bootstrap.ts, and the RBAC policy with `rbac`) written once per process and
 * shared: a fresh server starts from a copy instead of sending some 75 objects (250 with RBAC) through the
 * whole write path — admission, defaulting, validation, managedFields — which took most of its start time.
 *
 * The template is written on a clock frozen at a sentinel time and with a sentinel client CA; each server
 * gets a copy whose timestamps are its own clock's time, whose client CA is its own and whose uids are new,
 * so a client sees what the write path would have written (same objects, same resourceVersions 1..n,
 * same history): `bootstrap-snapshot.test.ts` compares the two. Only the time of every object is the
 * same instant, where the write path could straddle a second.
 */
import { randomUUID } from 'node:crypto';
import { FakeClock } from '../../util/clock/clock.ts';
import { Faults } from '../faults.ts';
import { ApiHandler } from '../handler.ts';
import { formatTime } from '../handlers/scope.ts';
import { ResourceRegistry } from '../resources.ts';
import { Storage, type Change, type StoredObject } from '../storage.ts';
import type { StorageSnapshot } from '../storage/interface.ts';
import { bootstrapObjects } from './bootstrap.ts';

// A time no server runs at, so its text can only come from the template's clock.
const sentinelTime = Date.UTC(2001, 1, 3, 4, 5, 6);
const sentinelClientCa = '@@kubeloom-bootstrap-client-ca@@';

/** What the bootstrap objects depend on, besides the time. */
export interface BootstrapTemplateKey {
  /** Whether the RBAC bootstrap policy is written. */
  readonly rbac: boolean;
  /** Whether extension-apiserver-authentication carries a client CA. */
  readonly clientCa: boolean;
}

const templates = new Map<string, StorageSnapshot>();

function template(key: BootstrapTemplateKey): StorageSnapshot {
  const id = `${key.rbac}/${key.clientCa}`;
  let t = templates.get(id);
  if (t === undefined) {
    const storage = new Storage(Number.MAX_SAFE_INTEGER);
    const noop = { closeWatches: (): void => {}, injectMalformedLine: (): number => 0, compact: (): void => {}, restart: async (): Promise<void> => {} };
    const handler = new ApiHandler(new ResourceRegistry(), storage, new Faults(noop), {
      token: undefined,
      rbac: key.rbac,
      bookmarkIntervalMs: 60_000,
      defaultWatchTimeoutSeconds: 1800,
      maxRequestBodyBytes: 3 * 1024 * 1024,
      clock: new FakeClock(sentinelTime),
    });
    bootstrapObjects(handler.internalScope(), key.clientCa ? { clientCaPem: sentinelClientCa } : {});
    if (key.rbac) handler.seedBootstrapPolicy();
    t = storage.snapshot();
    templates.set(id, t);
  }
  return t;
}

// What varies per server in a template object: the sentinel time, date or client CA, or the object's uid.
type Hole = 'time' | 'date' | 'ca' | 'uid';
// The changes to make in an object: key → a hole, or the changes within that member.
type Edits = Map<string | number, Hole | Edits>;

/** How to make a server's copy of one template object without parsing it again. */
interface Plan {
  readonly source: StoredObject;
  /** The JSON cut at each hole: parts[0] hole[0] parts[1] ... */
  readonly parts: readonly string[];
  readonly holes: readonly Hole[];
  /** The paths to the holes in the object; everything else is shared with the template (immutable). */
  readonly edits: Edits;
  readonly uid: string | undefined;
}

const sentinels: Readonly<Record<Exclude<Hole, 'uid'>, string>> = { time: formatTime(sentinelTime), date: formatTime(sentinelTime).slice(0, 10), ca: sentinelClientCa };

function findEdits(v: unknown, uid: string | undefined): Edits | Hole | undefined {
  if (typeof v === 'string') {
    if (v === uid) return 'uid';
    for (const [hole, text] of Object.entries(sentinels)) if (v === text) return hole as Hole;
    return undefined;
  }
  if (v === null || typeof v !== 'object') return undefined;
  const edits: Edits = new Map();
  const entries: Array<[string | number, unknown]> = Array.isArray(v) ? v.map((x, i): [number, unknown] => [i, x]) : Object.entries(v);
  for (const [k, x] of entries) {
    const e = findEdits(x, uid);
    if (e !== undefined) edits.set(k, e);
  }
  return edits.size === 0 ? undefined : edits;
}

function plan(source: StoredObject): Plan {
  const uid = (source.obj.metadata as { uid?: unknown } | undefined)?.uid;
  const u = typeof uid === 'string' ? uid : undefined;
  const found = findEdits(source.obj, u);
  const tokens = new Map<string, Hole>([...Object.entries(sentinels).map(([h, t]): [string, Hole] => [JSON.stringify(t), h as Hole]), ...(u === undefined ? [] : [[JSON.stringify(u), 'uid'] as [string, Hole]])]);
  const pattern = new RegExp([...tokens.keys()].map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
  const parts: string[] = [];
  const holes: Hole[] = [];
  let last = 0;
  for (const m of source.json.matchAll(pattern)) {
    parts.push(source.json.slice(last, m.index));
    holes.push(tokens.get(m[0])!);
    last = m.index + m[0].length;
  }
  parts.push(source.json.slice(last));
  return { source, parts, holes, edits: found === undefined || typeof found === 'string' ? new Map<string | number, Hole | Edits>() : found, uid: u };
}

function applyEdits(v: unknown, edits: Edits, values: Readonly<Record<Hole, string>>): unknown {
  const copy = (Array.isArray(v) ? [...(v as unknown[])] : { ...(v as Record<string, unknown>) }) as Record<string | number, unknown>;
  for (const [k, e] of edits) copy[k] = typeof e === 'string' ? values[e] : applyEdits(copy[k], e, values);
  return copy;
}

const plans = new WeakMap<StoredObject, Plan>();

/**
 * The bootstrap objects of a fresh server as a snapshot to restore: the process's template, with the
 * time `now` (a metav1.Time string), the client CA `clientCaPem` and new uids. Each copy shares with the
 * template every part of the object that does not vary (stored objects are immutable).
 */
export function bootstrapSnapshot(now: string, options: { rbac: boolean; clientCaPem?: string | undefined }): StorageSnapshot {
  const t = template({ rbac: options.rbac, clientCa: options.clientCaPem !== undefined });
  const base = { time: now, date: now.slice(0, 10), ca: options.clientCaPem ?? sentinelClientCa };
  const uids = new Map<string, string>();
  const copies = new Map<StoredObject, StoredObject>();
  const copy = (s: StoredObject): StoredObject => {
    let c = copies.get(s);
    if (c !== undefined) return c;
    let p = plans.get(s);
    if (p === undefined) {
      p = plan(s);
      plans.set(s, p);
    }
    let uid = '';
    if (p.uid !== undefined) {
      uid = uids.get(p.uid) ?? randomUUID();
      uids.set(p.uid, uid);
    }
    const values = { ...base, uid };
    let json = p.parts[0]!;
    for (let i = 0; i < p.holes.length; i++) json += JSON.stringify(values[p.holes[i]!]) + p.parts[i + 1]!;
    c = { obj: applyEdits(s.obj, p.edits, values) as Record<string, unknown>, json, rv: s.rv, key: s.key };
    copies.set(s, c);
    return c;
  };
  const history = t.history.map((h): Change => ({ rv: h.rv, store: h.store, type: h.type, key: h.key, object: copy(h.object), prev: h.prev === undefined ? undefined : copy(h.prev) }));
  const objects = new Map<string, Map<string, StoredObject>>();
  for (const [store, items] of t.objects) {
    const m = new Map<string, StoredObject>();
    for (const [k, v] of items) m.set(k, copy(v));
    objects.set(store, m);
  }
  return { revision: t.revision, compactedRevision: t.compactedRevision, objects, history };
}
