import { defineConfig } from 'vitest/config';

// isolated-vm needs --no-node-snapshot, which only a forked process can be started with.
export default defineConfig({
  test: {
    pool: 'forks',
    execArgv: ['--no-node-snapshot'],
    globalSetup: ['test/global-setup.ts'],
    include: ['test/**/*.test.ts', 'drivers-examples/**/*.test.ts', '**/driver.test.{js,mjs,cjs,ts}'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
