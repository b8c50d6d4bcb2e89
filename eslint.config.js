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
)
