/**
 * Small helpers for writing TypeScript source text: TSDoc comments, property keys, identifiers and
 * relative import paths. Pure string functions, so the generator's output depends only on its input.
 */

/** A TSDoc block for `text` at `indent`, or '' when there is no text. `*\/` cannot end the comment early. */
export function docComment(text: string | undefined, indent = ''): string {
  if (text === undefined || text.trim() === '') return '';
  const safe = text.replaceAll('*/', '*\\/').replaceAll('\r', '');
  const lines = safe.split('\n').map((l) => l.trimEnd());
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((l) => (l === '' ? `${indent} *` : `${indent} * ${l}`)).join('\n')}\n${indent} */\n`;
}

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A property key: bare when it is an identifier, quoted otherwise (`'x-kubernetes-map-type'`). */
export function propertyKey(name: string): string {
  return identifier.test(name) ? name : `'${name.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

/** `PascalCase` of a word list or a dashed/dotted/underscored name. */
export function pascalCase(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter((p) => p !== '')
    .map((p) => p[0]!.toUpperCase() + p.slice(1))
    .join('');
}

/**
 * Lower camel case the way client-go's generated accessors read: a leading acronym is lowered as a
 * whole (`CSIDrivers` → `csiDrivers`, `IPAddresses` → `ipAddresses`, `Pods` → `pods`).
 */
export function lowerCamel(name: string): string {
  const m = /^([A-Z]+)([A-Z][a-z].*)$/.exec(name);
  if (m !== null) return m[1]!.toLowerCase() + m[2];
  const lead = /^[A-Z]+/.exec(name);
  if (lead === null) return name;
  return lead[0].toLowerCase() + name.slice(lead[0].length);
}

/** The alias a module is imported under: `core/v1` → `coreV1`, `apimachinery` → `apimachinery`. */
export function moduleAlias(module: string): string {
  const parts = module.split(/[/.-]/).filter((p) => p !== '');
  const alias = parts.map((p, i) => (i === 0 ? p.toLowerCase() : p[0]!.toUpperCase() + p.slice(1))).join('');
  return /^[0-9]/.test(alias) ? `m${alias}` : alias;
}

/** The relative import specifier from the file `from` to the file `to` (both relative to one root). */
export function relativeImport(from: string, to: string): string {
  const a = from.split('/').slice(0, -1);
  const b = to.split('/');
  let i = 0;
  while (i < a.length && i < b.length - 1 && a[i] === b[i]) i++;
  const up = a.length - i;
  const rest = b.slice(i).join('/');
  return up === 0 ? `./${rest}` : `${'../'.repeat(up)}${rest}`;
}

/** A string literal type / value in single quotes. */
export function literal(value: string): string {
  return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'").replaceAll('\n', '\\n')}'`;
}
