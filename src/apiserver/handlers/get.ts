/**
 * GET of one object, and of a pod's log (canned lines from `PodLogs`, optionally followed). A GET with a
 * resourceVersion is the watch cache's (cacher.go Get): the value must parse (an untyped 500 otherwise), a
 * revision the cache has not reached is waited for and then answered 504, and the latest state is served.
 */
import type { ServerResponse } from 'node:http';
import { notFound } from '../status.ts';
import { waitUntilFresh } from '../watch-cache.ts';
import { tooLargeResourceVersion } from './list.ts';
import { parseResourceVersion } from './list-options.ts';
import { boolParam } from './request-info.ts';
import { checkMetadataShape, renderOne, sendObject, sendObjectValue, storedValue, tableOptions, type Render } from './response.ts';
import { objectKey, storeOf, type RequestScope, type Target } from './scope.ts';
import { converterContext, storedInRequestVersion } from '../registry/apiextensions/webhook-converter.ts';
import { versionWatchCache } from '../registry/apiextensions/version-watch-cache.ts';

/** Serves GET of a named object in the negotiated encoding; 404 when it does not exist. */
export async function getResource(scope: RequestScope, t: Target, q: URLSearchParams, render: Render, res: ServerResponse): Promise<void> {
  const includeObject = tableOptions(q, render);
  checkMetadataShape(t, render, false);
  const rv = q.get('resourceVersion') ?? '';
  parseResourceVersion(rv, '');
  if (rv !== '' && !(await waitUntilFresh(scope.storage, scope.config.clock, Number(rv)))) throw tooLargeResourceVersion(Number(rv), scope.storage.revision, 1);
  const s = scope.storage.get(storeOf(t), objectKey(t.namespace, t.name!));
  if (s === undefined) throw notFound(t.r, t.name!);
  // Metadata-only reads convert too: kube-apiserver's storage decodes into the request's version before
  // the handler transforms the object to PartialObjectMetadata (checked on v1.24: one review).
  // A GET with a resourceVersion is served by the watch cache, whose copies are converted already.
  const ctx = converterContext(scope.config.clock, scope.config.webhookServices);
  const cache = rv === '' ? undefined : versionWatchCache(scope.storage, scope.registry, t.r, ctx);
  const inVersion = await (cache === undefined ? storedInRequestVersion(t.r, s, ctx) : cache.get(s));
  const value = render.as === 'object' && render.format === 'protobuf' ? storedValue(t, inVersion) : undefined;
  if (value !== undefined) sendObjectValue(res, 200, value, () => renderOne(scope, t, inVersion, render, includeObject), render);
  else sendObject(res, 200, renderOne(scope, t, inVersion, render, includeObject), render);
}

/**
 * Serves GET .../pods/{name}/log: the container's lines (`container`, `tailLines`), then, with
 * `follow`, keeps the response open for lines appended later. 404 only when neither the pod nor logs exist.
 */
export function getLog(scope: RequestScope, t: Target, q: URLSearchParams, res: ServerResponse): void {
  const { storage, logs } = scope;
  const name = t.name!;
  const pod = storage.get('pods', objectKey(t.namespace, name));
  const container = q.get('container') ?? undefined;
  const lines = logs.get(t.namespace, name, container);
  if (pod === undefined && lines === undefined) throw notFound(t.r, name);
  let out = lines ?? [];
  const tail = q.get('tailLines');
  if (tail !== null && Number(tail) >= 0) out = Number(tail) === 0 ? [] : out.slice(-Number(tail));
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-cache, private' });
  const text = out.map((l) => `${l}\n`).join('');
  if (!boolParam(q, 'follow')) {
    res.end(text);
    return;
  }
  if (text !== '') res.write(text);
  logs.follow(t.namespace, name, container, res);
}
