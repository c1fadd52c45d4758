/**
 * Writing answers: JSON bodies, error Statuses, and the output encodings a client can ask for with
 * Accept (plain objects, meta.k8s.io Tables, PartialObjectMetadata).
 */
import type { ServerResponse } from 'node:http';
import { StatusError } from '../../../apimachinery/errors.ts';
import { apiVersionString } from '../resources.ts';
import { internalError } from '../status.ts';
import type { StoredObject } from '../storage.ts';
import { partialMetadata, toTable } from '../table.ts';
import type { Obj, RequestScope, Target } from './scope.ts';

/** The output encoding negotiated from the Accept header. */
export type Render = { as: 'object' } | { as: 'table'; apiVersion: string } | { as: 'metadata' };

/**
 * Picks the first acceptable encoding of an Accept header: JSON objects, or the meta.k8s.io Table /
 * PartialObjectMetadata conversions; anything else offered (protobuf, aggregated discovery) falls back to JSON.
 */
export function parseAccept(header: string | undefined): Render {
  if (header === undefined || header === '') return { as: 'object' };
  for (const part of header.split(',')) {
    const [type, ...params] = part.split(';').map((s) => s.trim());
    const p: Record<string, string> = {};
    for (const kv of params) {
      const eq = kv.indexOf('=');
      if (eq > 0) p[kv.slice(0, eq).trim().toLowerCase()] = kv.slice(eq + 1).trim();
    }
    const t = (type ?? '').toLowerCase();
    if (t !== 'application/json' && t !== '*/*' && t !== 'application/*') continue;
    if (p.as === undefined) return { as: 'object' };
    if (p.g !== 'meta.k8s.io') continue;
    if (p.as === 'Table' && (p.v === 'v1' || p.v === 'v1beta1')) return { as: 'table', apiVersion: `meta.k8s.io/${p.v}` };
    if ((p.as === 'PartialObjectMetadata' || p.as === 'PartialObjectMetadataList') && (p.v === 'v1' || p.v === 'v1beta1')) return { as: 'metadata' };
  }
  // Only unsupported encodings (protobuf, aggregated discovery) were offered: answer JSON.
  return { as: 'object' };
}

/** Replaces the leading apiVersion of an encoded object (objects are stored with apiVersion first). */
export function withApiVersion(json: string, apiVersion: string): string {
  const m = /^\{"apiVersion":("(?:[^"\\]|\\.)*")/.exec(json);
  if (m === null) {
    const o = JSON.parse(json) as Obj;
    o.apiVersion = apiVersion;
    return JSON.stringify(o);
  }
  if (m[1] === JSON.stringify(apiVersion)) return json;
  return `{"apiVersion":${JSON.stringify(apiVersion)}${json.slice(m[0].length)}`;
}

/**
 * The encoded object without its apiVersion and kind: items of a built-in resource's List carry no
 * TypeMeta (the List's own kind/apiVersion say what they are), as kube-apiserver encodes typed lists.
 * Custom resources are unstructured and keep theirs.
 */
export function withoutTypeMeta(json: string): string {
  const m = /^\{"apiVersion":"(?:[^"\\]|\\.)*","kind":"(?:[^"\\]|\\.)*",?/.exec(json);
  if (m !== null) return `{${json.slice(m[0].length)}`;
  const { apiVersion: _a, kind: _k, ...rest } = JSON.parse(json) as Obj;
  return JSON.stringify(rest);
}

/** A stored object encoded in the version of the request's URL (custom resources convert with strategy None). */
export function encodeStored(t: Target, s: StoredObject): string {
  return withApiVersion(s.json, apiVersionString(t.r.group, t.r.version));
}

/** One object in the negotiated encoding. */
export function renderOne(scope: RequestScope, t: Target, s: StoredObject, render: Render): string {
  if (render.as === 'table') return JSON.stringify({ ...toTable(t.r, [s], { includeObject: 'Metadata', noHeaders: false, now: scope.config.clock.now(), listMeta: { resourceVersion: String(s.rv) } }), apiVersion: render.apiVersion });
  if (render.as === 'metadata') return JSON.stringify(partialMetadata(s.obj));
  return encodeStored(t, s);
}

/** Writes a complete answer with its Content-Length. */
export function send(res: ServerResponse, code: number, body: string, contentType = 'application/json'): void {
  // Encode once: large lists would otherwise be measured and encoded separately.
  const bytes = Buffer.from(body);
  res.writeHead(code, { 'Content-Type': contentType, 'Cache-Control': 'no-cache, private', 'Content-Length': bytes.length });
  res.end(bytes);
}

/**
 * Answers with the Status of a failure (a StatusError's own, or 500 InternalError for anything else),
 * with Retry-After when the Status asks for it; a response already under way is cut off instead.
 */
export function sendError(res: ServerResponse, err: unknown): void {
  const e = err instanceof StatusError ? err : internalError(err instanceof Error ? err.message : String(err));
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const code = e.status.code ?? 500;
  const headers: Record<string, string> = { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' };
  const retry = e.status.details?.retryAfterSeconds;
  if (retry !== undefined && retry > 0) headers['Retry-After'] = String(retry);
  res.writeHead(code, headers);
  res.end(JSON.stringify(e.status));
}
