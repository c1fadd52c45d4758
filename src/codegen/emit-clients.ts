/**
 * Stage 2, clients: the model's group-versions → the typed clientset's metadata and interfaces
 * (what client-gen, lister-gen and informer-gen produce for client-go, as data plus types):
 *
 * - `kubernetes/typed/resources.ts`: the table every typed client and informer is built from at run
 *   time (group-versions, resources, scope, verbs, subresources), plain data;
 * - `kubernetes/typed/<module>.ts`: per group-version, one interface per resource (its object type,
 *   apply configuration, verbs and subresource methods) and the group's accessor interface;
 * - `kubernetes/typed/clientset.ts`: the clientset's group accessors;
 * - `informers/typed/informers.ts`: per group-version, the informer and lister accessors of every
 *   resource that can be listed and watched.
 */
import { moduleOfType, simpleNameOfType, type ApiModel, type GroupVersionModel, type ResourceModel, type SubresourceModel } from './model.ts';
import { literal, lowerCamel, moduleAlias, pascalCase, relativeImport } from './ts-text.ts';
import type { ApplyRoot } from './emit-types.ts';

/** Subresource names whose word boundaries a plain PascalCase would lose. */
const subresourceMethodNames: Record<string, string> = {
  ephemeralcontainers: 'EphemeralContainers',
  portforward: 'PortForward',
};

/** The verbs a resource must serve for its client to be the whole ResourceClient. */
const fullVerbs = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] as const;

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `coreV1`, `appsV1`, `internalV1alpha1`: client-go's group accessor names. */
export function groupAccessor(group: string, version: string): string {
  const first = group === '' ? 'core' : group.split('.')[0]!.toLowerCase();
  return `${first}${version[0]!.toUpperCase()}${version.slice(1)}`;
}

/**
 * The accessor of a resource: its plural with the kind's word boundaries (`configmaps` of kind
 * ConfigMap → `configMaps`, `networkpolicies` of NetworkPolicy → `networkPolicies`).
 */
export function resourceAccessor(kind: string, resource: string): string {
  const lower = kind.toLowerCase();
  let i = 0;
  while (i < lower.length && i < resource.length && lower[i] === resource[i]) i++;
  return lowerCamel(kind.slice(0, i) + resource.slice(i));
}

/** The name inside a subresource's method names (`Status`, `Scale`, `EphemeralContainers`). */
export function subresourceMethod(name: string): string {
  return subresourceMethodNames[name] ?? pascalCase(name);
}

/** The module (under api/, applyconfigurations/, kubernetes/typed/) of a group-version. */
export function moduleOfGroupVersion(gv: GroupVersionModel): string {
  const typed = gv.resources.find((r) => r.type !== undefined);
  return typed !== undefined ? moduleOfType(typed.type!) : groupAccessor(gv.group, gv.version);
}

/** The apply roots of the built-in API: every resource kind, plus the kinds applied through subresources. */
export function applyRootsOf(model: ApiModel): ApplyRoot[] {
  const roots = new Map<string, ApplyRoot>();
  for (const gv of model.groupVersions) {
    for (const r of gv.resources) {
      if (r.type !== undefined && r.verbs.includes('patch')) roots.set(r.type, { type: r.type, group: gv.group, version: gv.version, kind: r.kind, namespaced: r.namespaced });
      for (const s of r.subresources) {
        if (s.type !== undefined && s.verbs.includes('patch') && !roots.has(s.type)) roots.set(s.type, { type: s.type, group: s.group, version: s.version, kind: s.kind, namespaced: false });
      }
    }
  }
  return [...roots.values()].sort((a, b) => compare(a.type, b.type));
}

/** How {@link emitClientModules} names files and imports. */
export interface ClientEmitOptions {
  header: string;
  /** Import specifier of a type module (`api` or `apply` layer) from a file at `fromFile` (relative to src/). */
  typeImport: (fromFile: string, module: string, layer: 'api' | 'apply') => string;
}

/** One emitted file, path relative to src/. */
export interface EmittedFile {
  path: string;
  text: string;
}

interface TypeRefs {
  imports: Map<string, string>;
  ref(typeName: string | undefined, layer: 'api' | 'apply'): string;
}

