// API reference (`npm run docs` → docs/api/): TypeDoc over every package.json export, from the TSDoc
// in src/. `npm run docs:check` (run by test/api-reference.test.ts in `npm test`) validates without
// writing and treats every warning as an error: an exported symbol or member without documentation,
// a broken {@link}, or a public type that is not exported fails the build.
import { readFileSync } from 'node:fs';
import { URL } from 'node:url';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const entryPoints = Object.values(pkg.exports)
  .filter((target) => typeof target === 'object')
  .map((target) => target['kubeloom-source']);

/** @type {Partial<import('typedoc').TypeDocOptions>} */
export default {
  name: `kubeloom ${pkg.version}`,
  entryPoints,
  tsconfig: './tsconfig.build.json',
  out: 'docs/api',
  readme: 'none',
  excludePrivate: true,
  excludeInternal: true,
  sort: ['kind', 'alphabetical'],
  // The literal behind resourceTable; its type is documented as ResourceTable.
  intentionallyNotExported: ['src/kubernetes/resource-table.ts:table'],
  validation: { notExported: true, invalidLink: true, notDocumented: true },
  treatValidationWarningsAsErrors: false,
};
