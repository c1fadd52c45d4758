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
const sentinelTimestamp = JSON.stringify(formatTime(sentinelTime));
const sentinelDate = JSON.stringify(formatTime(sentinelTime).slice(0, 10));
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

/**
 * The bootstrap objects of a fresh server as a snapshot to restore: the process's template, with the
 * time `now` (a metav1.Time string), the client CA `clientCaPem` and new uids.
 */
export function bootstrapSnapshot(now: string, options: { rbac: boolean; clientCaPem?: string | undefined }): StorageSnapshot {
  const t = template({ rbac: options.rbac, clientCa: options.clientCaPem !== undefined });
  const timestamp = JSON.stringify(now);
  const date = JSON.stringify(now.slice(0, 10));
  const clientCa = options.clientCaPem === undefined ? undefined : JSON.stringify(options.clientCaPem);
  const uids = new Map<string, string>();
  const copies = new Map<StoredObject, StoredObject>();
  const copy = (s: StoredObject): StoredObject => {
    let c = copies.get(s);
    if (c !== undefined) return c;
    let json = s.json.replaceAll(sentinelTimestamp, () => timestamp).replaceAll(sentinelDate, () => date);
    if (clientCa !== undefined) json = json.replaceAll(JSON.stringify(sentinelClientCa), () => clientCa);
    const uid = (s.obj.metadata as { uid?: unknown } | undefined)?.uid;
    if (typeof uid === 'string') {
      let fresh = uids.get(uid);
      if (fresh === undefined) {
        fresh = randomUUID();
        uids.set(uid, fresh);
      }
      json = json.replaceAll(JSON.stringify(uid), () => JSON.stringify(fresh));
    }
    c = { obj: JSON.parse(json) as Record<string, unknown>, json, rv: s.rv, key: s.key };
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
