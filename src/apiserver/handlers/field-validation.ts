/**
 * fieldValidation in the write handlers (k8s.io/apiserver/pkg/endpoints/handlers/create.go, update.go,
 * patch.go): the problems of a body are found as it is decoded — duplicate keys, then unknown fields
 * (built-in kinds: against the generated API model; custom resources: what their schema prunes) — and
 * reported before anything else happens: Strict fails the request, Warn adds Warning headers that also go
 * out with a failure later on. Patches check the patched object; server-side apply refuses unknown fields
 * in the applied object whatever the directive, as structured-merge-diff cannot type them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { builtinKnownFields } from '../registry/builtin-fields.ts';
import { unknownFieldPaths } from '../registry/apiextensions/custom-resource-schema.ts';
import {
  bodyFieldProblems, fieldValidationOf, jsonFieldProblems, strictDecodingError, strictPatchError, typedPatchError, unknownFieldProblems, warningHeaders, type FieldProblem,
} from '../registry/field-validation.ts';
import { mediaType } from './request-body.ts';
import type { Obj, Target } from './scope.ts';

// Bodies decoded from protobuf carry no JSON text to scan.
const protobufMediaType = 'application/vnd.kubernetes.protobuf';

/**
 * Adds Warning header values after those already set (webhook warnings come after decoding's); a value
 * already there is not repeated, as the apiserver's warning recorder keeps each text once.
 */
export function addWarnings(res: ServerResponse, values: readonly string[]): void {
  const prev = res.getHeader('Warning');
  const all = prev === undefined ? [] : Array.isArray(prev) ? prev.map(String) : [String(prev)];
  for (const v of values) if (!all.includes(v)) all.push(v);
  if (all.length > 0) res.setHeader('Warning', all);
}

// Strict: throw; Warn: warn; Ignore: nothing.
function report(q: URLSearchParams, res: ServerResponse, problems: readonly FieldProblem[], strict: () => Error): void {
  const mode = fieldValidationOf(q);
  if (mode === 'Ignore' || problems.length === 0) return;
  if (mode === 'Strict') throw strict();
  addWarnings(res, warningHeaders(problems));
}

// The fields a target's objects may have: the model's for built-ins, undefined for custom resources (pruning tells).
function knownFieldsOf(t: Target): ReturnType<typeof builtinKnownFields> {
  return t.r.custom ? undefined : builtinKnownFields(t.r.group, t.r.version, t.r.resource);
}

/**
 * Checks the body of a create or update (`decoded` as read, before any defaulting): Strict throws the
 * strict decoding error (400), Warn sets warnings.
 */
export function checkBodyFields(t: Target, q: URLSearchParams, req: IncomingMessage, res: ServerResponse, body: Buffer, decoded: Obj): void {
  if (fieldValidationOf(q) === 'Ignore') return;
  const type = mediaType(req.headers['content-type']);
  if (type === protobufMediaType) return;
  const problems = bodyFieldProblems(body.toString('utf8'), type === 'application/yaml', knownFieldsOf(t));
  if (t.r.schema !== undefined) problems.push(...unknownFieldProblems(unknownFieldPaths(t.r.schema, decoded)));
  report(q, res, problems, () => strictDecodingError(t.r.kind, t.r.version, problems));
}

// Sorted keys at every level, as Go encodes the map a custom resource is patched as.
function sortedJson(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedJson);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortedJson((v as Obj)[k])]));
}

/**
 * Checks a JSON, merge or strategic merge patch: duplicate keys of the patch body (merge and strategic
 * patches), then the unknown fields of the patched object. Strict throws 422 naming the patched object.
 */
export function checkPatchFields(t: Target, q: URLSearchParams, res: ServerResponse, patchBody: string | undefined, patched: Obj): void {
  if (fieldValidationOf(q) === 'Ignore') return;
  const problems = patchBody === undefined ? [] : jsonFieldProblems(patchBody);
  if (t.r.schema !== undefined) problems.push(...unknownFieldProblems(unknownFieldPaths(t.r.schema, patched)));
  else {
    const known = knownFieldsOf(t);
    if (known !== undefined) problems.push(...jsonFieldProblems(JSON.stringify(patched), known).filter((p) => 'unknown' in p));
  }
  report(q, res, problems, () => strictPatchError(JSON.stringify(t.r.custom ? sortedJson(patched) : patched), problems));
}

/** Refuses an applied configuration with fields its kind does not have (500, as upstream), whatever fieldValidation says. */
export function checkAppliedFields(t: Target, applied: Obj): void {
  let unknown: string[];
  if (t.r.schema !== undefined) unknown = unknownFieldPaths(t.r.schema, applied);
  else {
    const known = knownFieldsOf(t);
    unknown = known === undefined ? [] : jsonFieldProblems(JSON.stringify(applied), known).flatMap((p) => ('unknown' in p ? [p.unknown] : []));
  }
  if (unknown.length === 0) return;
  const meta = typeof applied.metadata === 'object' && applied.metadata !== null ? (applied.metadata as Obj) : {};
  const text = (v: unknown): string => (typeof v === 'string' ? v : '');
  throw typedPatchError(text(meta.namespace), text(meta.name), `${t.r.group}/${t.r.version}, Kind=${t.r.kind}`, unknown);
}