function typeRefs(fromFile: string, options: ClientEmitOptions, model: ApiModel): TypeRefs {
  const imports = new Map<string, string>();
  return {
    imports,
    ref(typeName, layer) {
      if (typeName === undefined || model.types[typeName] === undefined) return 'unknown';
      const module = moduleOfType(typeName);
      const alias = `${moduleAlias(module)}${layer === 'apply' ? 'Apply' : ''}`;
      imports.set(alias, options.typeImport(fromFile, module, layer));
      return `${alias}.${simpleNameOfType(typeName)}${layer === 'apply' ? 'ApplyConfiguration' : ''}`;
    },
  };
}

function importLines(imports: Map<string, string>): string {
  return [...imports.entries()]
    .sort(([a], [b]) => compare(a, b))
    .map(([alias, spec]) => `import type * as ${alias} from '${spec}';\n`)
    .join('');
}

/** Emits the typed client and informer files for the model. */
export function emitClientModules(model: ApiModel, options: ClientEmitOptions): EmittedFile[] {
  const applyRoots = new Set(applyRootsOf(model).map((r) => r.type));
  const files: EmittedFile[] = [];
  files.push({ path: 'kubernetes/typed/resources.ts', text: emitTable(model, options) });
  const groups: Array<{ accessor: string; module: string; iface: string; gv: GroupVersionModel }> = [];
  for (const gv of model.groupVersions) {
    const module = moduleOfGroupVersion(gv);
    const path = `kubernetes/typed/${module}.ts`;
    const iface = `${pascalCase(groupAccessor(gv.group, gv.version))}Interface`;
    groups.push({ accessor: groupAccessor(gv.group, gv.version), module, iface, gv });
    files.push({ path, text: emitGroupClient(gv, iface, path, options, model, applyRoots) });
  }
  files.push({ path: 'kubernetes/typed/clientset.ts', text: emitClientset(groups, options) });
  files.push({ path: 'informers/typed/informers.ts', text: emitInformers(groups, options, model) });
  return files;
}

function emitTable(model: ApiModel, options: ClientEmitOptions): string {
  const out: string[] = [options.header, "import type { GroupVersionSpec } from '../resource-spec.ts';\n\n"];
  out.push('/** Every built-in group-version with its resources, as the OpenAPI documents describe them. */\n');
  out.push('export const builtinGroupVersions: readonly GroupVersionSpec[] = [\n');
  for (const gv of model.groupVersions) {
    out.push(`  {\n    accessor: ${literal(groupAccessor(gv.group, gv.version))},\n    group: ${literal(gv.group)},\n    version: ${literal(gv.version)},\n    resources: [\n`);
    for (const r of gv.resources) {
      const subs = r.subresources.map((s) => {
        const fields = [
          `name: ${literal(s.name)}`,
          `method: ${literal(subresourceMethod(s.name))}`,
          `group: ${literal(s.group)}`,
          `version: ${literal(s.version)}`,
          `kind: ${literal(s.kind)}`,
          `verbs: [${s.verbs.map(literal).join(', ')}]`,
          `sameKind: ${String(isSameKind(gv, r, s))}`,
        ];
        if (s.text === true) fields.push('text: true');
        return `{ ${fields.join(', ')} }`;
      });
      out.push(
        `      { accessor: ${literal(resourceAccessor(r.kind, r.name))}, resource: ${literal(r.name)}, kind: ${literal(r.kind)}, namespaced: ${String(r.namespaced)}, verbs: [${r.verbs.map(literal).join(', ')}], subresources: [${subs.length === 0 ? '' : `\n          ${subs.join(',\n          ')},\n        `}] },\n`,
      );
    }
    out.push('    ],\n  },\n');
  }
  out.push('];\n');
  return out.join('');
}

function isSameKind(gv: GroupVersionModel, r: ResourceModel, s: SubresourceModel): boolean {
  return s.group === gv.group && s.version === gv.version && s.kind === r.kind;
}

function hasFullVerbs(r: ResourceModel): boolean {
  return fullVerbs.every((v) => r.verbs.includes(v));
}

