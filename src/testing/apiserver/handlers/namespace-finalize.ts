/**
 * PUT on namespaces/<name>/finalize (`pkg/registry/core/namespace/storage/storage.go` FinalizeREST):
 * sets the namespace's spec.finalizers and nothing else; a namespace marked for deletion with no
 * finalizers left is removed — its contents are not touched, as upstream.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isObject, metaOf } from '../object-meta.ts';
import { notFound } from '../status.ts';
import { parseBody } from './request-body.ts';
import { encodeStored, sendObject, type Render } from './response.ts';
import type { RequestScope, Target } from './scope.ts';
import { createOptions } from './write-options.ts';

/** Serves PUT of namespaces/<name>/finalize. */
export function finalizeNamespace(scope: RequestScope, t: Target, q: URLSearchParams, req: IncomingMessage, body: Buffer, render: Render, res: ServerResponse): void {
  const opts = createOptions(q, req, 'UpdateOptions');
  const sent = parseBody(req, body, 'Namespace');
  const name = t.name!;
  const existing = scope.storage.get('namespaces', name);
  if (existing === undefined) throw notFound(t.r, name);
  const next = structuredClone(existing.obj);
  const spec = isObject(sent.spec) ? sent.spec : {};
  const finalizers = Array.isArray(spec.finalizers) ? spec.finalizers.map(String) : [];
  next.spec = finalizers.length > 0 ? { finalizers } : {};
  const meta = metaOf(next);
  const marked = meta.deletionTimestamp !== undefined && meta.deletionTimestamp !== null;
  const metaFinalizers = Array.isArray(meta.finalizers) ? meta.finalizers : [];
  if (opts.dryRun) {
    sendObject(res, 200, JSON.stringify(next), render);
    return;
  }
  const stored = scope.storage.write('namespaces', name, marked && finalizers.length === 0 && metaFinalizers.length === 0 ? 'DELETED' : 'MODIFIED', next);
  sendObject(res, 200, encodeStored(t, stored), render);
}
