/**
 * Keeps the TypeScript snippets of README.md and docs/*.md equal to regions of the runnable,
 * type-checked programs in examples/, so documentation cannot drift from code that compiles and runs.
 *
 * In Markdown, every ```ts block is preceded by a marker naming its source:
 *
 *   <!-- example: examples/clientset.ts#tour -->
 *
 * In the example, the region is delimited by `// #region tour` and `// #endregion` lines. A region
 * may appear several times in a file (an import at the top, code further down): its parts are
 * joined with a blank line, each dedented on its own. Region marker lines never appear in snippets.
 *
 * `npm run docs:snippets` rewrites the Markdown from the examples; test/doc-snippets.test.ts fails
 * when a block lacks a marker, names a missing region, or differs from it.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

const regionStart = /^\s*\/\/ #region (\S+)\s*$/;
const regionEnd = /^\s*\/\/ #endregion\b/;
const marker = /^<!-- example: (\S+?)#(\S+) -->$/;

/** Removes the indentation common to the non-empty lines. */
function dedent(lines: string[]): string[] {
  const indents = lines.filter((l) => l.trim() !== '').map((l) => /^ */.exec(l)![0].length);
  const min = indents.length === 0 ? 0 : Math.min(...indents);
  return lines.map((l) => l.slice(min));
}

/** The regions of an example's source text, by name. */
export function extractRegions(source: string): Map<string, string> {
  const parts = new Map<string, string[][]>();
  const open: Array<{ name: string; lines: string[] }> = [];
  for (const line of source.split('\n')) {
    const start = regionStart.exec(line);
    if (start !== null) {
      open.push({ name: start[1]!, lines: [] });
      continue;
    }
    if (regionEnd.test(line)) {
      const done = open.pop();
      if (done === undefined) throw new Error(`#endregion without #region: ${line.trim()}`);
      const list = parts.get(done.name) ?? [];
      list.push(dedent(done.lines));
      parts.set(done.name, list);
      continue;
    }
    for (const region of open) region.lines.push(line);
  }
  if (open.length > 0) throw new Error(`unclosed #region ${open.map((r) => r.name).join(', ')}`);
  return new Map([...parts].map(([name, list]) => [name, list.map((lines) => lines.join('\n').trim()).join('\n\n')]));
}

/** A problem found in a Markdown file. */
export interface SnippetProblem {
  /** Markdown file, relative to the root. */
  file: string;
  /** 1-based line of the code block's opening fence. */
  line: number;
  /** What is wrong. */
  message: string;
}

/** The Markdown files whose snippets are checked: README.md and docs/*.md. */
export async function markdownFiles(): Promise<string[]> {
  const docs = (await readdir(path.join(root, 'docs'))).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
  return ['README.md', ...docs.sort()];
}

/**
 * Checks (and with `write`, rewrites) every ```ts block of `file` against its example region.
 * Returns the problems and the text the file should have.
 */
export async function syncFile(file: string, regionsOf: (example: string) => Promise<Map<string, string> | undefined>): Promise<{ problems: SnippetProblem[]; text: string }> {
  const lines = (await readFile(path.join(root, file), 'utf8')).split('\n');
  const out: string[] = [];
  const problems: SnippetProblem[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!/^```(ts|typescript)\s*$/.test(line)) {
      out.push(line);
      continue;
    }
    const end = lines.findIndex((l, j) => j > i && l.startsWith('```'));
    if (end < 0) throw new Error(`${file}:${i + 1}: unterminated code block`);
    const body = lines.slice(i + 1, end).join('\n');
    const m = marker.exec(lines[i - 1] ?? '');
    let expected = body;
    if (m === null) {
      problems.push({ file, line: i + 1, message: 'TypeScript block without an <!-- example: examples/<file>.ts#<region> --> marker on the line before' });
    } else {
      const regions = await regionsOf(m[1]!);
      const region = regions?.get(m[2]!);
      if (regions === undefined) problems.push({ file, line: i + 1, message: `${m[1]} does not exist` });
      else if (region === undefined) problems.push({ file, line: i + 1, message: `${m[1]} has no region "${m[2]}"` });
      else {
        expected = region;
        if (region !== body) problems.push({ file, line: i + 1, message: `differs from ${m[1]}#${m[2]} (npm run docs:snippets rewrites it)` });
      }
    }
    out.push(line, expected, lines[end]!);
    i = end;
  }
  return { problems, text: out.join('\n') };
}

/** Checks every Markdown file; with `write`, rewrites blocks that differ from their regions. */
export async function syncAll(write: boolean): Promise<SnippetProblem[]> {
  const cache = new Map<string, Promise<Map<string, string> | undefined>>();
  const regionsOf = (example: string): Promise<Map<string, string> | undefined> => {
    let regions = cache.get(example);
    if (regions === undefined) {
      regions = readFile(path.join(root, example), 'utf8').then(extractRegions, () => undefined);
      cache.set(example, regions);
    }
    return regions;
  };
  const problems: SnippetProblem[] = [];
  for (const file of await markdownFiles()) {
    const result = await syncFile(file, regionsOf);
    problems.push(...result.problems);
    if (write) await writeFile(path.join(root, file), result.text);
  }
  return write ? problems.filter((p) => !p.message.startsWith('differs from')) : problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const problems = await syncAll(process.argv.includes('--write'));
  for (const p of problems) process.stderr.write(`${p.file}:${p.line}: ${p.message}\n`);
  process.exitCode = problems.length > 0 ? 1 : 0;
}
