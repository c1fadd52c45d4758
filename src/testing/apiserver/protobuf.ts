/**
 * A minimal reader for Kubernetes protobuf request bodies (`application/vnd.kubernetes.protobuf`).
 *
 * kubectl's generator commands (`kubectl create namespace`, `create configmap`, `create secret`,
 * `create serviceaccount`) send protobuf. The server answers JSON (kubectl accepts it), so only decoding is
 * needed, and only for those kinds: their field numbers come from the upstream generated.proto files.
 * Other kinds are refused with 415, which is what a server without protobuf support answers.
 */

type Obj = Record<string, unknown>;

/** How one protobuf field maps to JSON. */
type FieldType = 'string' | 'bytes' | 'int' | 'bool' | 'time' | 'stringMap' | 'bytesMap' | { message: Schema };

interface Field {
  name: string;
  type: FieldType;
  repeated?: boolean;
}

type Schema = Readonly<Record<number, Field>>;

const typeMeta: Schema = { 1: { name: 'apiVersion', type: 'string' }, 2: { name: 'kind', type: 'string' } };

const ownerReference: Schema = {
  1: { name: 'kind', type: 'string' },
  3: { name: 'name', type: 'string' },
  4: { name: 'uid', type: 'string' },
  5: { name: 'apiVersion', type: 'string' },
  6: { name: 'controller', type: 'bool' },
  7: { name: 'blockOwnerDeletion', type: 'bool' },
};

// k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta (managedFields are not read: the server owns them).
const objectMeta: Schema = {
  1: { name: 'name', type: 'string' },
  2: { name: 'generateName', type: 'string' },
  3: { name: 'namespace', type: 'string' },
  5: { name: 'uid', type: 'string' },
  6: { name: 'resourceVersion', type: 'string' },
  7: { name: 'generation', type: 'int' },
  8: { name: 'creationTimestamp', type: 'time' },
  9: { name: 'deletionTimestamp', type: 'time' },
  10: { name: 'deletionGracePeriodSeconds', type: 'int' },
  11: { name: 'labels', type: 'stringMap' },
  12: { name: 'annotations', type: 'stringMap' },
  13: { name: 'ownerReferences', type: { message: ownerReference }, repeated: true },
  14: { name: 'finalizers', type: 'string', repeated: true },
};

const localObjectReference: Schema = { 1: { name: 'name', type: 'string' } };
const objectReference: Schema = {
  1: { name: 'kind', type: 'string' },
  2: { name: 'namespace', type: 'string' },
  3: { name: 'name', type: 'string' },
  4: { name: 'uid', type: 'string' },
  5: { name: 'apiVersion', type: 'string' },
  6: { name: 'resourceVersion', type: 'string' },
  7: { name: 'fieldPath', type: 'string' },
};

