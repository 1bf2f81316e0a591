// The one ESLint configuration of the workspace (run from the repository root by bin/plaza-lint.js).
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import react from 'eslint-plugin-react';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

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
    // No import cycles, type-only imports included: a cycle hidden by `import type` or a lazy lambda is still
    // two files that cannot be understood (or built, or tested) one without the other (conventions.md 14).
    files: ['server/src/**/*.ts', 'packages/*/src/**/*.ts', 'web/src/**/*.{ts,tsx}'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [
        createTypeScriptImportResolver({ project: ['server/tsconfig.json', 'packages/*/tsconfig.json', 'web/tsconfig.json'], noWarnOnMultipleProjects: true }),
      ],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    files: ['web/src/**/*.{ts,tsx}', 'examples/**/*.{ts,tsx}', 'packages/app-sdk/src/browser/**/*.ts'],
    plugins: { 'react-hooks': reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
  {
    // Every word a person reads goes through the translations (web/src/i18n/strings.ts, English and
    // Vietnamese): text written straight into JSX would stay English for a Vietnamese reader. Only
    // punctuation and symbols that read the same in both languages may be written in place.
    files: ['web/src/**/*.tsx'],
    ignores: ['web/src/**/*.test.tsx', 'web/src/test-support/**'],
    plugins: { react },
    rules: {
      'react/jsx-no-literals': [
        'error',
        {
          noStrings: true,
          ignoreProps: true,
          allowedStrings: [
            '·',
            '→',
            '←',
            '—',
            '–',
            '(',
            ')',
            ':',
            '/',
            ',',
            '.',
            '×',
            '…',
            '%',
            '+',
            '-',
            '|',
            '*',
            '✓',
            '✕',
            '↻',
            '•',
            // Names that read the same in every language: the brand, and each language in its own words.
            'Plaza',
            'GraphiQL',
            'English',
            'Tiếng Việt',
          ],
        },
      ],
      // Attributes are mostly code (className, type, role); these four are read aloud or shown (an address
      // pattern, an example e-mail and the brand names read the same in every language).
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'JSXAttribute[name.name=/^(aria-label|placeholder|title|alt)$/][value.type="Literal"][value.value=/[A-Za-z]/]:not([value.value=/^(https?:\\x2F\\x2F|Plaza$|GraphiQL$)|@/])',
          message: 'Read by people: take it from the translations (t(...)).',
        },
        {
          // Words in a template for a read attribute or an error message, e.g. message={`Could not load: ${why}`}.
          selector: 'JSXAttribute[name.name=/^(aria-label|placeholder|title|alt|message)$/] TemplateElement[value.raw=/[A-Za-z]{3}/]',
          message: 'Read by people: take it from the translations (t(..., { values })).',
        },
        {
          selector: 'JSXAttribute[name.name="message"] > Literal',
          message: 'Read by people: take it from the translations (t(...)).',
        },
        {
          // jsx-no-literals does not look into {busy ? 'Saving…' : 'Save'} or {missing && 'None'}.
          selector: ':matches(JSXElement, JSXFragment) > JSXExpressionContainer > :matches(ConditionalExpression, LogicalExpression) > Literal[value=/[A-Za-z]{2}/]',
          message: 'Read by people: take it from the translations (t(...)).',
        },
      ],
    },
  },
  {
    // Tests read GraphQL answers and JSON bodies whose shape each assertion states; typing every one of
    // them would repeat the schema without checking anything more.
    files: ['**/test/**/*.ts', '**/*.test.{ts,tsx}', 'e2e/**/*.ts', '**/test-support/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