function emitGroupClient(gv: GroupVersionModel, iface: string, path: string, options: ClientEmitOptions, model: ApiModel, applyRoots: ReadonlySet<string>): string {
  const refs = typeRefs(path, options, model);
  const runtime = new Set<string>();
  const optionTypes = new Set<string>();
  const body: string[] = [];
  const gvName = gv.group === '' ? gv.version : `${gv.group}/${gv.version}`;
  const accessors: string[] = [];
  for (const r of gv.resources) {
    const obj = refs.ref(r.type, 'api');
    const apply = r.type !== undefined && applyRoots.has(r.type) ? refs.ref(r.type, 'apply') : `ApplyConfiguration<${obj}>`;
    if (apply.startsWith('ApplyConfiguration<')) runtime.add('ApplyConfiguration');
    const name = `${r.kind}Interface`;
    const parents: string[] = [];
    if (hasFullVerbs(r)) {
      runtime.add('ResourceClient');
      parents.push(`ResourceClient<${obj}, ${apply}>`);
    } else {
      runtime.add('ResourceClientInfo');
      parents.push('ResourceClientInfo');
      const verbIfaces: Record<string, string> = {
        create: `CreateVerb<${obj}>`,
        get: `GetVerb<${obj}>`,
        list: `ListVerb<${obj}>`,
        watch: `WatchVerb<${obj}>`,
        update: `UpdateVerb<${obj}>`,
        patch: `PatchVerb<${obj}, ${apply}>`,
        delete: `DeleteVerb<${obj}>`,
        deletecollection: 'DeleteCollectionVerb',
      };
      for (const v of r.verbs) {
        const i = verbIfaces[v];
        if (i === undefined) continue;
        runtime.add(i.split('<')[0]!);
        parents.push(i);
      }
    }
    const methods: string[] = [];
    for (const s of r.subresources) {
      const m = subresourceMethod(s.name);
      const same = isSameKind(gv, r, s);
      const subObj = same ? obj : refs.ref(s.type, 'api');
      const subApply = same ? apply : s.type !== undefined && applyRoots.has(s.type) ? refs.ref(s.type, 'apply') : undefined;
      const at = `${r.name}/${s.name}`;
      for (const verb of s.verbs) {
        if (verb === 'get') {
          if (s.text === true) {
            optionTypes.add('PodLogOptions');
            methods.push(`  /** Reads ${at} as text. */\n  get${m}(name: string, options?: ${s.name === 'log' ? 'PodLogOptions' : 'RequestOptions & Record<string, string | number | boolean | undefined>'}): Promise<string>;\n`);
            if (s.name !== 'log') optionTypes.add('RequestOptions');
          } else {
            optionTypes.add('GetOptions');
            methods.push(`  /** Reads ${at}. */\n  get${m}(name: string, options?: GetOptions): Promise<${subObj}>;\n`);
          }
        } else if (verb === 'update') {
          optionTypes.add('UpdateOptions');
          methods.push(
            same
              ? `  /** Replaces ${at} (PUT), named by \`obj.metadata.name\`. */\n  update${m}(obj: ${subObj}, options?: UpdateOptions): Promise<${subObj}>;\n`
              : `  /** Replaces ${at} of object \`name\` (PUT). */\n  update${m}(name: string, body: ${subObj}, options?: UpdateOptions): Promise<${subObj}>;\n`,
          );
        } else if (verb === 'patch') {
          optionTypes.add('PatchOptions');
          optionTypes.add('PatchTypeValue');
          methods.push(`  /** Patches ${at}. */\n  patch${m}(name: string, patchType: PatchTypeValue, patch: unknown, options?: PatchOptions): Promise<${subObj}>;\n`);
          if (subApply !== undefined && s.text !== true) {
            optionTypes.add('ApplyOptions');
            methods.push(
              same
                ? `  /** Server-side apply to ${at}, named by \`obj.metadata.name\`. */\n  apply${m}(obj: ${subApply}, options: ApplyOptions): Promise<${subObj}>;\n`
                : `  /** Server-side apply to ${at} of object \`name\`. */\n  apply${m}(name: string, body: ${subApply}, options: ApplyOptions): Promise<${subObj}>;\n`,
            );
          }
        } else if (verb === 'create') {
          optionTypes.add('CreateOptions');
          methods.push(`  /** Creates ${at} of object \`name\` (POST). */\n  create${m}(name: string, body: ${subObj}, options?: CreateOptions): Promise<${subObj}>;\n`);
        }
      }
    }
    const connect = r.subresources.filter((s) => s.verbs.includes('connect')).map((s) => s.name);
    const doc = [`The typed client of ${gvName} ${r.name} (kind ${r.kind}, ${r.namespaced ? 'namespaced' : 'cluster-scoped'}; verbs ${r.verbs.join(', ')}).`];
    if (connect.length > 0) doc.push(`Streaming subresources (${connect.join(', ')}) have no typed method.`);
    body.push(`/** ${doc.join(' ')} */\nexport interface ${name} extends ${parents.join(', ')} {\n${methods.join('')}}\n`);
    accessors.push(
      r.namespaced
        ? `  /** ${r.name} in \`namespace\` ('' or omitted: all namespaces). */\n  ${resourceAccessor(r.kind, r.name)}(namespace?: string): ${name};\n`
        : `  /** ${r.name} (cluster-scoped). */\n  ${resourceAccessor(r.kind, r.name)}(): ${name};\n`,
    );
  }
  const runtimeImports: string[] = [];
  const verbNames = ['CreateVerb', 'DeleteCollectionVerb', 'DeleteVerb', 'GetVerb', 'ListVerb', 'PatchVerb', 'ResourceClientInfo', 'UpdateVerb', 'WatchVerb'].filter((v) => runtime.has(v));
  const fromHere = (target: string): string => relativeImport(path, target);
  const optionNames = ['ApplyOptions', 'CreateOptions', 'GetOptions', 'PatchOptions', 'PatchTypeValue', 'RequestOptions', 'UpdateOptions'].filter((o) => optionTypes.has(o));
  if (optionNames.length > 0) runtimeImports.push(`import type { ${optionNames.join(', ')} } from '${fromHere('apimachinery/options.ts')}';\n`);
  if (optionTypes.has('PodLogOptions')) runtimeImports.push(`import type { PodLogOptions } from '${fromHere('kubernetes/pod-logs.ts')}';\n`);
  const rc = ['ApplyConfiguration', 'ResourceClient'].filter((n) => runtime.has(n));
  if (rc.length > 0) runtimeImports.push(`import type { ${rc.join(', ')} } from '${fromHere('kubernetes/resource-client.ts')}';\n`);
  if (verbNames.length > 0) runtimeImports.push(`import type { ${verbNames.join(', ')} } from '${fromHere('kubernetes/verbs.ts')}';\n`);
  body.push(`/** The ${gvName} group client: one accessor per resource. */\nexport interface ${iface} {\n${accessors.join('')}}\n`);
  return `${options.header}${runtimeImports.join('')}${importLines(refs.imports)}\n${body.join('\n')}`;
}

