/**
 * Reading and writing the golden files: `golden/<area>/<name>.json`, one per scenario, each the
 * normalised answers of a real kube-apiserver with the versions they were recorded from.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stableJson, type Normalised } from './normalise.ts';

/** The directory of the golden files. */
export const goldenDir = join(dirname(fileURLToPath(import.meta.url)), 'golden');

/** A golden file's content. */
export interface Golden extends Normalised {
  /** Versions of the server and kubectl the answers came from. */
  recordedFrom: { server: string; kubectl: string };
}

/** The path of a scenario's golden file. */
export function goldenPath(id: string): string {
  return join(goldenDir, `${id}.json`);
}

/** Reads a scenario's golden file; undefined when it was never recorded. */
export async function readGolden(id: string): Promise<Golden | undefined> {
  try {
    return JSON.parse(await readFile(goldenPath(id), 'utf8')) as Golden;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Writes a scenario's golden file. */
export async function writeGolden(g: Golden): Promise<void> {
  const path = goldenPath(g.id);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, stableJson(g));
}
