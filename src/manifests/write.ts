/**
 * Writing the config/ tree: each file replaced only when its text changed (so timestamps of unchanged
 * files stay), and files an earlier run wrote (they start with the generated header) that this run no
 * longer produces are removed, e.g. the CRD of a kind that was deleted. Files without the header are
 * the user's and are never touched.
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { generatedHeader } from './config.ts';

/** What {@link writeConfig} did, as paths relative to the config folder. */
export interface WriteResult {
  /** Files written because they were new or changed. */
  written: string[];
  /** Files left as they were. */
  unchanged: string[];
  /** Generated files removed. */
  removed: string[];
}

async function existingFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
}

/** Writes `files` (paths relative to `dir`) into `dir`. */
export async function writeConfig(dir: string, files: ReadonlyMap<string, string>): Promise<WriteResult> {
  const result: WriteResult = { written: [], unchanged: [], removed: [] };
  for (const rel of await existingFiles(dir)) {
    if (files.has(rel)) continue;
    const text = await readFile(path.join(dir, rel), 'utf8');
    if (text.startsWith(generatedHeader)) {
      await rm(path.join(dir, rel));
      result.removed.push(rel);
    }
  }
  for (const [rel, text] of files) {
    const target = path.join(dir, rel);
    const old = await readFile(target, 'utf8').catch(() => undefined);
    if (old === text) {
      result.unchanged.push(rel);
      continue;
    }
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, text);
    result.written.push(rel);
  }
  return result;
}
