import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

// isolated-vm needs --no-node-snapshot, which only a forked process can be started with.
export default defineConfig({
  test: {
    pool: 'forks',
    execArgv: ['--no-node-snapshot'],
    // Most of a file's time is spent waiting on real servers, processes and deadlines, not on the
    // CPU: two files at a time even on 2 cores, where vitest's default (cores - 1) would run one.
    // Each worker keeps its module graph between files (no isolate): importing the host afresh
    // for each of ~180 files cost 158 s of a 512 s run. Files still get their own hosts,
    // servers and stores from the helpers, and tests restore what they change (docs/architecture/test-suite.md).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    isolate: false,
    globalSetup: ['test/global-setup.ts'],
    // The default report, then each file's cost (test/reporters/file-durations.ts).
    reporters: ['default', './test/reporters/file-durations.ts'],
    // driver.test.*: the tests of a folder `driverbox init` made here (`npx vitest run my-nas`).
    include: ['test/**/*.test.ts', 'drivers-examples/**/*.test.ts', '**/driver.test.{js,mjs,cjs,ts}'],
    exclude: [...configDefaults.exclude, 'templates/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
