/**
 * The derived protobuf model (generated/kubernetes-proto.ts) compiled into what the codec walks: per
 * message, its fields indexed by number with their JSON name and what encoding/json does with them,
 * the fields to fill in when they are absent from the wire, and for the messages whose Go types marshal
 * JSON their own way (metav1.Time, resource.Quantity, intstr.IntOrString, runtime.RawExtension, ...)
 * which of those they are. Compiled lazily, one message at a time, so a process that decodes Pods
 * never compiles the rest of the API.
 *
 * Upstream: the `protobuf:"…"` and `json:"…"` struct tags of k8s.io/api, the custom marshalers in
 * apimachinery (`pkg/apis/meta/v1/time_proto.go`, `micro_time_proto.go`, `duration.go`,
 * `pkg/api/resource/quantity_proto.go`, `pkg/util/intstr/intstr.go`, `pkg/runtime/types_proto.go`) and
 * apiextensions-apiserver's `pkg/apis/apiextensions/v1/marshal.go`.
 */
import { kubernetesProto } from './generated/kubernetes-proto.ts';
import type { ProtoModel } from './model-types.ts';

/** Field value kinds. */
export const Kind = {
  string: 1,
  bool: 2,
  int32: 3,
  int64: 4,
  uint: 5,
  double: 6,
  float: 7,
  bytes: 8,
  fixed32: 9,
  fixed64: 10,
  message: 11,
} as const;

/** Messages with a JSON form of their own. */
export const Special = {
  none: 0,
  time: 1,
  microTime: 2,
  quantity: 3,
  intOrString: 4,
  rawExtension: 5,
  fieldsV1: 6,
  duration: 7,
  json: 8,
  sliceWrapper: 9,
  schemaOrArray: 10,
  schemaOrBool: 11,
  schemaOrStringArray: 12,
} as const;

const meta = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const apiext = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';

const specialByName: Readonly<Record<string, number>> = {
  [`${meta}.Time`]: Special.time,
  [`${meta}.MicroTime`]: Special.microTime,
  [`${meta}.Duration`]: Special.duration,
  [`${meta}.FieldsV1`]: Special.fieldsV1,
  'k8s.io.apimachinery.pkg.api.resource.Quantity': Special.quantity,
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': Special.intOrString,
  'k8s.io.apimachinery.pkg.runtime.RawExtension': Special.rawExtension,
  [`${apiext}.JSON`]: Special.json,
  [`${apiext}.JSONSchemaPropsOrArray`]: Special.schemaOrArray,
  [`${apiext}.JSONSchemaPropsOrBool`]: Special.schemaOrBool,
  [`${apiext}.JSONSchemaPropsOrStringArray`]: Special.schemaOrStringArray,
};

const kindByType: Readonly<Record<string, number>> = {
  string: Kind.string,
  bool: Kind.bool,
  int32: Kind.int32,
  sint32: Kind.int32,
  int64: Kind.int64,
  sint64: Kind.int64,
  uint32: Kind.uint,
  uint64: Kind.uint,
  double: Kind.double,
  float: Kind.float,
  bytes: Kind.bytes,
  fixed32: Kind.fixed32,
  fixed64: Kind.fixed64,
};

/** A compiled field. */
export interface FieldDesc {
  readonly number: number;
  readonly json: string;
  readonly kind: number;
  /** The message type (kind `message`), compiled on first use. */
  readonly msg: MessageDesc | undefined;
  readonly repeated: boolean;
  readonly map: boolean;
  /** Omitted from JSON when zero: omitempty on a scalar, repeated or map field (structs are never omitted). */
  readonly omitZero: boolean;
  readonly pointer: boolean;
  readonly inline: boolean;
  /** The wire type of one value. */
  readonly wire: number;
  /** Makes the object of a map field (see {@link MessageDesc.create}). */
  readonly createMap: (() => Record<string, unknown>) | undefined;
}

