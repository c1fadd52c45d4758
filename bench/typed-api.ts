/**
 * `node bench/typed-api.ts [--baseline DIR] [--runs N]`: what the generated API costs a user.
 *
 * - generated code size: files, lines and bytes of the generated folders (src/api,
 *   src/applyconfigurations, src/kubernetes/typed, src/informers/typed) and of the committed model;
 * - type-check time of a small consumer that imports the clientset, reads a pod and applies a
 *   deployment (tsc --extendedDiagnostics, `Check time` and `Total time`, median of N runs);
 * - import time of `kubeloom/kubernetes` (a fresh node process per run, median of N).
 *
 * With `--baseline DIR` (another checkout's root, e.g. the code before the generated API) the last
 * two are measured there too, with the same consumer, for a before/after table.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');

const { values } = parseArgs({ options: { baseline: { type: 'string' }, runs: { type: 'string', default: '7' } } });
const runs = Number(values.runs);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function sizeOf(dir: string): Promise<{ files: number; lines: number; bytes: number }> {
  const out = { files: 0, lines: 0, bytes: 0 };
  const abs = path.join(root, dir);
  const info = await stat(abs);
  const files = info.isDirectory() ? (await readdir(abs, { recursive: true })).map((f) => path.join(abs, f)) : [abs];
  for (const f of files) {
    if (!(await stat(f)).isFile()) continue;
    const text = await readFile(f, 'utf8');
    out.files++;
    out.bytes += Buffer.byteLength(text);
    out.lines += text.split('\n').length - 1;
  }
  return out;
}

const consumer = (checkout: string): string => `import { newClientset } from '${path.join(checkout, 'src/kubernetes/index.ts')}';
const cs = newClientset({ host: 'http://127.0.0.1:1' });
export async function firstContainer(): Promise<string | undefined> {
  const pod = await cs.coreV1().pods('default').get('web');
  return pod.spec?.containers[0]?.name;
}
export async function scaleWeb(replicas: number): Promise<void> {
  await cs.appsV1().deployments('default').apply(
    { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec: { replicas, template: { spec: { containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 80 }] }] } } } },
    { fieldManager: 'consumer' },
  );
}
`;

async function typeCheck(checkout: string): Promise<{ check: number; total: number; files: number }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kubeloom-tc-'));
  try {
    await writeFile(path.join(dir, 'consumer.ts'), consumer(checkout));
    await writeFile(path.join(dir, 'package.json'), '{ "type": "module" }\n');
    const compilerOptions = {
      target: 'es2023', lib: ['es2023', 'esnext.disposable'], module: 'nodenext', moduleResolution: 'nodenext', types: ['node'],
      typeRoots: [path.join(root, 'node_modules/@types')], strict: true, noEmit: true, skipLibCheck: true, allowImportingTsExtensions: true,
      verbatimModuleSyntax: true, erasableSyntaxOnly: true, noUncheckedIndexedAccess: true,
    };
    await writeFile(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['consumer.ts'] }));
    const checks: number[] = [];
    const totals: number[] = [];
    let files = 0;
    for (let i = 0; i < runs; i++) {
      const r = spawnSync(process.execPath, [tsc, '-p', path.join(dir, 'tsconfig.json'), '--extendedDiagnostics'], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`tsc failed on the consumer for ${checkout}:\n${r.stdout}${r.stderr}`);
      const num = (label: string): number => Number(new RegExp(`^${label}:\\s+([\\d.]+)`, 'm').exec(r.stdout)?.[1]);
      checks.push(num('Check time'));
      totals.push(num('Total time'));
      files = num('Files');
    }
    return { check: median(checks), total: median(totals), files };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function importTime(checkout: string): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(path.join(checkout, 'src/kubernetes/index.ts'))}); console.log(performance.now() - t);`;
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`importing kubeloom/kubernetes failed in ${checkout}: ${r.stderr}`);
    times.push(Number(r.stdout.trim()));
  }
  return median(times);
}

const sizes: Array<[string, Awaited<ReturnType<typeof sizeOf>>]> = [];
for (const dir of ['src/api', 'src/applyconfigurations', 'src/kubernetes/typed', 'src/informers/typed', 'src/codegen/model/kubernetes.json']) sizes.push([dir, await sizeOf(dir)]);
const lines: string[] = [];
lines.push(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}, ${runs} runs each (medians)`);
lines.push('', '| generated | files | lines | bytes |', '|---|---:|---:|---:|');
for (const [dir, s] of sizes) lines.push(`| ${dir} | ${s.files} | ${s.lines} | ${s.bytes} |`);
const checkouts: Array<[string, string]> = [['this checkout', root]];
if (values.baseline !== undefined) checkouts.unshift(['baseline', path.resolve(values.baseline)]);
lines.push('', '| checkout | files tsc loads | check time (s) | total tsc time (s) | import kubeloom/kubernetes (ms) |', '|---|---:|---:|---:|---:|');
for (const [label, checkout] of checkouts) {
  const tc = await typeCheck(checkout);
  lines.push(`| ${label} (${checkout}) | ${tc.files} | ${tc.check.toFixed(2)} | ${tc.total.toFixed(2)} | ${importTime(checkout).toFixed(1)} |`);
}
process.stdout.write(`${lines.join('\n')}\n`);
