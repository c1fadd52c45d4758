/**
 * The published package, as a stranger gets it: `npm pack` (which builds dist/ through `prepare`)
 * in a scratch copy of the repository, then `npm install <tarball>` into a new project — offline,
 * from npm's cache (filled by `npm ci`), with a proxy that refuses every connection so nothing can
 * come from the network, and with install scripts ignored (npm 12 blocks those its allowScripts does
 * not name). In that project a consumer is type-checked under moduleResolution node16,
 * nodenext and bundler, every export subpath is imported (without prom-client or selfsigned being
 * loaded, though prom-client is installed and metrics work), `npx kubeloom --version` runs, and examples/quickstart.ts runs unchanged against the
 * installed `kubeloom apiserver`.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);
const root = path.join(import.meta.dirname, '..');
const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  files: string[];
  bin: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
  dependencies: Record<string, string>;
  optionalDependencies?: Record<string, string>;
};
const subpaths = Object.keys(pkg.exports).filter((k) => k !== './package.json');
/** A specifier for a subpath; for a wildcard one (`./api/*`), the first module it matches. */
async function specifierFor(subpath: string): Promise<string> {
  if (subpath === '.') return pkg.name;
  if (!subpath.endsWith('/*')) return `${pkg.name}/${subpath.slice(2)}`;
  const dir = path.join(root, 'src', subpath.slice(2, -2));
  const modules = (await readdir(dir, { recursive: true })).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts')).sort();
  return `${pkg.name}/${subpath.slice(2, -2)}/${modules[0]!.replace(/\.ts$/, '').split(path.sep).join('/')}`;
}
const specifiers = await Promise.all(subpaths.map(specifierFor));

