/**
 * Reading CRDs for `kubeloom generate crd`: YAML or JSON files (several documents per file, `List`
 * documents flattened), folders searched recursively in name order, or the CRDs a cluster serves.
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { InputReadError } from './errors.ts';
import type { CrdDocument } from './crd-model.ts';

const manifestExtensions = ['.yaml', '.yml', '.json'];

async function filesUnder(path: string): Promise<string[]> {
  let info;
  try {
    info = await stat(path);
  } catch (err) {
    throw new InputReadError(path, 'no such file or folder', { cause: err });
  }
  if (!info.isDirectory()) return [path];
  const entries = (await readdir(path, { recursive: true })).map((e) => e.split('\\').join('/')).sort();
  return entries.filter((e) => manifestExtensions.some((ext) => e.endsWith(ext))).map((e) => join(path, e));
}

/** Parses the documents of one manifest file (YAML, or JSON as YAML's subset). */
export function parseManifest(file: string, text: string): CrdDocument[] {
  const docs = parseAllDocuments(text);
  const out: CrdDocument[] = [];
  const multi = docs.length > 1;
  for (const [i, doc] of docs.entries()) {
    if (doc.errors.length > 0) throw new InputReadError(multi ? `${file}#${i}` : file, `not valid YAML: ${doc.errors[0]!.message}`, { cause: doc.errors[0] });
    const object: unknown = doc.toJS();
    if (object === null || object === undefined) continue;
    const source = multi ? `${file}#${i}` : file;
    const items = (object as { kind?: unknown; items?: unknown }).items;
    if (typeof (object as { kind?: unknown }).kind === 'string' && ((object as { kind: string }).kind.endsWith('List')) && Array.isArray(items)) {
      items.forEach((item: unknown, j) => out.push({ source: `${source}.items[${j}]`, file, text, object: item }));
    } else {
      out.push({ source, file, text, object });
    }
  }
  return out;
}

/** Reads every manifest in `paths` (files or folders), in the order given, folders sorted. */
export async function readCrdDocuments(paths: readonly string[]): Promise<CrdDocument[]> {
  const out: CrdDocument[] = [];
  for (const path of paths) {
    for (const file of await filesUnder(path)) {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (err) {
        throw new InputReadError(file, 'cannot be read', { cause: err });
      }
      out.push(...parseManifest(file, text));
    }
  }
  return out;
}
