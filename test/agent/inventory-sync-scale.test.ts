// The inventory sync's cost grows with the inventory, not with its square: the statements it
// runs and the rows they return, counted on a real store for inventories of two sizes (a
// per-association read of the driver's device list made the rows grow as n²), and an
// unchanged re-sync runs the same few statements whatever the size.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseInventory, syncInventory } from '../../host/agent/inventory/index.js';
import type { Store } from '../../host/store/index.js';
import { openTestStore } from '../helpers/store.js';

const DRIVER = 'function validate() { D.success(); }\nfunction get_status() { D.success(); }\n';

function inventoryText(devices: number): string {
  const lines = ['version: 1', 'devices:'];
  for (let i = 0; i < devices; i++) lines.push(`  - { name: dev-${i}, ip: 10.0.${i >> 8}.${i & 255}, credentials: { username: u, password: p${i} } }`);
  lines.push('drivers:', '  - { name: status, path: status.js, samplePeriod: 60, parameters: { community: { type: STRING, default: public } } }', 'associations:');
  for (let i = 0; i < devices; i++) lines.push(`  - { driver: status, device: dev-${i}${i % 2 ? ', parameters: { community: c' + i + ' }' : ''} }`);
  return `${lines.join('\n')}\n`;
}

/** Counts the statements the store runs and the rows they return, from now on. */
function countStatements(store: Store): { statements: number; rows: number } {
  const counts = { statements: 0, rows: 0 };
  const original = store.statement.bind(store);
  store.statement = ((sql: string) => {
    const statement = original(sql);
    const counted = (method: 'get' | 'all' | 'run' | 'insert') =>
      async (...params: unknown[]) => {
        counts.statements += 1;
        const result = await (statement[method] as (...p: unknown[]) => Promise<unknown>)(...params);
        counts.rows += Array.isArray(result) ? result.length : result === undefined ? 0 : 1;
        return result;
      };
    return { get: counted('get'), all: counted('all'), run: counted('run'), insert: counted('insert') };
  }) as typeof store.statement;
  return counts;
}

describe('inventory sync at scale', () => {
  const stores: Store[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
  });

  async function syncSize(devices: number) {
    const dir = mkdtempSync(join(tmpdir(), 'driverbox-sync-scale-'));
    writeFileSync(join(dir, 'status.js'), DRIVER);
    const inventory = parseInventory(inventoryText(devices), { format: 'yaml', file: join(dir, 'inventory.yaml'), env: {} });
    const store = await openTestStore({ secretKey: 'sync-scale-test' });
    stores.push(store);
    const counts = countStatements(store);
    const first = await syncInventory(store, inventory);
    const firstSync = { ...counts };
    const again = await syncInventory(store, inventory);
    return {
      added: first.associations.added.length,
      changedAgain: again.changed,
      first: firstSync,
      again: { statements: counts.statements - firstSync.statements, rows: counts.rows - firstSync.rows },
    };
  }

  it('runs statements and reads rows in proportion to the inventory, and an unchanged re-sync a fixed number of statements', async () => {
    const small = await syncSize(100);
    const large = await syncSize(400);
    expect(small.added).toBe(100);
    expect(large.added).toBe(400);
    expect(large.changedAgain).toBe(false);
    // 4× the entries: 4× the work, with room for the fixed part (quadratic would be ~16×).
    expect(large.first.statements / small.first.statements).toBeLessThan(4.5);
    expect(large.first.rows / small.first.rows).toBeLessThan(4.5);
    // Unchanged: a few bulk reads, however many entries (their rows grow, the statements do not).
    expect(large.again.statements).toBe(small.again.statements);
    expect(large.again.statements).toBeLessThan(20);
    expect(large.again.rows / small.again.rows).toBeLessThan(4.5);
  });
});
