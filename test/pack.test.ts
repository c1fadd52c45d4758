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
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { kubeloomLockEntry, newestTsc, npm, npx, offlineEnv, packKubeloom, pinned, pkg, repoLockPackages, root, type LockEntry } from './support/pack.ts';

const execFileAsync = promisify(execFile);
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

let work: string;
let project: string;
let packedFiles: string[];

before(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'kubeloom-pack-'));
  const packed = await packKubeloom(work);
  packedFiles = packed.files;

  project = path.join(work, 'project');
  await mkdir(project);
  // npm ci fills the cache with tarballs, not with registry metadata, so resolving version ranges
  // offline is impossible: the project gets a lockfile pinning what the repository's lockfile pins.
  const lock = { packages: await repoLockPackages() };
  const typesNode = lock.packages['node_modules/@types/node']!.version!;
  const dependencies = { kubeloom: `file:../${packed.filename}`, '@types/node': typesNode };
  await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies }, null, 2));
  const packages: Record<string, LockEntry> = {
    '': { name: 'consumer', dependencies },
    'node_modules/kubeloom': await kubeloomLockEntry(packed, `file:../${packed.filename}`),
    ...pinned(lock.packages, [...Object.keys(pkg.dependencies), ...Object.keys(pkg.optionalDependencies ?? {}), '@types/node']),
  };
  await writeFile(path.join(project, 'package-lock.json'), JSON.stringify({ name: 'consumer', lockfileVersion: 3, requires: true, packages }, null, 2));
  // No install script runs, as with npm 12 when the project's allowScripts does not name a package:
  // nothing may depend on one (bufferutil's node-gyp-build is the only one among the dependencies).
  await npm(['ci', '--offline', '--ignore-scripts'], project, offlineEnv());
});

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