// k8s.io.api.core.v1 messages, by kind.
const kinds: Readonly<Record<string, Schema>> = {
  'v1/Namespace': {
    1: { name: 'metadata', type: { message: objectMeta } },
    2: { name: 'spec', type: { message: { 1: { name: 'finalizers', type: 'string', repeated: true } } } },
  },
  'v1/ConfigMap': {
    1: { name: 'metadata', type: { message: objectMeta } },
    2: { name: 'data', type: 'stringMap' },
    3: { name: 'binaryData', type: 'bytesMap' },
    4: { name: 'immutable', type: 'bool' },
  },
  'v1/Secret': {
    1: { name: 'metadata', type: { message: objectMeta } },
    2: { name: 'data', type: 'bytesMap' },
    3: { name: 'type', type: 'string' },
    4: { name: 'stringData', type: 'stringMap' },
    5: { name: 'immutable', type: 'bool' },
  },
  'v1/ServiceAccount': {
    1: { name: 'metadata', type: { message: objectMeta } },
    2: { name: 'secrets', type: { message: objectReference }, repeated: true },
    3: { name: 'imagePullSecrets', type: { message: localObjectReference }, repeated: true },
    4: { name: 'automountServiceAccountToken', type: 'bool' },
  },
  // What `kubectl create token` and `kubectl auth can-i` send (k8s.io/api authentication/v1, authorization/v1).
  'authentication.k8s.io/v1/TokenRequest': {
    1: { name: 'metadata', type: { message: objectMeta } },
    2: {
      name: 'spec',
      type: {
        message: {
          1: { name: 'audiences', type: 'string', repeated: true },
          4: { name: 'expirationSeconds', type: 'int' },
          3: { name: 'boundObjectRef', type: { message: { 1: { name: 'kind', type: 'string' }, 2: { name: 'apiVersion', type: 'string' }, 3: { name: 'name', type: 'string' }, 4: { name: 'uid', type: 'string' } } } },
        },
      },
    },
  },
  'authorization.k8s.io/v1/SelfSubjectAccessReview': { 1: { name: 'metadata', type: { message: objectMeta } }, 2: { name: 'spec', type: { message: accessReviewSpec(false) } } },
  'authorization.k8s.io/v1/SubjectAccessReview': { 1: { name: 'metadata', type: { message: objectMeta } }, 2: { name: 'spec', type: { message: accessReviewSpec(true) } } },
  'authorization.k8s.io/v1/LocalSubjectAccessReview': { 1: { name: 'metadata', type: { message: objectMeta } }, 2: { name: 'spec', type: { message: accessReviewSpec(true) } } },
  'authorization.k8s.io/v1/SelfSubjectRulesReview': { 1: { name: 'metadata', type: { message: objectMeta } }, 2: { name: 'spec', type: { message: { 1: { name: 'namespace', type: 'string' } } } } },
};

// SelfSubjectAccessReviewSpec, or SubjectAccessReviewSpec with its subject (extra values are not read).
function accessReviewSpec(withSubject: boolean): Schema {
  const resourceAttributes: Schema = {
    1: { name: 'namespace', type: 'string' },
    2: { name: 'verb', type: 'string' },
    3: { name: 'group', type: 'string' },
    4: { name: 'version', type: 'string' },
    5: { name: 'resource', type: 'string' },
    6: { name: 'subresource', type: 'string' },
    7: { name: 'name', type: 'string' },
  };
  const spec: Record<number, Field> = {
    1: { name: 'resourceAttributes', type: { message: resourceAttributes } },
    2: { name: 'nonResourceAttributes', type: { message: { 1: { name: 'path', type: 'string' }, 2: { name: 'verb', type: 'string' } } } },
  };
  if (withSubject) {
    spec[3] = { name: 'user', type: 'string' };
    spec[4] = { name: 'groups', type: 'string', repeated: true };
    spec[6] = { name: 'uid', type: 'string' };
  }
  return spec;
}

/** Thrown for bodies that are not protobuf this reader understands. */
export class ProtobufDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtobufDecodeError';
  }
}

class Reader {
  readonly #buf: Uint8Array;
  pos: number;
  readonly end: number;
  constructor(buf: Uint8Array, start = 0, end = buf.length) {
    this.#buf = buf;
    this.pos = start;
    this.end = end;
  }

