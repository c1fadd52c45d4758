/**
 * LIST: a consistent snapshot of one resource at a revision, filtered by selectors and cut into pages
 * with continue tokens, as kube-apiserver serves it: from the watch cache (its latest state, after waiting
 * for a resourceVersion it has not reached, then 504) unless the request needs etcd (cacher.go
 * shouldDelegateList: no resourceVersion, Exact, a continue token, or a limit with a resourceVersion other
 * than "0"), which reads an exact revision for Exact and the legacy `resourceVersion=N&limit=M` (410 when
 * compacted, etcd's "future revision" error past the current one) and the latest for NotOlderThan.
 */
import type { ServerResponse } from 'node:http';
import { StatusError, newStatus, StatusReason } from '../../apimachinery/errors.ts';
import { isObject } from '../object-meta.ts';
import { apiVersionString } from '../resources.ts';
import { badRequest, expired, untypedError } from '../status.ts';
import { RevisionCompactedError, sortKeysDeep, type StoredObject } from '../storage.ts';
import { partialMetadata, toTable } from '../table.ts';
import { waitUntilFresh } from '../watch-cache.ts';
import { GoJsonSyntaxError, parseGoJson } from '../schema/go-json.ts';
import { intParam, objectFilter, parseResourceVersion, parseSelectors, validateListOptions } from './list-options.ts';
import { converterContext, convertsWithWebhook, storedInRequestVersion } from '../registry/apiextensions/webhook-converter.ts';
import { versionWatchCache } from '../registry/apiextensions/version-watch-cache.ts';
import { checkMetadataShape, encodeInVersion, sendObject, sendObjectValue, tableOptions, withoutTypeMeta, type Render } from './response.ts';
import { storeOf, type Obj, type RequestScope, type Target } from './scope.ts';
import { shardSelectionOf, withShard } from '../sharding.ts';

/** Kube's continue token: base64 JSON {v, rv, start}. */
interface ContinueToken {
  rv: number;
  start: string;
}

function encodeContinue(rv: number, lastKey: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start: `${lastKey}\u0000` })).toString('base64url');
}

