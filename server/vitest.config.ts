import { defineProject } from 'vitest/config';

export default defineProject({
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
