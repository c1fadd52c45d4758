/**
 * `kubeloom init DIR` (kubebuilder's `init`): writes a runnable project into DIR, which must be
 * empty or absent. See templates/project.ts for the files and docs/ship.md for the layout.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { kubeloomVersion } from '../version.ts';
import { ScaffoldError } from './errors.ts';
import { dockerfile, dockerignore, eslintConfig, gitignore, mainTs, packageJson, readme, setupTestTs, setupTs, testEnvTs, tsconfigJson, type ProjectSettings } from './templates/project.ts';

/** Options of {@link initProject}. */
export interface InitOptions {
  /** The domain of the project's API groups (kubebuilder's --domain). Default `example.com`. */
  domain?: string;
  /** The `kubeloom` dependency spec. Default `^<this kubeloom's version>`. */
  kubeloomSpec?: string;
  /** The project name. Default: DIR's base name. */
  name?: string;
}

/** Writes files (paths relative to `dir`), creating folders. */
export async function writeFiles(dir: string, files: Record<string, string>): Promise<string[]> {
  for (const [rel, text] of Object.entries(files)) {
    const target = path.join(dir, rel);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, text, { flag: 'wx' }).catch((err: NodeJS.ErrnoException) => {
      throw err.code === 'EEXIST' ? new ScaffoldError(`${rel} already exists`, { cause: err }) : err;
    });
  }
  return Object.keys(files);
}

/** Scaffolds a project in `dir`; returns the files written. */
export async function initProject(dir: string, options: InitOptions = {}): Promise<string[]> {
  const name = options.name ?? path.basename(path.resolve(dir));
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name) || name.length > 40) {
    throw new ScaffoldError(`project name ${JSON.stringify(name)} must be a DNS label of at most 40 characters (it prefixes every object's name): rename the folder or pass --name`);
  }
  const domain = options.domain ?? 'example.com';
  if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(domain)) throw new ScaffoldError(`domain ${JSON.stringify(domain)} is not a DNS name`);
  const existing = await readdir(dir).catch(() => [] as string[]);
  if (existing.some((f) => f !== '.git')) throw new ScaffoldError(`${dir} is not empty`);
  const p: ProjectSettings = { name, domain, kubeloomSpec: options.kubeloomSpec ?? `^${kubeloomVersion}` };
  return writeFiles(dir, {
    'package.json': packageJson(p),
    'tsconfig.json': tsconfigJson(),
    'eslint.config.js': eslintConfig(),
    'src/main.ts': mainTs(p),
    'src/setup.ts': setupTs(),
    'src/setup.test.ts': setupTestTs(),
    'test/env.ts': testEnvTs(),
    Dockerfile: dockerfile(),
    '.dockerignore': dockerignore(),
    '.gitignore': gitignore(),
    'README.md': readme(p),
  });
}
