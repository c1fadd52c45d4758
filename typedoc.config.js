// API reference (`npm run docs` → docs/api/): TypeDoc over every package.json export, from the TSDoc
// in src/. `npm run docs:check` (test/api-reference.test.ts, part of `npm test`) validates without
// writing: an exported symbol or member without documentation, a broken {@link}, or a public type
// that is not exported fails it (generated modules excepted for missing documentation: they carry
// Kubernetes' OpenAPI descriptions, which some fields lack).
import { readFileSync } from 'node:fs';
import { URL } from 'node:url';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
// A wildcard subpath (`./api/*` → `./src/api/*.ts`) stands for every module below its folder.
const entryPoints = Object.values(pkg.exports)
  .filter((target) => typeof target === 'object')
  .map((target) => target['kubeloom-source'].replace('/*.ts', '/**/*.ts'));

/** @type {Partial<import('typedoc').TypeDocOptions>} */
export default {
  name: `kubeloom ${pkg.version}`,
  entryPoints,
  tsconfig: './tsconfig.build.json',
  out: 'docs/api',
  readme: 'none',
  excludePrivate: true,
  excludeInternal: true,
  exclude: ['**/*.test.ts'],
  sort: ['kind', 'alphabetical'],
  // Source links come from package.json's repository, not from the checkout's git remote (a clone's
  // remote may be a local path, which TypeDoc cannot turn into links).
  disableGit: true,
  gitRevision: 'main',
  sourceLinkTemplate: `${pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '')}/blob/{gitRevision}/{path}#L{line}`,
  validation: { notExported: true, invalidLink: true, notDocumented: true },
  treatValidationWarningsAsErrors: false,
};
