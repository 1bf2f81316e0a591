import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: {
    // graphql as Node resolves it in production (its CommonJS entry): graphql-jit reaches some of its files
    // by path (graphql/execution/execute.js), and vite's pick of the ES build would make those a second graphql.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    name: 'server',
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // One copy of graphql for type-graphql and the schema ("Cannot use GraphQLSchema from another module").
    server: { deps: { inline: [/type-graphql/, /graphql-scalars/, /@apollo\/server/, /graphql-ws/] } },
  },
});
