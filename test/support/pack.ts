/**
 * Packing kubeloom and installing it into a scratch project the way a stranger would, offline from
 * npm's cache (shared by test/pack.test.ts and test/scaffold-e2e.test.ts): `npm pack` in a scratch
 * copy of the repository (so building dist/ never races with tests that run the repository's bin/),
 * npm run as `npm test` runs it, an environment that refuses the network, lockfiles pinning what the
 * repository's lockfile pins, and the newest TypeScript's tsc when it is installed.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, symlink } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);
/** The repository's root. */
export const root = path.join(import.meta.dirname, '..', '..');

/** The repository's package.json, as far as packing needs it. */
export interface RepoPackage {
  name: string;
  version: string;
  files: string[];
  bin: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
  dependencies: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/** The repository's package.json. */
export const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as RepoPackage;

// npm as `npm test` runs it (npm_execpath), else the npm on PATH.
const npmCli = process.env['npm_execpath'];

/** Runs npm in `cwd`. */
export function npm(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<{ stdout: string; stderr: string }> {
  const [file, argv] = npmCli !== undefined && npmCli.endsWith('.js') ? [process.execPath, [npmCli, ...args]] : ['npm', args];
  return execFileAsync(file, argv, { cwd, env, maxBuffer: 64 * 1024 * 1024 });
}

/** Runs npx in `cwd`, offline, with this Node.js first on PATH (the bin's `#!/usr/bin/env node`). */
export function npx(args: string[], cwd: string): Promise<{ stdout: string; stderr: string }> {
  const npxCli = npmCli !== undefined && npmCli.endsWith('npm-cli.js') ? path.join(path.dirname(npmCli), 'npx-cli.js') : undefined;
  const [file, argv] = npxCli !== undefined ? [process.execPath, [npxCli, ...args]] : ['npx', args];
  return execFileAsync(file, argv, { cwd, env: { ...offlineEnv(), PATH: nodeFirstPath() }, maxBuffer: 16 * 1024 * 1024 });
}

/** PATH with this Node.js's folder first. */
export function nodeFirstPath(): string {
  return `${path.dirname(process.execPath)}${path.delimiter}${process.env['PATH'] ?? ''}`;
}

/** Offline, and a proxy that refuses connections: any attempt to reach a registry fails. */
export function offlineEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    npm_config_offline: 'true',
    npm_config_proxy: 'http://127.0.0.1:9',
    npm_config_https_proxy: 'http://127.0.0.1:9',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
}

/** One package of a package-lock.json (lockfileVersion 3). */
export interface LockEntry {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  [field: string]: unknown;
}

/** The repository's package-lock.json packages. */
export async function repoLockPackages(): Promise<Record<string, LockEntry>> {
  return (JSON.parse(await readFile(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> }).packages;
}

/** The entries of `packages` that `names` need, transitively, at the paths they have there. */
export function pinned(packages: Record<string, LockEntry>, names: string[]): Record<string, LockEntry> {
  const out: Record<string, LockEntry> = {};
  const resolve = (from: string, name: string): string => {
    // Node's lookup: the nearest node_modules/<name> from `from` upwards.
    for (let dir = from; ; dir = dir.includes('/node_modules/') ? dir.slice(0, dir.lastIndexOf('/node_modules/')) : '') {
      const candidate = dir === '' ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
      if (packages[candidate] !== undefined) return candidate;
      if (dir === '') throw new Error(`${name} (needed by ${from || 'the project'}) is not in package-lock.json`);
    }
  };
  const visit = (from: string, name: string): void => {
    const at = resolve(from, name);
    if (out[at] !== undefined) return;
    const { dev: _dev, devOptional: _devOptional, ...entry } = packages[at]!;
    out[at] = entry;
    for (const dep of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) visit(at, dep);
  };
  for (const name of names) visit('', name);
  return out;
}

/** What {@link packKubeloom} made. */
export interface Packed {
  /** The tarball's path. */
  tarball: string;
  /** Its file name (in `work`). */
  filename: string;
  /** The files it holds. */
  files: string[];
}

/** `npm pack` of a scratch copy of the repository into `work` (runs `prepare`, which builds dist/). */
export async function packKubeloom(work: string): Promise<Packed> {
  const copy = path.join(work, 'repo');
  await mkdir(copy);
  for (const entry of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts', 'src', ...pkg.files.filter((f) => f !== 'dist')]) {
    await cp(path.join(root, entry), path.join(copy, entry), { recursive: true });
  }
  await symlink(path.join(root, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
  const { stdout } = await npm(['pack', '--json', '--pack-destination', work], copy);
  const [result] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
  return { tarball: path.join(work, result!.filename), filename: result!.filename, files: result!.files.map((f) => f.path) };
}

/** The lock entry of the packed kubeloom, installed from `file:<relative>`. */
export async function kubeloomLockEntry(packed: Packed, resolved: string): Promise<LockEntry> {
  return {
    version: pkg.version,
    resolved,
    integrity: `sha512-${createHash('sha512').update(await readFile(packed.tarball)).digest('base64')}`,
    dependencies: pkg.dependencies,
    optionalDependencies: pkg.optionalDependencies,
    bin: pkg.bin,
  };
}

/**
 * The newest TypeScript's tsc, besides the pinned one: `$KUBELOOM_TSC_LATEST` (a path to its
 * bin/tsc), else the one `npm run tools` installs (scripts/install-typescript-latest.sh, into
 * .kubeloom-tools/typescript-latest; CI runs it). Offline from npm's cache, which holds only what the
 * lockfile pins, the newest compiler cannot be fetched; without either, callers run only the pinned one.
 */
export function newestTsc(): string | undefined {
  const fromEnv = process.env['KUBELOOM_TSC_LATEST'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const installed = path.join(root, '.kubeloom-tools', 'typescript-latest', 'node_modules', 'typescript', 'bin', 'tsc');
  return existsSync(installed) ? installed : undefined;
}
