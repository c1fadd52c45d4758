/**
 * The key order Go's encoding/json writes a built-in object in: kube-apiserver decodes every built-in
 * object into its Go struct and encodes it back, so its JSON answers list the fields in struct
 * declaration order (TypeMeta's `kind` before `apiVersion`, ObjectMeta's `resourceVersion` before
 * `creationTimestamp`), embedded structs' fields in place, and every map's keys sorted.
 *
 * Upstream: encoding/json's struct encoder (`typeFields`: declaration order, anonymous structs without a
 * JSON name flattened) and map encoder (keys sorted), over the Go types of k8s.io/api. The declaration
 * order comes from the derived protobuf model (protobuf/generated/kubernetes-proto.ts lists each
 * message's fields in Go struct order); types that marshal themselves (metav1.Time, resource.Quantity,
 * intstr.IntOrString, runtime.RawExtension, metav1.FieldsV1, apiextensions JSON) are written as they are.
 * Keys the struct does not have (there should be none once the server has decoded the object) follow
 * the known ones in their own order.
 */
import { kubernetesProto } from './protobuf/generated/kubernetes-proto.ts';

type Obj = Record<string, unknown>;

/** How one field's value is ordered. */
interface FieldPlan {
  readonly json: string;
  /** The struct plan of a message-typed field (its elements' for a list, its values' for a map). */
  readonly sub: StructPlan | undefined;
  /** A Go map: keys sorted. */
  readonly map: boolean;
  /** A JSONSchemaPropsOr…: a schema object, or (OrArray) a list of schemas. */
  readonly schemaOr: boolean;
}

/** The fields of a struct in encoding order, embedded structs flattened. */
interface StructPlan {
  readonly fields: FieldPlan[];
  readonly names: Set<string>;
}

const meta = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const apiext = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';

// Types with their own MarshalJSON: written as they come.
const opaque = new Set([
  `${meta}.Time`,
  `${meta}.MicroTime`,
  `${meta}.Duration`,
  `${meta}.FieldsV1`,
  'k8s.io.apimachinery.pkg.api.resource.Quantity',
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString',
  'k8s.io.apimachinery.pkg.runtime.RawExtension',
  `${apiext}.JSON`,
]);
// JSONSchemaPropsOrArray/OrBool/OrStringArray marshal their schema (or list of schemas), or a bool / string list.
const schemaOr = new Set([`${apiext}.JSONSchemaPropsOrArray`, `${apiext}.JSONSchemaPropsOrBool`, `${apiext}.JSONSchemaPropsOrStringArray`]);
const schemaMessage = `${apiext}.JSONSchemaProps`;

const plans = new Map<string, StructPlan | undefined>();

function structPlan(message: string): StructPlan | undefined {
  if (plans.has(message)) return plans.get(message);
  const fields = kubernetesProto.messages[message];
  if (fields === undefined || opaque.has(message)) {
    plans.set(message, undefined);
    return undefined;
  }
  const plan: StructPlan = { fields: [], names: new Set() };
  // Set before the walk: JSONSchemaProps refers to itself.
  plans.set(message, plan);
  for (const [, json, type, flags] of fields) {
    const isSchemaOr = schemaOr.has(type);
    const sub = isSchemaOr ? structPlan(schemaMessage) : kubernetesProto.messages[type] === undefined ? undefined : structPlan(type);
    if (flags.includes('i')) {
      for (const f of sub?.fields ?? []) {
        plan.fields.push(f);
        plan.names.add(f.json);
      }
      continue;
    }
    plan.fields.push({ json, sub, map: flags.includes('m'), schemaOr: isSchemaOr });
    plan.names.add(json);
  }
  return plan;
}

/** Go's map key order: bytewise over UTF-8, which for strings is code point order. */
function compareGo(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x - y;
  }
  return a.length - b.length;
}

