import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'app-sdk',
    // Browser tests opt into happy-dom per file, so server code runs on real Node APIs.
    environment: 'node',
    include: ['test/**/*.test.ts'],
  },
});
