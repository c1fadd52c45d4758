/**
 * `npm run build` (also run by `prepare`, so `npm pack`, `npm publish` and installs from git build
 * first): compiles src/ to dist/ with tsc, then rewrites the relative `.ts` specifiers that tsc keeps
 * in declaration files to `.js`.
 *
 * tsc's `rewriteRelativeImportExtensions` fixes the emitted JavaScript only; declaration files keep
 * `from './client.ts'`, which consumers' TypeScript resolves only with `allowImportingTsExtensions`
 * (and older TypeScript not at all). The rewrite is limited to relative specifiers in import/export
 * positions, and the build fails if any `.ts` specifier survives.
 *
 * No source maps are emitted: the published package does not ship src/, so maps would point at files
 * that are not there. The emitted JavaScript is the source with its types erased, so stack traces
 * stay readable without them.
 */
import { execFileSync } from 'node:child_process';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');

/** Relative specifiers ending in .ts in `from '…'`, `import '…'` and `import('…')` positions. */
const specifier = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"]*?)\.ts\2/g;

/** Rewrites the relative `.ts` specifiers of one declaration file's text to `.js`. */
export function rewriteDeclarationSpecifiers(text: string): string {
  return text.replace(specifier, (_m, lead: string, quote: string, base: string) => `${lead}${quote}${base}.js${quote}`);
}

async function* walk(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else yield full;
  }
}

async function main(): Promise<void> {
  await rm(dist, { recursive: true, force: true });
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  let files = 0;
  const leftovers: string[] = [];
  for await (const file of walk(dist)) {
    if (!file.endsWith('.d.ts')) continue;
    const text = await readFile(file, 'utf8');
    const rewritten = rewriteDeclarationSpecifiers(text);
    if (rewritten !== text) await writeFile(file, rewritten);
    if (/(['"])\.{1,2}\/[^'"]*\.ts\1/.test(rewritten.replace(/\/\/.*|\/\*[\s\S]*?\*\//g, ''))) leftovers.push(path.relative(root, file));
    files++;
  }
  if (leftovers.length > 0) throw new Error(`declaration files still import .ts files: ${leftovers.join(', ')}`);
  process.stdout.write(`built dist/ (${files} declaration files)\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