function isObject(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function orderValue(v: unknown, f: FieldPlan): unknown {
  if (f.map) {
    if (!isObject(v)) return v;
    const out: Obj = {};
    for (const k of Object.keys(v).sort(compareGo)) out[k] = f.sub === undefined ? v[k] : orderElement(v[k], f.sub);
    return out;
  }
  if (f.sub === undefined) return v;
  return orderElement(v, f.sub);
}

function orderElement(v: unknown, plan: StructPlan): unknown {
  if (Array.isArray(v)) return (v as unknown[]).map((e) => (isObject(e) ? orderStruct(e, plan) : e));
  return isObject(v) ? orderStruct(v, plan) : v;
}

function orderStruct(o: Obj, plan: StructPlan, twin?: Obj): Obj {
  const out: Obj = {};
  for (const f of plan.fields) {
    if (!Object.hasOwn(o, f.json)) continue;
    const v = o[f.json];
    // The twin's very value at this field is in order already (see goFieldOrder).
    if (twin !== undefined && typeof v === 'object' && v !== null && twin[f.json] === v) out[f.json] = v;
    else if (twin !== undefined && !f.map && f.sub !== undefined && isObject(v) && isObject(twin[f.json])) out[f.json] = orderStruct(v, f.sub, twin[f.json] as Obj);
    else out[f.json] = orderValue(v, f);
  }
  for (const k of Object.keys(o)) if (!plan.names.has(k)) out[k] = o[k];
  return out;
}

function messageOf(apiVersion: string, kind: string): string | undefined {
  const pkg = kubernetesProto.groupVersions[apiVersion];
  if (pkg !== undefined && kubernetesProto.messages[`${pkg}.${kind}`] !== undefined) return `${pkg}.${kind}`;
  if (kind === 'Status' || kind === 'Table' || kind === 'WatchEvent' || kind.startsWith('PartialObjectMetadata')) return `${meta}.${kind}`;
  return undefined;
}

/** Whether {@link goFieldOrder} knows the Go struct of objects of this apiVersion and kind. */
export function hasGoFieldOrder(apiVersion: string, kind: string): boolean {
  return messageOf(apiVersion, kind) !== undefined;
}

/**
 * A copy of a built-in object (JSON form, with apiVersion and kind) whose keys are in the order
 * kube-apiserver's encoding/json writes them: `kind`, `apiVersion`, then the Go struct's fields in
 * declaration order at every level, map keys sorted. An object of a kind the model does not know keeps
 * its order, with `kind`, `apiVersion` and `metadata` (in ObjectMeta order) moved to the front.
 *
 * @example
 * goFieldOrder({ apiVersion: 'v1', kind: 'ConfigMap', data: { b: '1', a: '2' }, metadata: { resourceVersion: '5', name: 'x' } });
 * // { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x', resourceVersion: '5' }, data: { a: '2', b: '1' } }
 *
 * `twin` is an earlier version of the object already in this order and never mutated (the stored one): a
 * struct field whose value is the very same object or list (`===`) as the twin's, reached through struct
 * fields, is kept as it is.
 */
export function goFieldOrder(obj: Obj, twin?: Obj): Obj {
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  const message = messageOf(apiVersion, kind);
  const plan = message === undefined ? undefined : structPlan(message);
  const out: Obj = {};
  if (Object.hasOwn(obj, 'kind')) out.kind = obj.kind;
  if (Object.hasOwn(obj, 'apiVersion')) out.apiVersion = obj.apiVersion;
  if (plan === undefined) {
    if (Object.hasOwn(obj, 'metadata')) out.metadata = isObject(obj.metadata) ? orderStruct(obj.metadata, structPlan(`${meta}.ObjectMeta`)!) : obj.metadata;
    for (const k of Object.keys(obj)) if (!Object.hasOwn(out, k)) out[k] = obj[k];
    return out;
  }
  const rest = orderStruct(obj, plan, twin);
  for (const k of Object.keys(rest)) if (k !== 'kind' && k !== 'apiVersion') out[k] = rest[k];
  return out;
}
