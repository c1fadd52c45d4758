/**
 * Every TypeScript snippet of README.md and docs/*.md is a region of a runnable example in
 * examples/ (scripts/doc-snippets.ts): the block names its source, and its text equals the region.
 * The examples themselves are type-checked by `npm run typecheck` and run by test/examples.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractRegions, syncAll } from '../scripts/doc-snippets.ts';

test('every TypeScript block of the README and docs/ equals the example region it names', async () => {
  const problems = await syncAll(false);
  assert.deepEqual(
    problems.map((p) => `${p.file}:${p.line}: ${p.message}`),
    [],
    'run `npm run docs:snippets` after changing an example; put new snippets in examples/ and mark them',
  );
});

test('regions: nested and repeated regions, dedented parts joined by a blank line, marker lines dropped', () => {
  const source = [
    '// #region a',
    "import { x } from 'x';",
    '// #endregion',
    'function f() {',
    '  // #region a',
    '  // #region b',
    '  x();',
    '  // #endregion',
    '  return 1;',
    '  // #endregion',
    '}',
  ].join('\n');
  const regions = extractRegions(source);
  assert.equal(regions.get('a'), "import { x } from 'x';\n\nx();\nreturn 1;");
  assert.equal(regions.get('b'), 'x();');
  assert.throws(() => extractRegions('// #region a\nx();'), /unclosed #region a/);
  assert.throws(() => extractRegions('x();\n// #endregion'), /#endregion without #region/);
});
