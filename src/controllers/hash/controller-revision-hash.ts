/**
 * A StatefulSet's ControllerRevision as kube-controller-manager v1.24 writes it (pkg/controller/statefulset
 * stateful_set_utils.go getPatch, pkg/controller/history controller_history.go HashControllerRevision):
 *
 * - the data is the set encoded by the apps/v1 codec, cut down to `spec.template` with `"$patch":"replace"`,
 *   then unmarshalled into a map and marshalled again — so Go's encoding/json decides its bytes: keys sorted
 *   bytewise, `<`, `>`, `&`, U+2028 and U+2029 escaped as `\u003c`…, zero-valued optional fields omitted
 *   but non-pointer structs always written (`"creationTimestamp":null`, `"resources":{}`), quantities in
 *   their canonical form;
 * - the hash is FNV-32 (not 32a) of those bytes followed by the collision count in decimal, encoded with
 *   rand.SafeEncodeString; the revision is named `<set>-<hash>`.
 *
 * The Go value is the one the controller decoded from the API server's protobuf, walked over the layout in
 * pod-template-spec-go-types.ts: empty lists and maps are nil (omitted), a present pointer is written even
 * when it points at a zero value. The layout records no `omitempty`; every plain scalar field at its zero
 * value is taken to be `omitempty`, which holds for the pod template's fields except required ones (never
 * zero in a valid template). Pinned by testdata/statefulset-revisions.json, recorded from a real
 * kube-controller-manager v1.24 on a real kube-apiserver.
 */

import { canonicalQuantity } from '../../apimachinery/quantity.ts';
import type { GoType, GoTypeTable } from './go-type-table.ts';
import { safeEncodeString } from './compute-hash.ts';
import { podTemplateSpecGoTypes } from './pod-template-spec-go-types.ts';

type Json = unknown;

function isObject(v: Json): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function typeOf(types: GoTypeTable, name: string): GoType | undefined {
  return types[name];
}

/**
 * `value` (a JSON object from the API) as Go's encoding/json writes the Go value of type `typeName` it
 * decodes into; undefined for a field Go would omit.
 */
export function goJsonValue(types: GoTypeTable, typeName: string, value: Json): Json {
  const t = typeOf(types, typeName);
  // A type the layout does not know (never reached from a pod template): kept as given.
  if (t === undefined) return value;
  switch (typeName) {
    case 'v1.Time':
      return value ?? null;
    case 'intstr.IntOrString':
      return value;
    case 'resource.Quantity':
      return typeof value === 'string' ? canonicalQuantity(value) : value;
    default:
      break;
  }
  switch (t.kind) {
    case 'ptr':
      if (value === undefined || value === null) return undefined;
      return goJsonValue(types, t.elem!, value) ?? goZeroOf(types, t.elem!);
    case 'struct': {
      const out: Record<string, unknown> = {};
      structFields(types, t, isObject(value) ? value : {}, out);
      return out;
    }
    case 'slice':
      if (!Array.isArray(value) || value.length === 0) return undefined;
      return value.map((v) => goJsonValue(types, t.elem!, v) ?? goZeroOf(types, t.elem!));
    case 'map':
      if (!isObject(value) || Object.keys(value).length === 0) return undefined;
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, goJsonValue(types, t.elem!, v) ?? goZeroOf(types, t.elem!)]));
    default:
      // A scalar: omitted at its zero value (omitempty), else as given.
      if (value === undefined || value === null || value === '' || value === 0 || value === false) return undefined;
      return value;
  }
}

/** What Go writes for the zero value of a type that must be written (a slice element, a pointer's target). */
function goZeroOf(types: GoTypeTable, typeName: string): Json {
  const t = typeOf(types, typeName);
  if (t === undefined) return null;
  if (t.kind === 'struct') return goJsonValue(types, typeName, {});
  if (t.kind === 'string') return '';
  if (t.kind === 'bool') return false;
  if (t.kind === 'ptr' || t.kind === 'slice' || t.kind === 'map') return null;
  return 0;
}

function structFields(types: GoTypeTable, t: GoType, value: Record<string, unknown>, out: Record<string, unknown>): void {
  for (const f of t.fields ?? []) {
    if (f.inline === true) {
      const inner = typeOf(types, f.type);
      if (inner !== undefined) structFields(types, inner, value, out);
      continue;
    }
    if (f.json === undefined) continue;
    const v = goJsonValue(types, f.type, value[f.json]);
    if (v !== undefined) out[f.json] = v;
  }
}

/** Go's json.Marshal of a JSON value whose maps are map[string]interface{}: keys sorted bytewise, HTML-safe strings. */
export function goMarshal(v: Json): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number' || typeof v === 'boolean') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(goMarshal).join(',')}]`;
  const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
  entries.sort(([a], [b]) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
  return `{${entries.map(([k, x]) => `${goQuote(k)}:${goMarshal(x)}`).join(',')}}`;
}

/** encoding/json's string encoding: HTML characters and the line separators escaped, \b and \f as \u00XX. */
function goQuote(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]|\\[bf]/g, (c) => {
    if (c === '\\b') return '\\u0008';
    if (c === '\\f') return '\\u000c';
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/** The data of a StatefulSet's revision for its stored pod template (getPatch), as a JSON value. */
export function statefulSetRevisionData(template: unknown): Record<string, unknown> {
  const t = goJsonValue(podTemplateSpecGoTypes, 'v1.PodTemplateSpec', template ?? {}) as Record<string, unknown>;
  return { spec: { template: { ...t, $patch: 'replace' } } };
}

/** FNV-32 (hash/fnv New32: multiply, then xor) over bytes. */
export function fnv32(bytes: Uint8Array, h = 0x811c9dc5): number {
  for (const byte of bytes) {
    h = Math.imul(h, 0x01000193) >>> 0;
    h = (h ^ byte) >>> 0;
  }
  return h;
}

/** HashControllerRevision: FNV-32 of the revision's raw data and the collision count, SafeEncodeString'd. */
export function hashControllerRevision(data: Json, collisionCount?: number): string {
  const text = goMarshal(data) + (collisionCount === undefined ? '' : String(collisionCount));
  return safeEncodeString(String(fnv32(Buffer.from(text, 'utf8'))));
}
