/**
 * The protobuf form of the OpenAPI v2 document (`application/com.github.proto-openapi.spec.v2@v1.0+protobuf`),
 * which kubectl downloads for client-side validation: a gnostic `openapi.v2.Document` message. Only what
 * the server's document uses is written — swagger, info, definitions and their schemas (type, format,
 * $ref, required, properties, items, additionalProperties, description) with vendor extensions as YAML.
 *
 * Upstream: github.com/google/gnostic `openapiv2/OpenAPIv2.proto` (field numbers), kube-openapi's handler.
 */
import { stringify as toYaml } from 'yaml';
import { isObject, str } from './object-meta.ts';
import { Writer } from './protobuf.ts';

type Obj = Record<string, unknown>;

/** The media type of the protobuf OpenAPI v2 document. */
export const openApiV2ProtobufMediaType = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

function namedAny(name: string, value: unknown): Uint8Array {
  const any = new Writer();
  any.string(2, toYaml(value));
  const w = new Writer();
  w.string(1, name);
  w.bytes(2, any.finish());
  return w.finish();
}

function schema(s: Obj): Uint8Array {
  const w = new Writer();
  if (typeof s.$ref === 'string') w.string(1, s.$ref);
  if (typeof s.format === 'string') w.string(2, s.format);
  if (typeof s.description === 'string') w.string(4, s.description);
  for (const r of Array.isArray(s.required) ? s.required : []) w.string(19, String(r));
  if (isObject(s.additionalProperties)) {
    const ap = new Writer();
    ap.bytes(1, schema(s.additionalProperties));
    w.bytes(21, ap.finish());
  } else if (typeof s.additionalProperties === 'boolean') {
    const ap = new Writer();
    ap.tag(2, 0);
    ap.varint(s.additionalProperties ? 1 : 0);
    w.bytes(21, ap.finish());
  }
  if (typeof s.type === 'string') {
    const t = new Writer();
    t.string(1, s.type);
    w.bytes(22, t.finish());
  }
  if (isObject(s.items)) {
    const items = new Writer();
    items.bytes(1, schema(s.items));
    w.bytes(23, items.finish());
  }
  if (isObject(s.properties)) {
    const props = new Writer();
    for (const [name, value] of Object.entries(s.properties)) if (isObject(value)) props.bytes(1, namedSchema(name, value));
    w.bytes(25, props.finish());
  }
  for (const [k, v] of Object.entries(s)) if (k.startsWith('x-')) w.bytes(31, namedAny(k, v));
  return w.finish();
}

function namedSchema(name: string, s: Obj): Uint8Array {
  const w = new Writer();
  w.string(1, name);
  w.bytes(2, schema(s));
  return w.finish();
}

/** Encodes an OpenAPI v2 document (as the JSON form holds it) as a gnostic protobuf Document. */
export function encodeOpenApiV2(doc: Obj): Uint8Array {
  const w = new Writer();
  w.string(1, typeof doc.swagger === 'string' ? doc.swagger : '2.0');
  const info = isObject(doc.info) ? doc.info : {};
  const iw = new Writer();
  iw.string(1, str(info.title));
  iw.string(2, str(info.version));
  w.bytes(2, iw.finish());
  const defs = new Writer();
  for (const [name, value] of Object.entries(isObject(doc.definitions) ? doc.definitions : {})) if (isObject(value)) defs.bytes(1, namedSchema(name, value));
  w.bytes(9, defs.finish());
  return w.finish();
}
