import { defineProject } from 'vitest/config';

/**
 * Measurements that need a browser and a real Plaza but assert nothing a change could break (figures for
 * BENCHMARKS.md): run on purpose (`pnpm --filter @plaza/e2e measure:first-paint`), never by `pnpm test`.
 */
export default defineProject({
  test: {
    name: 'e2e-measure',
    include: ['measure/**/*.measure.ts'],
    globalSetup: ['global-setup.ts'],
    fileParallelism: false,
    pool: 'forks',
    testTimeout: 600_000,
    hookTimeout: 180_000,
  },
});