// npm as `npm test` runs it (npm_execpath), else the npm on PATH.
const npmCli = process.env['npm_execpath'];
function npm(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<{ stdout: string; stderr: string }> {
  const [file, argv] = npmCli !== undefined && npmCli.endsWith('.js') ? [process.execPath, [npmCli, ...args]] : ['npm', args];
  return execFileAsync(file, argv, { cwd, env, maxBuffer: 64 * 1024 * 1024 });
}
function npx(args: string[], cwd: string): Promise<{ stdout: string; stderr: string }> {
  const npxCli = npmCli !== undefined && npmCli.endsWith('npm-cli.js') ? path.join(path.dirname(npmCli), 'npx-cli.js') : undefined;
  const [file, argv] = npxCli !== undefined ? [process.execPath, [npxCli, ...args]] : ['npx', args];
  // The bin's `#!/usr/bin/env node` runs the first node on PATH: make it this one (npm test puts
  // node_modules/.bin first anyway).
  const env = { ...offlineEnv(), PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env['PATH'] ?? ''}` };
  return execFileAsync(file, argv, { cwd, env, maxBuffer: 16 * 1024 * 1024 });
}
// Offline, and a proxy that refuses connections: any attempt to reach a registry fails.
function offlineEnv(): NodeJS.ProcessEnv {
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

let work: string;
let project: string;
let tarball: string;
let packedFiles: string[];

before(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'kubeloom-pack-'));
  // A scratch copy, so building dist/ never races with tests that run the repository's bin/.
  const copy = path.join(work, 'repo');
  await mkdir(copy);
  for (const entry of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts', 'src', ...pkg.files.filter((f) => f !== 'dist')]) {
    await cp(path.join(root, entry), path.join(copy, entry), { recursive: true });
  }
  await symlink(path.join(root, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
  const { stdout } = await npm(['pack', '--json', '--pack-destination', work], copy);
  const [result] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
  tarball = path.join(work, result!.filename);
  packedFiles = result!.files.map((f) => f.path);

  project = path.join(work, 'project');
  await mkdir(project);
  // npm ci fills the cache with tarballs, not with registry metadata, so resolving version ranges
  // offline is impossible: the project gets a lockfile pinning what the repository's lockfile pins.
  const lock = JSON.parse(await readFile(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const typesNode = lock.packages['node_modules/@types/node']!.version!;
  const dependencies = { kubeloom: `file:../${result!.filename}`, '@types/node': typesNode };
  await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies }, null, 2));
  const packages: Record<string, LockEntry> = {
    '': { name: 'consumer', dependencies },
    'node_modules/kubeloom': {
      version: pkg.version,
      resolved: `file:../${result!.filename}`,
      integrity: `sha512-${createHash('sha512').update(await readFile(tarball)).digest('base64')}`,
      dependencies: pkg.dependencies,
      optionalDependencies: pkg.optionalDependencies,
      bin: pkg.bin,
    },
    ...pinned(lock.packages, [...Object.keys(pkg.dependencies), ...Object.keys(pkg.optionalDependencies ?? {}), '@types/node']),
  };
  await writeFile(path.join(project, 'package-lock.json'), JSON.stringify({ name: 'consumer', lockfileVersion: 3, requires: true, packages }, null, 2));
  // No install script runs, as with npm 12 when the project's allowScripts does not name a package:
  // nothing may depend on one (bufferutil's node-gyp-build is the only one among the dependencies).
  await npm(['ci', '--offline', '--ignore-scripts'], project, offlineEnv());
});

/** One package of a package-lock.json (lockfileVersion 3). */
interface LockEntry {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  [field: string]: unknown;
}

/** The entries of `packages` that `names` need, transitively, at the paths they have there. */
function pinned(packages: Record<string, LockEntry>, names: string[]): Record<string, LockEntry> {
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

after(async () => {
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

test('the tarball holds the built package: dist with declarations, bin, README, LICENSE, CHANGELOG; no sources or source maps', () => {
  for (const file of ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'bin/kubeloom.js', 'dist/index.js', 'dist/index.d.ts', 'dist/cli/main.js', 'dist/codegen/model/kubernetes.json']) {
    assert.ok(packedFiles.includes(file), `${file} is packed`);
  }
  for (const target of Object.values(pkg.exports)) {
    if (typeof target === 'string') continue;
    for (const [condition, file] of Object.entries(target)) {
      if (condition === 'kubeloom-source') continue;
      // A wildcard target (./dist/api/*.d.ts) must match packed files.
      const pattern = new RegExp(`^${file.slice(2).replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace('*', '.+')}$`);
      assert.ok(packedFiles.some((f) => pattern.test(f)), `${file} (${condition}) is packed`);
    }
  }
  assert.deepEqual(packedFiles.filter((f) => f.endsWith('.map') || f.endsWith('.ts') !== f.endsWith('.d.ts') || f.startsWith('src/') || f.includes('.test.')), []);
});

test('the declarations import .js files, never .ts', async () => {
  const dist = path.join(project, 'node_modules', 'kubeloom', 'dist');
  const bad: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.name.endsWith('.d.ts') && /(from\s+|import\s*\(\s*|import\s+)['"]\.{1,2}\/[^'"]*\.ts['"]/.test(await readFile(full, 'utf8'))) bad.push(path.relative(dist, full));
    }
  };
  await walk(dist);
  assert.deepEqual(bad, []);
});

test('a consumer type-checks against the installed package under moduleResolution node16, nodenext and bundler, with the pinned and the newest TypeScript', async (t) => {
  if (newestTsc() === undefined) t.diagnostic('newest TypeScript not installed (KUBELOOM_TSC_LATEST, or `npm run tools`): only the pinned one runs');
  const consumer = [
    ...specifiers.map((s, i) => `import * as m${i} from '${s}';`),
    "import { newClientset, loadKubeConfig, restConfigFrom, Controller, isNotFound, type Clientset, type ReconcileFunc } from 'kubeloom';",
    "import type { Pod } from 'kubeloom/api/core/v1';",
    `export const modules = [${specifiers.map((_, i) => `m${i}`).join(', ')}];`,
    'export async function connect(): Promise<Clientset> {',
    '  return newClientset(await restConfigFrom(await loadKubeConfig()));',
    '}',
    "export const reconcile: ReconcileFunc = async (key, { signal }) => { void key; void signal; return { requeueAfterMs: 1000 }; };",
    "export const controller = new Controller({ name: 'c', reconcile });",
    "export async function pod(cs: Clientset): Promise<Pod | undefined> {",
    "  try { return await cs.coreV1().pods('default').get('web'); } catch (err) { if (isNotFound(err)) return undefined; throw err; }",
    '}',
    '',
  ].join('\n');
  await writeFile(path.join(project, 'consumer.ts'), consumer);
  await cp(path.join(root, 'examples', 'quickstart.ts'), path.join(project, 'quickstart.ts'));
  const base = { strict: true, noEmit: true, skipLibCheck: false, target: 'es2023', lib: ['es2023', 'esnext.disposable'], types: ['node'] };
  const configs: Record<string, object> = {
    node16: { ...base, module: 'node16', moduleResolution: 'node16' },
    nodenext: { ...base, module: 'nodenext', moduleResolution: 'nodenext' },
    bundler: { ...base, module: 'preserve', moduleResolution: 'bundler' },
  };
  // The pinned TypeScript, and the newest one (`npm install typescript` brings TypeScript 7, the
  // native compiler) when it is there: see newestTsc().
  const compilers = [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc')];
  const newest = newestTsc();
  if (newest !== undefined) compilers.push(newest);
  for (const tsc of compilers) {
    const { stdout: version } = await execFileAsync(process.execPath, [tsc, '--version'], { cwd: project });
    await Promise.all(
      Object.entries(configs).map(async ([name, compilerOptions]) => {
        // allowImportingTsExtensions only for quickstart's own relative imports (it has none); not for the package.
        await writeFile(path.join(project, `tsconfig.${name}.json`), JSON.stringify({ compilerOptions, files: ['consumer.ts', 'quickstart.ts'] }, null, 2));
        try {
          await execFileAsync(process.execPath, [tsc, '-p', `tsconfig.${name}.json`], { cwd: project });
        } catch (err) {
          assert.fail(`tsc ${version.trim()} (${name}) failed:\n${(err as { stdout?: string }).stdout ?? String(err)}`);
        }
      }),
    );
  }
});

/**
 * The newest TypeScript's tsc, besides the pinned one: `$KUBELOOM_TSC_LATEST` (a path to its
 * bin/tsc), else the one `npm run tools` installs (scripts/install-typescript-latest.sh, into
 * .kubeloom-tools/typescript-latest; CI runs it). The pack test runs offline from npm's cache, which
 * holds only what the lockfile pins, so the newest compiler cannot be fetched here; without either,
 * only the pinned one runs (and the test says so in its diagnostics).
 */
function newestTsc(): string | undefined {
  const fromEnv = process.env['KUBELOOM_TSC_LATEST'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const installed = path.join(root, '.kubeloom-tools', 'typescript-latest', 'node_modules', 'typescript', 'bin', 'tsc');
  return existsSync(installed) ? installed : undefined;
}

test('every export subpath imports on Node.js, without loading prom-client or selfsigned', async () => {
  const script = `
    import { registerHooks } from 'node:module';
    const resolved = [];
    registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); resolved.push(r.url); return r; } });
    const specifiers = ${JSON.stringify(specifiers)};
    const exported = {};
    for (const s of specifiers) exported[s] = Object.keys(await import(s)).length;
    const root = await import('kubeloom');
    const workqueue = await import('kubeloom/util/workqueue');
    // What the imports loaded, before metrics are asked for (which loads prom-client, a dependency).
    const loadedByImports = resolved.filter((u) => /node_modules[/](prom-client|selfsigned)[/]/.test(u));
    let promClient = 'no error';
    try { workqueue.newPrometheusMetricsProvider(); } catch (err) { promClient = err.code; }
    const pkg = (await import('kubeloom/package.json', { with: { type: 'json' } })).default;
    process.stdout.write(JSON.stringify({
      exported,
      everyday: ['newClientset', 'loadKubeConfig', 'restConfigFrom', 'newSharedInformerFactory', 'RateLimitingQueue', 'Controller', 'LeaderElector', 'EventBroadcaster', 'isNotFound', 'DynamicClient'].filter((n) => typeof root[n] !== 'function'),
      loaded: loadedByImports,
      promClient,
      version: pkg.version,
    }));`;
  await writeFile(path.join(project, 'imports.mjs'), script);
  const { stdout } = await execFileAsync(process.execPath, ['imports.mjs'], { cwd: project });
  const result = JSON.parse(stdout) as { exported: Record<string, number>; everyday: string[]; loaded: string[]; promClient: string; version: string };
  for (const [i, s] of specifiers.entries()) {
    // Wildcard subpaths are generated type-only modules: they load, and export nothing at run time.
    if (subpaths[i]!.endsWith('/*')) assert.equal(result.exported[s], 0, `${s} loads`);
    else assert.ok((result.exported[s] ?? 0) > 0, `${s} exports something`);
  }
  assert.deepEqual(result.everyday, [], 'the root entry re-exports the everyday API');
  assert.deepEqual(result.loaded, [], 'prom-client and selfsigned are not loaded by imports');
  assert.equal(result.promClient, 'no error', 'metrics work with what npm install kubeloom brings (prom-client is a dependency)');
  assert.equal(result.version, pkg.version);
});

test('bufferutil, an optional dependency, works without its install script: ws loads it', async () => {
  const script = "const b = require('bufferutil'); const m = Buffer.from([1, 2, 3, 4]); const out = Buffer.alloc(4); b.mask(Buffer.from([1, 2, 3, 4]), m, out, 0, 4); process.stdout.write(out.toString('hex'));";
  const { stdout } = await execFileAsync(process.execPath, ['-e', script], { cwd: project });
  assert.equal(stdout, '00000000', 'masking with itself gives zeros');
  const { stdout: loaded } = await execFileAsync(process.execPath, ['-e', "require('ws'); process.stdout.write(String(Object.keys(require.cache).some((f) => f.includes('/bufferutil/'))))"], { cwd: project });
  assert.equal(loaded, 'true');
});

test('the installed embedded server reads the API model it ships: Strict field validation names an unknown field of a built-in kind', async () => {
  const script = `
    import { startApiServer } from 'kubeloom/testing';
    const server = await startApiServer();
    try {
      const res = await fetch(server.url + '/api/v1/namespaces/default/configmaps?fieldValidation=Strict', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, bogus: 1 }),
      });
      process.stdout.write(JSON.stringify({ code: res.status, message: (await res.json()).message }));
    } finally {
      await server.stop();
    }`;
  await writeFile(path.join(project, 'strict.mjs'), script);
  const { stdout } = await execFileAsync(process.execPath, ['strict.mjs'], { cwd: project });
  const result = JSON.parse(stdout) as { code: number; message: string };
  assert.equal(result.code, 400);
  assert.match(result.message, /unknown field "bogus"/);
});

test('npx kubeloom --version prints the version', async () => {
  const { stdout } = await npx(['--no', 'kubeloom', '--', '--version'], project);
  assert.equal(stdout, `${pkg.version}\n`);
});

test('examples/quickstart.ts runs unchanged against the installed kubeloom apiserver', async () => {
  const kubeconfig = path.join(project, 'kubeloom.kubeconfig');
  const server: ChildProcess = spawn(process.execPath, [path.join(project, 'node_modules', '.bin', 'kubeloom'), 'apiserver', '--write-kubeconfig', kubeconfig], {
    cwd: project,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      let out = '';
      server.stdout!.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        if (out.includes('kubeconfig written')) resolve();
      });
      server.once('exit', (code) => reject(new Error(`kubeloom apiserver exited with ${code}: ${out}`)));
    });
    const env = { PATH: process.env['PATH'] ?? '', HOME: project, KUBECONFIG: kubeconfig };
    const { stdout } = await execFileAsync(process.execPath, ['quickstart.ts'], { cwd: project, env });
    assert.match(stdout, /example-missing: not found\n/);
    assert.match(stdout, /ADDED example-b\n/);
  } finally {
    server.kill('SIGTERM');
  }
});

test('on a Node.js older than 22.19, the installed package and CLI stop with a clear message', async (t) => {
  // The machine's own older Node.js, when there is one (CI images usually have none).
  const candidates = [process.env['KUBELOOM_OLD_NODE'], '/usr/bin/node', '/usr/local/bin/node'].filter((c): c is string => c !== undefined);
  let oldNode: string | undefined;
  for (const candidate of candidates) {
    const version = await execFileAsync(candidate, ['-p', 'process.versions.node']).then((r) => r.stdout.trim(), () => undefined);
    const [major = 0, minor = 0] = (version ?? '').split('.').map(Number);
    if (version !== undefined && (major < 22 || (major === 22 && minor < 19))) {
      oldNode = candidate;
      break;
    }
  }
  if (oldNode === undefined) {
    t.skip('no Node.js older than 22.19 on this machine (set KUBELOOM_OLD_NODE to one)');
    return;
  }
  for (const s of ['kubeloom', 'kubeloom/rest', 'kubeloom/kubernetes', 'kubeloom/informers']) {
    const r = await execFileAsync(oldNode, ['--input-type=module', '-e', `import '${s}'`], { cwd: project }).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => err,
    );
    assert.notEqual(r.code, 0, s);
    assert.match(r.stderr, /kubeloom requires Node\.js >= 22\.19, but this is Node\.js \d+\.\d+\.\d+\./, s);
    assert.doesNotMatch(r.stderr, /Cannot read properties of undefined/, s);
  }
  const cli = await execFileAsync(oldNode, [path.join(project, 'node_modules', 'kubeloom', 'bin', 'kubeloom.js'), '--version']).then(
    () => ({ code: 0, stderr: '' }),
    (err: { code: number; stderr: string }) => err,
  );
  assert.equal(cli.code, 1);
  assert.match(cli.stderr, /^kubeloom requires Node\.js >= 22\.19/);
});