function emitClientset(groups: Array<{ accessor: string; module: string; iface: string; gv: GroupVersionModel }>, options: ClientEmitOptions): string {
  const path = 'kubernetes/typed/clientset.ts';
  const imports = groups.map((g) => `import type { ${g.iface} } from '${relativeImport(path, `kubernetes/typed/${g.module}.ts`)}';\n`).sort();
  const lines = groups.map((g) => `  /** The ${g.gv.group === '' ? 'core' : g.gv.group} ${g.gv.version} client. */\n  ${g.accessor}(): ${g.iface};\n`);
  return `${options.header}${imports.join('')}\n/** The typed clientset's group accessors, one per built-in group-version. */\nexport interface TypedClientset {\n${lines.join('')}}\n`;
}

function emitInformers(groups: Array<{ accessor: string; module: string; iface: string; gv: GroupVersionModel }>, options: ClientEmitOptions, model: ApiModel): string {
  const path = 'informers/typed/informers.ts';
  const refs = typeRefs(path, options, model);
  const body: string[] = [];
  const accessors: string[] = [];
  for (const g of groups) {
    const informable = g.gv.resources.filter((r) => r.verbs.includes('list') && r.verbs.includes('watch'));
    if (informable.length === 0) continue;
    const name = `${pascalCase(g.accessor)}Informers`;
    const lines = informable.map((r) => `  /** The shared informer and lister of ${r.name}. */\n  ${resourceAccessor(r.kind, r.name)}(): GenericInformer<${refs.ref(r.type, 'api')}>;\n`);
    body.push(`/** Informers of ${g.gv.group === '' ? 'core' : g.gv.group} ${g.gv.version}. */\nexport interface ${name} {\n${lines.join('')}}\n`);
    accessors.push(`  /** Informers of ${g.gv.group === '' ? 'core' : g.gv.group} ${g.gv.version}. */\n  ${g.accessor}(): ${name};\n`);
  }
  body.push(`/** The typed accessors of the shared informer factory, one per group-version with informable resources. */\nexport interface TypedInformerAccessors {\n${accessors.join('')}}\n`);
  return `${options.header}import type { GenericInformer } from '${relativeImport(path, 'tools/cache/shared-informer-factory.ts')}';\n${importLines(refs.imports)}\n${body.join('\n')}`;
}
