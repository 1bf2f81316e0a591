import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'e2e',
    include: ['test/**/*.test.ts'],
    globalSetup: ['global-setup.ts'],
    // Each file starts a Plaza process (embedded PostgreSQL), an app process and a browser; one file at a time.
    fileParallelism: false,
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
