import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['bench/src/**/*.test.ts', 'services/*/src/**/*.test.ts', 'shared/*/src/**/*.test.ts', 'test/src/**/*.test.ts', 'scripts/**/*.test.ts', 'web/src/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Real tmux servers and child processes: keep parallelism modest on 2 cores.
    maxWorkers: 2,
    pool: 'forks',
  },
});
