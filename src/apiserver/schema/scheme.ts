/**
 * The scheme of built-in kinds: which Go struct a group/version/kind decodes into, and each struct's
 * fields parsed from {@link goTypes}. Named after apimachinery's `runtime.Scheme`, which plays this role
 * in kube-apiserver: everything that decodes, encodes or prunes a built-in object starts here.
 */
import { goTypes } from './go-types.ts';

/** Types with an encoding of their own rather than a struct's. */
export const specialTypes = ['Quantity', 'IntOrString', 'Time', 'MicroTime', 'Duration', 'RawExtension', 'FieldsV1'] as const;

/** A scalar or special type name. */
export type ScalarName = 'string' | 'int32' | 'int64' | 'bool' | 'float64' | 'bytes' | (typeof specialTypes)[number];

/** The type of a field. */
export type GoType = { kind: 'scalar'; name: ScalarName } | { kind: 'struct'; name: string } | { kind: 'list'; of: GoType } | { kind: 'map'; of: GoType };

/** One field of a Go struct. */
export interface GoField {
  /** JSON name ('' for an inlined struct). */
  readonly json: string;
  /** Protobuf field number (0 when the field has none). */
  readonly number: number;
  readonly type: GoType;
  /** The JSON tag has omitempty. */
  readonly omitempty: boolean;
  /** The Go field is a pointer (nil is distinct from the zero value). */
  readonly pointer: boolean;
  /** The struct's fields appear at the parent's JSON level. */
  readonly inline: boolean;
}

/** A Go struct: its fields in declaration order. */
export interface GoStruct {
  /** `<group>/<version>.<Name>`. */
  readonly name: string;
  /** The Go type name as Go prints it in errors, e.g. `v1.ObjectMeta`. */
  readonly goName: string;
  /** Has the inlined TypeMeta (kind, apiVersion). */
  readonly typeMeta: boolean;
  readonly fields: readonly GoField[];
}

const scalars: ReadonlySet<string> = new Set(['string', 'int32', 'int64', 'bool', 'float64', 'bytes', ...specialTypes]);

function parseType(t: string): GoType {
  if (t.startsWith('[]')) return { kind: 'list', of: parseType(t.slice(2)) };
  if (t.startsWith('{}')) return { kind: 'map', of: parseType(t.slice(2)) };
  if (scalars.has(t)) return { kind: 'scalar', name: t as ScalarName };
  if (goTypes[t] === undefined && !t.endsWith('List')) throw new Error(`go-types: unknown type ${t}`);
  return { kind: 'struct', name: t };
}

const cache = new Map<string, GoStruct>();

/** The package name Go prints before a type name (`apps/v1.Deployment` → `v1`). */
function goPackage(name: string): string {
  return name.slice(name.indexOf('/') + 1, name.indexOf('.'));
}

/** The struct named `<group>/<version>.<Name>`; `…List` kinds of known items are synthesised. */
export function goStruct(name: string): GoStruct | undefined {
  const hit = cache.get(name);
  if (hit !== undefined) return hit;
  let spec = goTypes[name];
  if (spec === undefined && name.endsWith('List') && goTypes[name.slice(0, -4)] !== undefined) {
    spec = `~TypeMeta metadata:1:meta/v1.ListMeta:o items:2:[]${name.slice(0, -4)}`;
  }
  if (spec === undefined) return undefined;
  let typeMeta = false;
  const fields: GoField[] = [];
  for (const token of spec.split(/\s+/)) {
    if (token === '') continue;
    if (token === '~TypeMeta') {
      typeMeta = true;
      continue;
    }
    const [json, number, type, flags = ''] = token.split(':') as [string, string, string, string?];
    fields.push({ json: json === '~' ? '' : json, number: Number(number), type: parseType(type), omitempty: flags.includes('o'), pointer: flags.includes('p'), inline: flags.includes('i') });
  }
  const s: GoStruct = { name, goName: `${goPackage(name)}.${name.slice(name.indexOf('.') + 1)}`, typeMeta, fields };
  cache.set(name, s);
  return s;
}

/** The Go spelling of a type in decode errors: `int32`, `v1.ObjectMeta`, `[]v1.Container`, `map[string]string`. */
export function goTypeName(t: GoType): string {
  switch (t.kind) {
    case 'scalar':
      if (t.name === 'bytes') return '[]uint8';
      if (t.name === 'Quantity') return 'resource.Quantity';
      if (t.name === 'IntOrString') return 'intstr.IntOrString';
      if (t.name === 'Time' || t.name === 'MicroTime' || t.name === 'Duration') return `v1.${t.name}`;
      if (t.name === 'RawExtension') return 'runtime.RawExtension';
      if (t.name === 'FieldsV1') return 'v1.FieldsV1';
      return t.name;
    case 'struct':
      return goStruct(t.name)?.goName ?? t.name;
    case 'list':
      return `[]${goTypeName(t.of)}`;
    case 'map':
      return `map[string]${goTypeName(t.of)}`;
  }
}

// API group of each package of go-types.ts.
const packageGroups: Readonly<Record<string, string>> = {
  core: '',
  apps: 'apps',
  batch: 'batch',
  rbac: 'rbac.authorization.k8s.io',
  networking: 'networking.k8s.io',
  policy: 'policy',
  scheduling: 'scheduling.k8s.io',
  coordination: 'coordination.k8s.io',
  certificates: 'certificates.k8s.io',
  events: 'events.k8s.io',
  authentication: 'authentication.k8s.io',
  authorization: 'authorization.k8s.io',
  autoscaling: 'autoscaling',
  storage: 'storage.k8s.io',
  discovery: 'discovery.k8s.io',
  node: 'node.k8s.io',
  flowcontrol: 'flowcontrol.apiserver.k8s.io',
  admissionregistration: 'admissionregistration.k8s.io',
  apiregistration: 'apiregistration.k8s.io',
  meta: 'meta.k8s.io',
};

const byGroupVersionKind = new Map<string, string>();
for (const name of Object.keys(goTypes)) {
  if (!goTypes[name]!.trimStart().startsWith('~TypeMeta')) continue;
  const pkg = name.slice(0, name.indexOf('/'));
  const version = name.slice(name.indexOf('/') + 1, name.indexOf('.'));
  const group = packageGroups[pkg];
  if (group === undefined) continue;
  const kind = name.slice(name.indexOf('.') + 1);
  const apiVersion = group === '' ? version : `${group}/${version}`;
  byGroupVersionKind.set(`${apiVersion}/${kind}`, name);
  byGroupVersionKind.set(`${apiVersion}/${kind}List`, `${name}List`);
}
// Status travels as v1 in every group; the core group's list kinds are named v1.
byGroupVersionKind.set('v1/Status', 'meta/v1.Status');
// DeleteOptions is registered in every group version (metav1.AddToGroupVersion): client-go's protobuf
// clients send it in the version of the resource they delete.
for (const apiVersion of new Set([...byGroupVersionKind.keys()].map((k) => k.slice(0, k.lastIndexOf('/'))))) byGroupVersionKind.set(`${apiVersion}/DeleteOptions`, 'meta/v1.DeleteOptions');

/** The struct of a built-in kind (`apiVersion` as in objects: `v1`, `apps/v1`), undefined for kinds without one (custom resources). */
export function structOfKind(apiVersion: string, kind: string): GoStruct | undefined {
  const name = byGroupVersionKind.get(`${apiVersion}/${kind}`);
  return name === undefined ? undefined : goStruct(name);
}
