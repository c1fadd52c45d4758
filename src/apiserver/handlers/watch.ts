/**
 * WATCH: a {@link WatchStream} that starts with a replay (history since a resourceVersion, or the
 * current state for resourceVersion 0 / sendInitialEvents) and then follows the store's changes,
 * with bookmarks, the watch timeout and a 410 ERROR event for a resourceVersion older than the watch
 * cache's window (watch-cache.ts) or than the compacted history. As the cacher's watchers, it sends only
 * events after the requested revision, also when that revision is still in the future.
 */
import type { ServerResponse } from 'node:http';
import { newStatus, StatusError, StatusReason } from '../../apimachinery/errors.ts';
import { InitialEventsEndAnnotation } from '../../apimachinery/watch.ts';
import { apiVersionString } from '../resources.ts';
import { invalid, requiredCause } from '../status.ts';
import { RevisionCompactedError, type ChangeType, type Storage, type StoredObject } from '../storage.ts';
import { partialMetadata, toTable } from '../table.ts';
import { WatchStream, type ObjectEncoder } from '../watch-stream.ts';
import { protobufMediaType } from '../protobuf.ts';
import { encodeProtobufWatchEvent } from '../../runtime/protobuf/encode.ts';
import { intParam, objectFilter, parseResourceVersion, parseSelectors, validateListOptions } from './list-options.ts';
import { boolParam } from './request-info.ts';
import { converterContext, convertsWithWebhook } from '../registry/apiextensions/webhook-converter.ts';
import { versionWatchCache } from '../registry/apiextensions/version-watch-cache.ts';
import { encodeInVersion, tableOptions, type Render } from './response.ts';
import { storeOf, type Obj, type RequestScope, type Target } from './scope.ts';
import { shardSelectionOf, withShard } from '../sharding.ts';

/** A JSON watch line as a protobuf frame; undefined for a line that is not a well-formed event. */
function protobufWatchFrame(line: string): Buffer | undefined {
  let event: { type?: unknown; object?: unknown };
  try {
    event = JSON.parse(line) as { type?: unknown; object?: unknown };
  } catch {
    return undefined;
  }
  if (typeof event.type !== 'string' || typeof event.object !== 'object' || event.object === null) return undefined;
  return encodeProtobufWatchEvent(event.type, event.object as Obj);
}