/** Decodes a continue token; rv -1 (handed out with a 410 for a compacted snapshot) means "continue at the latest revision". */
function decodeContinue(token: string): ContinueToken {
  // storage.DecodeContinue's errors wrapped by the etcd3 store's GetList.
  const fail = (why: string): never => {
    throw badRequest(`invalid continue token: continue key is not valid: ${why}`);
  };
  let o: unknown;
  try {
    o = parseGoJson(Buffer.from(token, 'base64url').toString('latin1'));
  } catch (err) {
    if (err instanceof GoJsonSyntaxError) fail(err.message);
    throw err;
  }
  if (isObject(o) && o.v === 'meta.k8s.io/v1' && typeof o.rv === 'number' && o.rv !== 0 && typeof o.start === 'string') return { rv: o.rv, start: o.start };
  return fail('incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
}

// etcd3 store's messages for lists at a compacted revision (apiserver/pkg/storage/etcd3/store.go).
const expiredListMessage = 'The resourceVersion for the provided list is too old.';
const inconsistentContinueMessage =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/** storage.NewTooLargeResourceVersionError: 504 Timeout with the ResourceVersionTooLarge cause (retryAfterSeconds left out when 0). */
export function tooLargeResourceVersion(rv: number, current: number, retryAfterSeconds: number): StatusError {
  return new StatusError(
    newStatus(504, StatusReason.Timeout, `Timeout: Too large resource version: ${rv}, current: ${current}`, {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      ...(retryAfterSeconds > 0 ? { retryAfterSeconds } : {}),
    }),
  );
}

/** Serves GET on a collection without `watch`: one page of the list, in the negotiated encoding. */
export async function listResource(scope: RequestScope, t: Target, q: URLSearchParams, render: Render, res: ServerResponse): Promise<void> {
  const { storage } = scope;
  const sel = parseSelectors(t, q);
  const shard = shardSelectionOf(scope.config.featureGates, q);
  const filter = withShard(objectFilter(t, sel), shard);
  const store = storeOf(t);
  const rvParam = q.get('resourceVersion') ?? '';
  const match = q.get('resourceVersionMatch') ?? '';
  const cont = q.get('continue') ?? '';
  let limit = intParam(q, 'limit') ?? 0;
  if (limit < 0) limit = 0;
  intParam(q, 'timeoutSeconds');
  validateListOptions(q, false);
  const includeObject = tableOptions(q, render);
  checkMetadataShape(t, render, true);
  parseResourceVersion(rvParam, match);
  if (cont !== '' && rvParam !== '' && rvParam !== '0') throw badRequest('specifying resource version is not allowed when using continue');
  let snapshot = storage.revision;
  // Served by the watch cache (whose copies of a webhook-converted version are converted already).
  let fromCache = false;
  let startKey: string | undefined;
  if (cont !== '') {
    const token = decodeContinue(cont);
    if (token.rv > 0 && token.rv <= storage.compactedRevision && token.rv < storage.revision) {
      // As handleCompactedErrorForPaginatedList: 410 Expired carrying a token that continues at the latest revision.
      const status = newStatus(410, StatusReason.Expired, inconsistentContinueMessage);
      const latest = Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: -1, start: token.start })).toString('base64url');
      throw new StatusError({ ...status, metadata: { continue: latest } });
    }
    snapshot = token.rv < 0 ? storage.revision : token.rv;
    // Tokens carry the key relative to the list's prefix (the namespace's, for a list in a namespace).
    startKey = t.namespace === '' ? token.start : `${t.namespace}/${token.start}`;
  } else if (rvParam !== '') {
    const n = Number(rvParam);
    // The cacher serves a list unless it needs etcd (shouldDelegateList): Exact, or a limit with a resourceVersion other than "0".
    const fromEtcd = match === 'Exact' || (limit > 0 && n !== 0);
    if (!fromEtcd) {
      fromCache = true;
      // The watch cache waits for a revision it has not reached yet, then gives up (waitUntilFreshAndBlock).
      if (!(await waitUntilFresh(storage, scope.config.clock, n))) throw tooLargeResourceVersion(n, storage.revision, 1);
      // It serves its latest state, and ignores limit.
      snapshot = storage.revision;
      limit = 0;
    } else if (match === 'NotOlderThan') {
      // etcd reads the latest revision and then checks it (validateMinimumResourceVersion), with no retry advice.
      if (n > storage.revision) throw tooLargeResourceVersion(n, storage.revision, 0);
    } else {
      // Exact, and the legacy resourceVersion=N&limit=M, read etcd at revision N exactly.
      if (n > storage.revision) throw untypedError(500, 'etcdserver: mvcc: required revision is a future revision');
      if (n < storage.compactedRevision) throw expired(expiredListMessage);
      snapshot = n;
    }
  }
  let scan: { total: number; items: Iterable<StoredObject> };
  try {
    scan = storage.scan(store, snapshot, { namespace: t.namespace, ...(startKey === undefined ? {} : { startKey }) });
  } catch (err) {
    if (err instanceof RevisionCompactedError) throw expired(expiredListMessage);
    throw err;
  }
  const noSelectors = sel.label === undefined && sel.field === undefined && shard === undefined;
  const items: StoredObject[] = [];
  let continueToken: string | undefined;
  let remaining: number | undefined;
  let seen = 0;
  for (const c of scan.items) {
    seen++;
    // Like etcd3's GetList, any key after a full page means more, whether or not it matches the selectors.
    if (limit > 0 && items.length === limit) {
      const lastKey = items[items.length - 1]!.key;
      continueToken = encodeContinue(snapshot, t.namespace === '' ? lastKey : lastKey.slice(t.namespace.length + 1));
      if (noSelectors) remaining = scan.total - seen + 1;
      break;
    }
    if (!noSelectors && !filter(c.obj)) continue;
    items.push(c);
  }
  // Lists of custom resources are unstructured: their ListMeta always carries continue.
  const listMeta: Obj = t.r.custom && render.as === 'object' ? { continue: '', resourceVersion: String(snapshot) } : { resourceVersion: String(snapshot) };
  if (continueToken !== undefined) listMeta.continue = continueToken;
  if (remaining !== undefined) listMeta.remainingItemCount = remaining;
  if (convertsWithWebhook(t.r)) {
    // One webhook call per item, in order, as kube-apiserver v1.24 converts a list (checked against it);
    // tables too: printer columns are the request version's.
    const ctx = converterContext(scope.config.clock, scope.config.webhookServices);
    const cache = fromCache ? versionWatchCache(storage, scope.registry, t.r, ctx) : undefined;
    for (let i = 0; i < items.length; i++) items[i] = await (cache === undefined ? storedInRequestVersion(t.r, items[i]!, ctx) : cache.get(items[i]!));
  }
  if (shard !== undefined) listMeta.shardInfo = shard.info;
  if (render.as === 'table') {
    sendObject(res, 200, JSON.stringify({ ...toTable(t.r, items, { includeObject, noHeaders: false, now: scope.config.clock.now(), listMeta }), apiVersion: render.apiVersion }), render);
    return;
  }
  if (render.as === 'metadata') {
    sendObject(res, 200, JSON.stringify({ kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: listMeta, items: items.map((s) => partialMetadata(s.obj)) }), render);
    return;
  }
  const apiVersion = apiVersionString(t.r.group, t.r.version);
  if (t.r.custom) {
    // An unstructured list is a map too: apiVersion, items, kind, metadata (continue, remainingItemCount, resourceVersion).
    const meta = JSON.stringify(sortKeysDeep(listMeta));
    const encoded = items.map((s) => encodeInVersion(t.r, s.json));
    sendObject(res, 200, `{"apiVersion":${JSON.stringify(apiVersion)},"items":[${encoded.join(',')}],"kind":${JSON.stringify(t.r.listKind)},"metadata":${meta}}`, render);
    return;
  }
  const head = `{"kind":${JSON.stringify(t.r.listKind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":${JSON.stringify(listMeta)},"items":[`;
  const json = (): string => `${head}${items.map((s) => withoutTypeMeta(t.r.storage === undefined ? s.json : encodeInVersion(t.r, s.json))).join(',')}]}`;
  if (render.format === 'protobuf' && t.r.storage === undefined) {
    // Encoded from the stored objects: no JSON rendered and parsed again (items' TypeMeta is not in their messages).
    sendObjectValue(res, 200, { kind: t.r.listKind, apiVersion, metadata: listMeta, items: items.map((s) => s.obj) }, json, render);
    return;
  }
  sendObject(res, 200, json(), render);
}
