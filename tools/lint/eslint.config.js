// The one ESLint configuration of the workspace (run from the repository root by bin/plaza-lint.js).
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'web/src/gql/**', '**/*.d.ts', '.data/**', 'docs/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      // Unused names are mistakes, except a deliberate `_` prefix (destructuring a field away, an unused parameter).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    files: ['web/src/**/*.{ts,tsx}', 'examples/**/*.{ts,tsx}', 'packages/app-sdk/src/browser/**/*.ts'],
    plugins: { 'react-hooks': reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
  {
    // Tests read GraphQL answers and JSON bodies whose shape each assertion states; typing every one of
    // them would repeat the schema without checking anything more.
    files: ['**/test/**/*.ts', '**/*.test.{ts,tsx}', 'e2e/**/*.ts', '**/test-support/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
