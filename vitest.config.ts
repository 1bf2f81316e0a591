import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: ['server', 'web', 'packages/shared', 'packages/app-sdk', 'packages/cli', 'e2e'],
    // Two cores: more parallel files only make each PostgreSQL-backed test slower.
    maxWorkers: 2,
  },
});
