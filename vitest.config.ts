import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Real-process tests measure nothing by time, but many processes at once on 2 cores
    // make drain windows noisy: keep file parallelism modest.
    maxWorkers: 2,
  },
});
