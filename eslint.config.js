// One lint configuration for the whole workspace; each package runs `eslint .` against it.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/.turbo/**', '**/coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'error',
      eqeqeq: ['error', 'always'],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['fp-ts/*', '!fp-ts/lib', 'fp-ts/lib/*', '!fp-ts/lib/*.js'],
              message: "fp-ts has no exports map, so Node's ESM loader needs 'fp-ts/lib/<Module>.js'.",
            },
          ],
        },
      ],
    },
  },
  {
    // Scripts and test helpers may talk to the terminal.
    files: ['scripts/**', '**/test/**', '**/bench/**', '**/*.mjs'],
    rules: { 'no-console': 'off' },
  },
  {
    // The files of a package share each vitest worker's modules (`isolate: false`): a module mock would reach
    // the files after it, or miss a module loaded before it, by turns. Such a file runs isolated instead.
    files: ['**/test/**'],
    ignores: ['apps/api/test/line-buffer.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "CallExpression[callee.object.name='vi'][callee.property.name=/^(mock|doMock|unmock|doUnmock)$/]",
          message:
            "vitest runs this package's test files with isolate: false, where a module mock leaks between files: " +
            "list the file as isolated (see ISOLATED in apps/api/vitest.config.ts) and in eslint.config.js's ignores here.",
        },
      ],
    },
  },
)
