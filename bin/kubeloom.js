#!/usr/bin/env node
// CLI launcher: runs the compiled CLI when the package is built, the TypeScript sources otherwise
// (Node >= 22.18 strips types natively outside node_modules).
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = join(root, 'dist', 'cli', 'main.js');
const entry = existsSync(built) ? built : join(root, 'src', 'cli', 'main.ts');
await import(pathToFileURL(entry).href);