/** A compiled message. */
export interface MessageDesc {
  readonly name: string;
  readonly special: number;
  /** Fields by number (sparse). */
  readonly byNumber: Array<FieldDesc | undefined>;
  /** Fields in number order (encoding). */
  readonly ordered: FieldDesc[];
  /** Fields JSON has even when the wire lacks them (see {@link absentValue}). */
  readonly fill: FieldDesc[];
  /** Repeated fields: their arrays are copied to their exact size once the message is decoded. */
  readonly lists: FieldDesc[];
  /** A `…List` message: absent items are `[]`, as API servers write lists. */
  readonly isList: boolean;
  /**
   * Makes the plain object a message decodes into. A constructor of its own per message (whose
   * prototype is Object.prototype, so the objects stay plain) lets V8 size the objects to the fields
   * this message's objects have, all in-object, as JSON.parse does; objects grown from `{}` keep their
   * fields past the fourth in a separate, over-allocated array.
   */
  readonly create: () => Record<string, unknown>;
}

function objectMaker(): () => Record<string, unknown> {
  const Ctor = function (this: object) {} as unknown as new () => Record<string, unknown>;
  Ctor.prototype = Object.prototype;
  return () => new Ctor();
}

const compiled = new Map<string, MessageDesc>();
let model: ProtoModel = kubernetesProto;
let sliceWrappers = new Set(model.sliceWrappers);

/** The compiled message `name` (fully qualified), or undefined when the model has none. */
export function messageDesc(name: string): MessageDesc | undefined {
  const hit = compiled.get(name);
  if (hit !== undefined) return hit;
  const fields = model.messages[name];
  if (fields === undefined) return undefined;
  const byNumber: Array<FieldDesc | undefined> = [];
  const ordered: FieldDesc[] = [];
  const fill: FieldDesc[] = [];
  const desc: MessageDesc = {
    name,
    special: sliceWrappers.has(name) ? Special.sliceWrapper : (specialByName[name] ?? Special.none),
    byNumber,
    ordered,
    fill,
    lists: [],
    // A PartialObjectMetadataList's items stay nil (null) when empty: the server converts into a nil slice.
    isList: name.endsWith('List') && !name.endsWith('.PartialObjectMetadataList'),
    create: objectMaker(),
  };
  compiled.set(name, desc);
  for (const [number, json, type, flags] of fields) {
    const kind = kindByType[type] ?? Kind.message;
    const repeated = flags.includes('r');
    const map = flags.includes('m');
    const pointer = flags.includes('p');
    const f: FieldDesc = {
      number,
      json,
      kind,
      msg: kind === Kind.message ? messageDesc(type) : undefined,
      repeated,
      map,
      omitZero: flags.includes('o') && !pointer && (kind !== Kind.message || repeated || map),
      pointer,
      inline: flags.includes('i'),
      createMap: map ? objectMaker() : undefined,
      wire: map || kind === Kind.message || kind === Kind.string || kind === Kind.bytes ? 2 : kind === Kind.double || kind === Kind.fixed64 ? 1 : kind === Kind.float || kind === Kind.fixed32 ? 5 : 0,
    };
    if (kind === Kind.message && f.msg === undefined) throw new Error(`protobuf model: ${name}.${json} refers to unknown ${type}`);
    byNumber[number] = f;
    ordered.push(f);
    if (repeated && !f.inline) desc.lists.push(f);
    if (!f.inline && !f.omitZero && !(pointer && flags.includes('o'))) fill.push(f);
  }
  ordered.sort((a, b) => a.number - b.number);
  return desc;
}

/** The message of a kind of `apiVersion` (`v1`, `apps/v1`); meta.k8s.io/v1 kinds (Status, WatchEvent, ...) are in every version. */
export function kindDesc(apiVersion: string, kind: string): MessageDesc | undefined {
  const pkg = model.groupVersions[apiVersion];
  const own = pkg === undefined ? undefined : messageDesc(`${pkg}.${kind}`);
  return own ?? (kind === 'Status' || kind === 'WatchEvent' || kind.startsWith('PartialObjectMetadata') || kind === 'Table' ? messageDesc(`${meta}.${kind}`) : undefined);
}

/** Whether objects of `apiVersion` have protobuf messages (built-in group-versions). */
export function hasProtobufGroupVersion(apiVersion: string): boolean {
  return model.groupVersions[apiVersion] !== undefined;
}

/** The meta.k8s.io/v1 message `name`. */
export function metaDesc(name: string): MessageDesc {
  return messageDesc(`${meta}.${name}`)!;
}

/** Replaces the model (tests of older or hand-written models). Returns the previous one. */
export function useProtoModel(next: ProtoModel): ProtoModel {
  const previous = model;
  model = next;
  sliceWrappers = new Set(next.sliceWrappers);
  compiled.clear();
  return previous;
}
