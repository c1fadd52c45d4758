/**
 * The protobuf model of the built-in API: for every message of Kubernetes' `generated.proto` files,
 * its fields with their number, wire type and JSON name, and what encoding/json would do with them
 * (omitempty, pointer, inlined struct). The `.proto` files give numbers and types; the Go structs
 * beside them (`types.go` and friends, whose `protobuf:"…"` struct tags carry the same numbers) give
 * the JSON names and flags, which the `.proto` files do not hold. Nothing of either is committed: only
 * the derived model, emitted as one TypeScript module (src/runtime/protobuf/generated/kubernetes-proto.ts).
 *
 * Upstream inputs: k8s.io/api `<group>/<version>/generated.proto` and `types.go`, k8s.io/apimachinery
 * `pkg/apis/meta/v1`, `pkg/runtime`, `pkg/util/intstr`, `pkg/api/resource`, and apiextensions-apiserver
 * `pkg/apis/apiextensions/v1`, all at one release tag. The generator that writes those files is
 * k8s.io/code-generator's go-to-protobuf.
 */
import { InputReadError } from './errors.ts';
import type { ProtoModel, ProtoModelField } from '../runtime/protobuf/model-types.ts';

export type { ProtoModel, ProtoModelField };

/** One input file of a package. */
export interface ProtoInputFile {
  /** Path inside its repository. */
  path: string;
  /** The file's text. */
  text: string;
}

/** One package: its `generated.proto` and its Go files (types, custom marshalers). */
export interface ProtoInputPackage {
  /** `owner/name` of the repository, e.g. `kubernetes/api`. */
  repository: string;
  /** Folder inside the repository, e.g. `core/v1`. */
  dir: string;
  /** The API group served from this package ('' for core, undefined when it is not a served group). */
  group: string | undefined;
  /** The `generated.proto` text. */
  proto: string;
  /** The package's Go files (tests and generated code excluded). */
  goFiles: ProtoInputFile[];
}

const scalarTypes = new Set(['string', 'bool', 'int32', 'int64', 'uint32', 'uint64', 'sint32', 'sint64', 'double', 'float', 'bytes', 'fixed32', 'fixed64']);

interface ProtoField {
  number: number;
  name: string;
  type: string;
  repeated: boolean;
  map: boolean;
}

/** Parses the subset of proto2 go-to-protobuf writes: package, flat messages, optional/repeated/map fields. */
export function parseProto(text: string, where: string): { pkg: string; messages: Map<string, ProtoField[]> } {
  const src = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
  const pkg = /^\s*package\s+([\w.]+)\s*;/m.exec(src)?.[1];
  if (pkg === undefined) throw new InputReadError(where, 'no package statement');
  const messages = new Map<string, ProtoField[]>();
  const re = /message\s+(\w+)\s*\{([^{}]*)\}/g;
  for (let m = re.exec(src); m !== null; m = re.exec(src)) {
    const fields: ProtoField[] = [];
    for (const line of m[2]!.split(';')) {
      const s = line.trim();
      if (s === '') continue;
      const map = /^map\s*<\s*string\s*,\s*([.\w]+)\s*>\s+(\w+)\s*=\s*(\d+)$/.exec(s);
      if (map !== null) {
        fields.push({ number: Number(map[3]), name: map[2]!, type: qualify(map[1]!, pkg), repeated: false, map: true });
        continue;
      }
      const f = /^(optional|repeated)\s+([.\w]+)\s+(\w+)\s*=\s*(\d+)(\s*\[[^\]]*\])?$/.exec(s);
      if (f === null) throw new InputReadError(where, `message ${m[1]}: cannot read field "${s}"`);
      fields.push({ number: Number(f[4]), name: f[3]!, type: qualify(f[2]!, pkg), repeated: f[1] === 'repeated', map: false });
    }
    messages.set(`${pkg}.${m[1]}`, fields);
  }
  return { pkg, messages };
}

function qualify(type: string, pkg: string): string {
  if (scalarTypes.has(type)) return type;
  if (type.startsWith('.')) return type.slice(1);
  return `${pkg}.${type}`;
}

interface GoField {
  number: number;
  json: string;
  omitempty: boolean;
  pointer: boolean;
  inline: boolean;
}

