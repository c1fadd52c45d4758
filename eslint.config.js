// Lint configuration: type-aware rules guard the async code paths (floating and misused promises);
// time in src/ must come from the injectable Clock so tests can drive it deterministically.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const timeGlobals = [
  { name: 'setTimeout', message: 'Use the injected Clock (src/util/clock).' },
  { name: 'setInterval', message: 'Use the injected Clock (src/util/clock).' },
  { name: 'setImmediate', message: 'Use the injected Clock (src/util/clock).' },
];

export default tseslint.config(
  // Generated code (src/codegen writes it; `npm test` checks it is current and type-checks it).
  { ignores: ['dist/**', 'docs/api/**', 'node_modules/**', 'coverage/**', 'bench/results/**', 'src/api/**', 'src/applyconfigurations/**', 'src/kubernetes/typed/**', 'src/informers/typed/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['eslint.config.js', 'typedoc.config.js', 'bin/*.js'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] }] },
      ],
      // Abort reasons are surfaced unchanged, whatever their type (STYLE.md rule 4).
      '@typescript-eslint/prefer-promise-reject-errors': 'off',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.test.ts', 'src/util/clock/**', 'src/cli/**'],
    rules: {
      'no-restricted-globals': ['error', ...timeGlobals],
      'no-restricted-properties': ['error', { object: 'Date', property: 'now', message: 'Use the injected Clock (src/util/clock).' }],
    },
  },
  {
    files: ['**/*.test.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  { files: ['eslint.config.js', 'typedoc.config.js', 'bin/*.js'], ...tseslint.configs.disableTypeChecked },
);
