/**
 * Stage 2 for CRDs: per served CRD version, a folder `<group>/<version>/` with
 *
 * - `types.ts`: the object types (TSDoc from `description`, enums as unions, int-or-string as
 *   `number | string`, preserve-unknown-fields as `unknown` maps, embedded resources with their
 *   apiVersion/kind/metadata);
 * - `apply.ts`: deep apply configurations (identity required, everything else optional, list-map
 *   keys required);
 * - `index.ts`: both re-exported, plus one registration per kind (`widgetResource`) for
 *   `clientset.forCustomResource()` and `factory.forCustomResource()`.
 *
 * Built-in types the CRD types use (ObjectMeta) are imported from kubeloom.
 */
import type { EmittedFile } from './emit-clients.ts';
import { emitTypeModules, type ApplyRoot, type Layer } from './emit-types.ts';
import { crdPackage, typeScriptModelOf, type CrdVersionInfo } from './crd-model.ts';
import { moduleOfType, type ApiModel } from './model.ts';
import { literal, lowerCamel, relativeImport } from './ts-text.ts';

/** How generated CRD code reaches kubeloom. */
export interface CrdEmitOptions {
  /** Header comment of every file. */
  header: string;
  /**
   * The import specifier of a kubeloom module (`api/meta/v1`, `applyconfigurations/meta/v1`,
   * `kubernetes`) from the generated file `fromFile` (relative to the output folder). Default:
   * the package, `kubeloom/<subpath>`.
   */
  kubeloomImport?: (subpath: string, fromFile: string) => string;
}

const layerFile: Record<Layer, string> = { api: 'types.ts', apply: 'apply.ts' };

/** Emits the TypeScript of a CRD model; paths are relative to the output folder, sorted. */
export function emitCrdFiles(model: ApiModel, versions: readonly CrdVersionInfo[], options: CrdEmitOptions): EmittedFile[] {
  const kubeloom = options.kubeloomImport ?? ((subpath: string) => `kubeloom/${subpath}`);
  const packages = new Map(versions.map((v) => [crdPackage(v.group, v.version), `${v.group}/${v.version}`] as const));
  const moduleOf = (typeName: string): string => packages.get(typeName.slice(0, typeName.lastIndexOf('.'))) ?? moduleOfType(typeName);
  const roots: ApplyRoot[] = versions.map((v) => ({ type: v.type, group: v.group, version: v.version, kind: v.kind, namespaced: v.namespaced }));
  const own = new Set<string>(packages.values());
  const files: EmittedFile[] = [];
  for (const m of emitTypeModules(typeScriptModelOf(model), {
    header: options.header,
    moduleOf,
    applyRoots: roots,
    modules: own,
    importOf: (fromModule, fromLayer, toModule, toLayer) => {
      const from = `${fromModule}/${layerFile[fromLayer]}`;
      if (own.has(toModule)) return relativeImport(from, `${toModule}/${layerFile[toLayer]}`);
      return kubeloom(`${toLayer === 'api' ? 'api' : 'applyconfigurations'}/${toModule}`, from);
    },
  })) {
    files.push({ path: `${m.module}/${layerFile[m.layer]}`, text: m.text });
  }
  for (const module of [...own].sort()) {
    const path = `${module}/index.ts`;
    const here = versions.filter((v) => `${v.group}/${v.version}` === module);
    const lines: string[] = [options.header];
    lines.push(`import { defineCustomResource } from '${kubeloom('kubernetes', path)}';\n`);
    lines.push(`import type { ${here.map((v) => v.kind).join(', ')} } from './types.ts';\n`);
    lines.push(`import type { ${here.map((v) => `${v.kind}ApplyConfiguration`).join(', ')} } from './apply.ts';\n\n`);
    lines.push("export type * from './types.ts';\nexport type * from './apply.ts';\n");
    for (const v of here) {
      const subs = v.subresources.map(literal).join(', ');
      lines.push(
        `\n/** ${v.group}/${v.version} ${v.plural} (kind ${v.kind}, ${v.namespaced ? 'namespaced' : 'cluster-scoped'}): pass to \`clientset.forCustomResource()\` or \`factory.forCustomResource()\`. */\n` +
          `export const ${lowerCamel(v.kind)}Resource = defineCustomResource<${v.kind}, ${v.kind}ApplyConfiguration>({ group: ${literal(v.group)}, version: ${literal(v.version)}, resource: ${literal(v.plural)}, kind: ${literal(v.kind)}, namespaced: ${String(v.namespaced)}, subresources: [${subs}] });\n`,
      );
    }
    files.push({ path, text: lines.join('') });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