/** The struct fields with a protobuf tag of every struct, and the named slice types, of a package's Go files. */
export function parseGoStructs(files: ProtoInputFile[]): { structs: Map<string, GoField[]>; slices: Set<string> } {
  const structs = new Map<string, GoField[]>();
  const slices = new Set<string>();
  for (const file of files) {
    const lines = file.text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const slice = /^type\s+(\w+)\s+\[\]\S+\s*$/.exec(lines[i]!);
      if (slice !== null) slices.add(slice[1]!);
      const head = /^type\s+(\w+)\s+struct\s*\{\s*$/.exec(lines[i]!);
      if (head === null) continue;
      const fields: GoField[] = [];
      let depth = 1;
      for (i++; i < lines.length && depth > 0; i++) {
        const line = lines[i]!.replace(/\/\/.*$/, '');
        if (/^\}/.test(line) && depth === 1) break;
        depth += (line.match(/\{/g) ?? []).length - (line.match(/\}/g) ?? []).length;
        const tagged = /^\s*([^`]+?)\s*`([^`]*)`/.exec(line);
        if (tagged === null || depth !== 1) continue;
        const pb = /protobuf:"([^"]*)"/.exec(tagged[2]!)?.[1];
        if (pb === undefined) continue;
        const tokens = tagged[1]!.trim().split(/\s+/);
        const goType = tokens.length === 1 ? tokens[0]! : tokens.slice(1).join(' ');
        const json = /json:"([^"]*)"/.exec(tagged[2]!)?.[1] ?? '';
        const [jsonName = '', ...opts] = json.split(',');
        if (jsonName === '-') continue;
        fields.push({
          number: Number(pb.split(',')[1]),
          json: opts.includes('inline') ? '' : jsonName === '' ? tokens[0]! : jsonName,
          omitempty: opts.includes('omitempty') || opts.includes('omitzero'),
          pointer: goType.startsWith('*'),
          inline: opts.includes('inline'),
        });
      }
      structs.set(head[1]!, fields);
    }
  }
  return { structs, slices };
}

/** Builds the model from the packages of one release. */
export function buildProtoModel(packages: ProtoInputPackage[], source: ProtoModel['source']): ProtoModel {
  const messages: Record<string, ProtoModelField[]> = {};
  const groupVersions: Record<string, string> = {};
  const sliceWrappers: string[] = [];
  for (const p of [...packages].sort((a, b) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0))) {
    const where = `${p.repository}/${p.dir}/generated.proto`;
    const { pkg, messages: parsed } = parseProto(p.proto, where);
    const { structs, slices } = parseGoStructs(p.goFiles);
    if (p.group !== undefined) {
      const version = p.dir.slice(p.dir.lastIndexOf('/') + 1);
      groupVersions[p.group === '' ? version : `${p.group}/${version}`] = pkg;
    }
    for (const [name, fields] of parsed) {
      const short = name.slice(pkg.length + 1);
      if (slices.has(short)) sliceWrappers.push(name);
      // A message whose Go type has no protobuf-tagged field (a type alias, the named slices, types with
      // marshalers of their own such as Time or Quantity): its proto names stand for the JSON names.
      const tagged = structs.get(short);
      const goFields = tagged !== undefined && tagged.length > 0 ? tagged : undefined;
      const out: ProtoModelField[] = [];
      for (const f of fields) {
        const g = goFields?.find((x) => x.number === f.number);
        // A proto field the Go struct does not tag is not part of its JSON (json:"-").
        if (goFields !== undefined && g === undefined) continue;
        let flags = '';
        if (f.repeated) flags += 'r';
        if (f.map) flags += 'm';
        if (g?.omitempty === true) flags += 'o';
        if (g?.pointer === true) flags += 'p';
        if (g?.inline === true) flags += 'i';
        out.push([f.number, g === undefined ? f.name : g.json, f.type, flags]);
      }
      messages[name] = out;
    }
  }
  // Every referenced message must be in the model.
  for (const [name, fields] of Object.entries(messages)) {
    for (const [, json, type] of fields) {
      if (!scalarTypes.has(type) && messages[type] === undefined) throw new InputReadError(name, `field ${json}: type ${type} is not in any input package`);
    }
  }
  const sortedGv = Object.fromEntries(Object.entries(groupVersions).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const sortedMessages = Object.fromEntries(Object.entries(messages).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { source, groupVersions: sortedGv, sliceWrappers: sliceWrappers.sort(), messages: sortedMessages };
}

/** The model as the TypeScript module that is committed: one message per line, so a new release reads as a diff. */
export function emitProtoModel(model: ProtoModel, header: string): string {
  const lines: string[] = [header];
  lines.push(`/**`);
  lines.push(` * Kubernetes ${model.source.kubernetesVersion} protobuf messages (tag ${model.source.tag} of ${model.source.repositories.join(', ')}), derived`);
  lines.push(` * from their generated.proto files and the Go structs' json/protobuf tags. A field is`);
  lines.push(` * \`[number, jsonName, type, flags]\`: type is a proto scalar or a fully qualified message; flags are`);
  lines.push(` * r repeated, m map<string, type>, o omitempty, p Go pointer, i inlined into the parent's JSON.`);
  lines.push(` */`);
  lines.push(`import type { ProtoModel } from '../model-types.ts';`);
  lines.push('');
  lines.push(`/** The derived model (see the file comment). */`);
  lines.push(`export const kubernetesProto: ProtoModel = {`);
  lines.push(`  source: ${JSON.stringify(model.source)},`);
  lines.push(`  groupVersions: {`);
  for (const [gv, pkg] of Object.entries(model.groupVersions)) lines.push(`    ${JSON.stringify(gv)}: ${JSON.stringify(pkg)},`);
  lines.push(`  },`);
  lines.push(`  sliceWrappers: ${JSON.stringify(model.sliceWrappers)},`);
  lines.push(`  messages: {`);
  for (const [name, fields] of Object.entries(model.messages)) lines.push(`    ${JSON.stringify(name)}: ${JSON.stringify(fields)},`);
  lines.push(`  },`);
  lines.push(`};`);
  return `${lines.join('\n')}\n`;
}
