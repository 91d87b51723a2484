import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['bench/src/**/*.test.ts', 'services/*/src/**/*.test.ts', 'shared/*/src/**/*.test.ts', 'test/src/**/*.test.ts', 'scripts/**/*.test.ts', 'web/src/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    // After each file: fails it when it left a tmux server or a process running (and ends them).
    setupFiles: ['test/src/helpers/leak-guard.ts'],
    // Limits that catch a hung test, not a slow one: a test's waits are for conditions,
    // and the suite must pass on a machine several times slower than a developer's while
    // other work shares its cores. A test that needs more says so itself.
    testTimeout: 150_000,
    hookTimeout: 180_000,
    teardownTimeout: 60_000,
    // Real tmux servers and child processes: keep parallelism modest on 2 cores.
    maxWorkers: 2,
    pool: 'forks',
  },
});
