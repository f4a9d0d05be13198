import { configDefaults, defineConfig } from 'vitest/config';

// isolated-vm needs --no-node-snapshot, which only a forked process can be started with.
export default defineConfig({
  test: {
    pool: 'forks',
    execArgv: ['--no-node-snapshot'],
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