  varint(): number {
    let result = 0;
    let factor = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new ProtobufDecodeError('truncated varint');
      const b = this.#buf[this.pos++]!;
      result += (b & 0x7f) * factor;
      if ((b & 0x80) === 0) return result;
      factor *= 128;
    }
    throw new ProtobufDecodeError('varint too long');
  }

  bytes(): Uint8Array {
    const len = this.varint();
    if (this.pos + len > this.end) throw new ProtobufDecodeError('truncated field');
    const out = this.#buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }

  skip(wireType: number): void {
    if (wireType === 0) this.varint();
    else if (wireType === 1) this.pos += 8;
    else if (wireType === 2) this.bytes();
    else if (wireType === 5) this.pos += 4;
    else throw new ProtobufDecodeError(`unsupported wire type ${wireType}`);
    if (this.pos > this.end) throw new ProtobufDecodeError('truncated field');
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function text(b: Uint8Array): string {
  try {
    return utf8.decode(b);
  } catch {
    throw new ProtobufDecodeError('invalid UTF-8 in a string field');
  }
}

function mapEntry(b: Uint8Array, asBytes: boolean): [string, string] {
  const r = new Reader(b);
  let key = '';
  let value = '';
  while (r.pos < r.end) {
    const tag = r.varint();
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    if (wire !== 2 || (field !== 1 && field !== 2)) {
      r.skip(wire);
      continue;
    }
    const v = r.bytes();
    if (field === 1) key = text(v);
    else value = asBytes ? Buffer.from(v).toString('base64') : text(v);
  }
  return [key, value];
}

// Go encodes a zero metav1.Time as a negative number of seconds: such timestamps are dropped.
function time(b: Uint8Array): string | undefined {
  const r = new Reader(b);
  let seconds = 0;
  while (r.pos < r.end) {
    const tag = r.varint();
    if (tag === 8) seconds = r.varint();
    else r.skip(tag & 7);
  }
  if (!(seconds > 0 && seconds < 253402300800)) return undefined;
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function message(b: Uint8Array, schema: Schema): Obj {
  const r = new Reader(b);
  const out: Obj = {};
  while (r.pos < r.end) {
    const tag = r.varint();
    const field = schema[Math.floor(tag / 8)];
    const wire = tag & 7;
    if (field === undefined) {
      r.skip(wire);
      continue;
    }
    let value: unknown;
    const t = field.type;
    if (t === 'int' || t === 'bool') {
      if (wire !== 0) throw new ProtobufDecodeError(`field ${field.name}: unexpected wire type ${wire}`);
      const n = r.varint();
      value = t === 'bool' ? n !== 0 : n;
    } else {
      if (wire !== 2) throw new ProtobufDecodeError(`field ${field.name}: unexpected wire type ${wire}`);
      const raw = r.bytes();
      if (t === 'string') value = text(raw);
      else if (t === 'bytes') value = Buffer.from(raw).toString('base64');
      else if (t === 'time') {
        value = time(raw);
        if (value === undefined) continue;
      }
      else if (t === 'stringMap' || t === 'bytesMap') {
        const [k, v] = mapEntry(raw, t === 'bytesMap');
        const map = (out[field.name] as Record<string, string> | undefined) ?? {};
        map[k] = v;
        out[field.name] = map;
        continue;
      } else value = message(raw, t.message);
    }
    if (field.repeated === true) ((out[field.name] as unknown[] | undefined) ?? (out[field.name] = [])).push(value);
    // Go encodes unset scalars as their zero values; JSON omits them.
    else if (value === '' || value === 0) continue;
    else out[field.name] = value;
  }
  return out;
}

const magic = [0x6b, 0x38, 0x73, 0x00];

/**
 * Decodes a `k8s\0`-prefixed runtime.Unknown envelope holding one of the supported kinds into the
 * object's JSON form. Throws {@link ProtobufDecodeError} otherwise.
 */
export function decodeKubernetesProtobuf(body: Uint8Array): Obj {
  if (body.length < 4 || magic.some((m, i) => body[i] !== m)) throw new ProtobufDecodeError('missing the k8s protobuf prefix');
  const envelope = new Reader(body, 4);
  let type: Obj = {};
  let raw: Uint8Array | undefined;
  while (envelope.pos < envelope.end) {
    const tag = envelope.varint();
    const field = Math.floor(tag / 8);
    if ((field === 1 || field === 2) && (tag & 7) === 2) {
      const b = envelope.bytes();
      if (field === 1) type = message(b, typeMeta);
      else raw = b;
    } else envelope.skip(tag & 7);
  }
  const apiVersion = typeof type.apiVersion === 'string' ? type.apiVersion : '';
  const kind = typeof type.kind === 'string' ? type.kind : '';
  const schema = kinds[`${apiVersion}/${kind}`];
  if (schema === undefined || raw === undefined) throw new ProtobufDecodeError(`protobuf bodies of ${apiVersion}/${kind} are not supported: send JSON`);
  return { apiVersion, kind, ...message(raw, schema) };
}
