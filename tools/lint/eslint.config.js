// The one ESLint configuration of the workspace (run from the repository root by bin/plaza-lint.js).
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import react from 'eslint-plugin-react';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { fileURLToPath } from 'node:url';
import plaza from './rules/void-says-why.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'web/src/gql/**', '**/*.d.ts', '.data/**', 'docs/**'] },
  ...tseslint.configs.recommendedTypeChecked,
  {
    plugins: { plaza },
    languageOptions: {
      parserOptions: {
        // Each file is typed by the tsconfig that compiles it (the nearest tsconfig.json); the two root
        // configs belong to no package and get a default program.
        projectService: { allowDefaultProject: ['codegen.ts', 'vitest.config.ts'] },
        tsconfigRootDir: repoRoot,
      },
    },
    rules: {
      // A promise nobody awaits turns its rejection into an unhandled rejection, which ends the process
      // (or, in the browser, loses the error). `void p` is allowed only where the line above says why
      // nothing is lost (plaza/void-says-why, rules/void-says-why.js).
      '@typescript-eslint/no-floating-promises': 'error',
      'plaza/void-says-why': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // A `default:` does not count: a new member of a union (a route, a phase, a status) must be placed
      // in every switch over it, not fall silently into the catch-all.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: false }],
      // Left off from recommendedTypeChecked, for what they report here rather than what they find:
      // - no-unsafe-*: the `any` comes from TypeORM's query() rows and from GraphQL and JSON bodies in tests,
      //   whose shape each caller states; typing each would repeat the SQL and the schema.
      // - require-await: the async methods it names are required async by an interface (Apollo plugins,
      //   iterators, test doubles of async APIs).
      // - unbound-method: every report is an interface method implemented by an arrow function (readiness
      //   pings, stop functions, formatters), which is bound.
      // - no-unnecessary-type-assertion: style, not defects.
      // - only-throw-error, prefer-promise-reject-errors, no-base-to-string, no-redundant-type-constituents:
      //   each report was deliberate (a Symbol thrown and caught inside one function, a stream's error passed
      //   on as it came, an unknown close reason printed as is, `'ok' | string` naming the one special answer).
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-enum-comparison': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      '@typescript-eslint/only-throw-error': 'off',
      '@typescript-eslint/prefer-promise-reject-errors': 'off',
      '@typescript-eslint/no-base-to-string': 'off',
      '@typescript-eslint/no-redundant-type-constituents': 'off',
    },
  },
  {
    // Files compiled by a tsconfig that is not the nearest tsconfig.json, which the project service cannot find:
    // the web app's tests and tool configs (Node types) and the sample app's page (browser types).
    files: ['web/src/**/*.test.tsx', 'web/src/test-support/**/*.ts', 'web/vite.config.ts', 'web/vitest.config.ts'],
    languageOptions: { parserOptions: { projectService: false, project: ['web/tsconfig.node.json'] } },
  },
  {
    files: ['examples/sample-app/src/page/**/*.ts'],
    languageOptions: { parserOptions: { projectService: false, project: ['examples/sample-app/tsconfig.page.json'] } },
  },
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
    files: ['**/*.{js,mjs,cjs}'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // Tests read GraphQL answers and JSON bodies whose shape each assertion states; typing every one of
    // them would repeat the schema without checking anything more.
    files: ['**/test/**/*.ts', '**/*.test.{ts,tsx}', 'e2e/**/*.ts', '**/test-support/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