/** Serves a watch request; the stream registers itself in `scope.watches` until it closes. */
export function watchResource(scope: RequestScope, t: Target, q: URLSearchParams, render: Render, res: ServerResponse): void {
  const { storage, config } = scope;
  // NegotiateOutputMediaTypeStream negotiates among every media type, then refuses one without a stream
  // serializer (YAML): 406, the Status itself in YAML.
  if (render.format === 'yaml') throw new StatusError(newStatus(406, StatusReason.NotAcceptable, 'only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch'));
  const sel = parseSelectors(t, q);
  const filter = withShard(objectFilter(t, sel, t.name), shardSelectionOf(scope.config.featureGates, q));
  const store = storeOf(t);
  const rvParam = q.get('resourceVersion') ?? '';
  const bookmarks = boolParam(q, 'allowWatchBookmarks');
  const sendInitial = q.get('sendInitialEvents');
  validateListOptions(q, true);
  if (sendInitial === 'true' && !bookmarks) throw invalid('meta.k8s.io', 'ListOptions', '', [requiredCause('allowWatchBookmarks', 'sendInitialEvents requires setting allowWatchBookmarks to true')]);
  const timeoutParam = intParam(q, 'timeoutSeconds');
  parseResourceVersion(rvParam, '');
  const n = rvParam === '' ? 0 : Number(rvParam);
  // Without timeoutSeconds kube-apiserver draws the timeout in [min-request-timeout, 2 × it) (get.go).
  const timeoutSeconds = timeoutParam !== undefined && timeoutParam > 0 ? timeoutParam : config.random === undefined ? config.defaultWatchTimeoutSeconds : Math.floor(config.defaultWatchTimeoutSeconds * (1 + config.random()));
  const apiVersion = apiVersionString(t.r.group, t.r.version);

  let encode: ObjectEncoder | undefined;
  if (render.as === 'table') {
    let first = true;
    const includeObject = tableOptions(q, render);
    encode = (s) => {
      const table = toTable(t.r, [s], { includeObject, noHeaders: !first, now: config.clock.now(), listMeta: { resourceVersion: String(s.rv) } });
      first = false;
      return JSON.stringify({ ...table, apiVersion: render.apiVersion });
    };
  } else if (render.as === 'metadata') encode = (s) => JSON.stringify(partialMetadata(s.obj));
  // Custom resources may be stored under another served version: convert (strategy None) per watcher.
  else if (t.r.custom || t.r.storage !== undefined) encode = (s) => encodeInVersion(t.r, s.json);

  // Decide the starting point before writing anything so that a too-old version still gets a 200 stream.
  // sendInitialEvents=false with no resourceVersion starts from now, without a replay.
  const initial = sendInitial === 'true' || (sendInitial === null && n === 0);
  const fromNow = sendInitial === 'false' && n === 0;
  let replay: ReturnType<Storage['changesSince']> = [];
  // The revision the 410 names: the oldest one the window (or the history) can start from.
  let tooOld: number | undefined;
  if (!initial && !fromNow) {
    tooOld = storage.watchCache?.tooOld(store, n);
    if (tooOld === undefined) {
      try {
        replay = n >= storage.revision ? [] : storage.changesSince(store, n);
      } catch (err) {
        if (!(err instanceof RevisionCompactedError)) throw err;
        tooOld = err.compacted;
      }
    }
  }
  // Built-in kinds asked for in protobuf get length-delimited WatchEvent frames, as kube-apiserver's.
  const frame = render.format === 'protobuf' && render.as !== 'table' && !t.r.custom ? protobufWatchFrame : undefined;
  // Frames are encoded from the stored object, not from its JSON line parsed again: objects sent as
  // stored share one frame per change among all watchers; PartialObjectMetadata is built per watcher.
  // Kinds stored in another version (converted through JSON) keep the line path.
  const typed = (obj: Obj): Obj => (obj.apiVersion === apiVersion && obj.kind === t.r.kind ? obj : { ...obj, apiVersion, kind: t.r.kind });
  const frameEvent: ((type: ChangeType, s: StoredObject) => Buffer) | undefined =
    frame === undefined || convertsWithWebhook(t.r)
      ? undefined
      : render.as === 'metadata'
        ? (type, s) => encodeProtobufWatchEvent(type, partialMetadata(s.obj) as Obj)
        : encode === undefined
          ? (type, s) => encodeProtobufWatchEvent(type, typed(s.obj))
          : undefined;
  const contentType = frame === undefined ? 'application/json' : `${protobufMediaType};stream=watch`;
  res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();
  const kind = t.r.kind;
  const bookmarkLine = (end: boolean): string => {
    const metadata: Obj = { resourceVersion: String(storage.revision) };
    if (end) metadata.annotations = { [InitialEventsEndAnnotation]: 'true' };
    // Built-in kinds encode their typed (empty) object: its zero creationTimestamp is null.
    if (!t.r.custom) metadata.creationTimestamp = null;
    const object = render.as === 'metadata' ? { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata } : { kind, apiVersion, metadata };
    return JSON.stringify({ type: 'BOOKMARK', object });
  };
  let unsubscribe = (): void => {};
  const cache = versionWatchCache(storage, scope.registry, t.r, converterContext(config.clock, config.webhookServices));
  const stream = new WatchStream({
    res,
    resource: t.r.resource,
    store,
    filter,
    encode,
    faults: scope.faults,
    clock: config.clock,
    timeoutMs: timeoutSeconds * 1000,
    bookmarkIntervalMs: bookmarks ? config.bookmarkIntervalMs : undefined,
    bookmark: bookmarkLine,
    // A webhook-converted version is watched through its watch cache's conversions (one per written state,
    // shared by every watch), metadata-only watches too, as v1.24's cacher decodes before anything else.
    convert: cache === undefined ? undefined : (s) => cache.get(s),
    ...(frame === undefined ? {} : { frame }),
    ...(frameEvent === undefined ? {} : { frameEvent, shareFrames: render.as !== 'metadata' }),
    onClose: () => {
      unsubscribe();
      scope.watches.delete(stream);
    },
  });
  scope.watches.add(stream);
  if (scope.faults.takeMalformed(t.r.resource)) stream.enqueueRaw('{"type":"MODIFIED","object":{this is not json');
  if (tooOld !== undefined) {
    const status = newStatus(410, StatusReason.Expired, `too old resource version: ${n} (${tooOld})`);
    stream.enqueueRaw(JSON.stringify({ type: 'ERROR', object: status }));
    stream.end();
    return;
  }
  if (initial) {
    for (const s of storage.listAt(store, storage.revision, { namespace: t.namespace })) if (filter(s.obj)) stream.enqueueObject('ADDED', s);
    if (sendInitial === 'true') stream.enqueueRaw(bookmarkLine(true));
  } else {
    for (const c of replay) stream.enqueueChange(c);
  }
  // A watch from a revision still in the future gets only what comes after it (cacheWatcher's filter).
  const after = initial || fromNow ? 0 : n;
  unsubscribe = storage.subscribe(store, (c) => {
    if (c.rv > after) stream.enqueueChange(c);
  });
}
