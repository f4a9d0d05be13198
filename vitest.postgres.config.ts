// The second pass of `npm test`: every test file that opens its store through the test helpers
// (helpers/store, helpers/monitoring, helpers/marketplace), again on PostgreSQL. The files are
// found by what they import, so a new store, API or agent test joins this pass by itself.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

const USES_TEST_STORE = /helpers\/(store|monitoring|marketplace)\.js'/;

function storeTests(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'helpers' && entry.name !== 'fixtures') found.push(...storeTests(path));
    else if (entry.name.endsWith('.test.ts') && USES_TEST_STORE.test(readFileSync(path, 'utf8'))) found.push(path);
  }
  return found;
}

process.env.DRIVERBOX_TEST_STORE = 'postgres';

// Spread, not mergeConfig: that would add these files to the base include instead of replacing it.
export default defineConfig({ ...base, test: { ...base.test, include: storeTests('test') } });
