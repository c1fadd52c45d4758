/**
 * `npm run generate`: regenerates the built-in API's TypeScript from the committed model.
 *
 *   npm run generate                        stage 2 only (model → src/api, src/applyconfigurations, ...)
 *   npm run generate -- --openapi DIR       stage 1 first: DIR's OpenAPI v3 documents → the model
 *   npm run generate -- --check             exit 1 if the committed files are not what stage 2 emits
 *   npm run generate -- --proto-mirror DIR  also the protobuf model, from the bare git clones of
 *                                           k8s.io/api, apimachinery and apiextensions-apiserver in DIR
 *                                           (with --check: compare instead of writing)
 *
 * See src/codegen/README.md.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateProtoModelText, protoModelPath } from './proto-input.ts';
import { diffGenerated, srcDir, generateBuiltinFiles, readModel, runStage1, writeGenerated } from './generate.ts';

async function main(argv: string[]): Promise<number> {
  let openapiDir: string | undefined;
  let check = false;
  let protoMirror: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--openapi') openapiDir = argv[++i];
    else if (arg === '--check') check = true;
    else if (arg === '--proto-mirror') protoMirror = argv[++i];
    else {
      process.stderr.write(`generate: unknown argument ${JSON.stringify(arg)}\nusage: npm run generate -- [--openapi DIR] [--proto-mirror DIR] [--check]\n`);
      return 2;
    }
  }
  if (openapiDir !== undefined) {
    const model = await runStage1(openapiDir);
    process.stdout.write(`model: ${model.groupVersions.length} group-versions, ${Object.keys(model.types).length} types from ${model.source.files.length} documents\n`);
  }
  let protoStale = 0;
  if (protoMirror !== undefined) {
    const text = generateProtoModelText(protoMirror);
    const path = join(srcDir, protoModelPath);
    const committed = await readFile(path, 'utf8').catch(() => '');
    if (check && committed !== text) {
      process.stdout.write(`out of date: src/${protoModelPath}\n`);
      protoStale = 1;
    } else if (!check && committed !== text) await writeFile(path, text);
  }
  const files = generateBuiltinFiles(await readModel());
  if (check) {
    const diff = await diffGenerated(files);
    for (const p of diff.changed) process.stdout.write(`out of date: src/${p}\n`);
    for (const p of diff.stale) process.stdout.write(`stale: src/${p}\n`);
    return diff.changed.length + diff.stale.length + protoStale === 0 ? 0 : 1;
  }
  const diff = await writeGenerated(files);
  process.stdout.write(`generated ${files.length} files (${diff.changed.length} changed, ${diff.stale.length} removed)\n`);
  return 0;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`generate: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
