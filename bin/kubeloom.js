#!/usr/bin/env node
// CLI launcher: checks the Node.js version first (src/node-version.ts), then runs the compiled CLI
// when the package is built, the TypeScript sources otherwise (a git checkout before `npm run build`;
// Node >= 22.18 strips types natively outside node_modules). Plain JavaScript that any Node.js parses,
// so an old Node.js gets a sentence instead of a stack trace.
import { existsSync } from 'node:fs';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = existsSync(join(root, 'dist', 'cli', 'main.js'));
const file = (name) => pathToFileURL(built ? join(root, 'dist', `${name}.js`) : join(root, 'src', `${name}.ts`)).href;

try {
  await import(file('node-version'));
} catch (err) {
  const code = err !== null && typeof err === 'object' ? err.code : undefined;
  if (code === 'ERR_UNSUPPORTED_NODE_VERSION') {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
  if (code === 'ERR_UNKNOWN_FILE_EXTENSION') {
    process.stderr.write(`kubeloom: this Node.js (${process.version}) cannot run the TypeScript sources; run \`npm run build\` first, or use Node.js >= 22.19\n`);
    process.exit(1);
  }
  throw err;
}
await import(file('cli/main'));
