/**
 * Where `create api` adds lines to files it wrote before (kubebuilder's `+kubebuilder:scaffold:*`
 * markers in cmd/main.go): each anchor is a comment line; new lines go right above it, with its
 * indentation. A line already present is not added twice. Anchors are for scaffolding only; manifests
 * never read comments.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { ScaffoldError } from './errors.ts';

/** The anchor comment for `name`: `// kubeloom:scaffold:<name>`, or `# …` in YAML. */
export function anchor(name: string, comment: '//' | '#' = '//'): string {
  return `${comment} kubeloom:scaffold:${name}`;
}

/** Inserts `lines` above the anchor `name` in `text`; throws when the anchor is missing. */
export function insertAtAnchor(text: string, name: string, lines: readonly string[], file: string): string {
  const comment = file.endsWith('.yaml') ? '#' : '//';
  const marker = anchor(name, comment);
  const out = text.split('\n');
  const at = out.findIndex((l) => l.trim() === marker);
  if (at < 0) throw new ScaffoldError(`${file} has no "${marker}" line: add the new lines by hand (${lines.map((l) => l.trim()).join(' ')})`);
  const indent = out[at]!.slice(0, out[at]!.indexOf(comment));
  const fresh = lines.filter((l) => !out.some((existing) => existing.trim() === l.trim()));
  out.splice(at, 0, ...fresh.map((l) => `${indent}${l}`));
  return out.join('\n');
}

/** Applies {@link insertAtAnchor} for each anchor to the file at `path`. */
export async function insertIntoFile(path: string, inserts: Record<string, readonly string[]>, display: string): Promise<void> {
  let text = await readFile(path, 'utf8');
  for (const [name, lines] of Object.entries(inserts)) text = insertAtAnchor(text, name, lines, display);
  await writeFile(path, text);
}
