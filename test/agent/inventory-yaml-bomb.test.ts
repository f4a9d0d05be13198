// An inventory that makes the loader expand, resolve or nest without bound is refused with the
// inventory's usual error (file, line, the limit), not a stack trace: aliases repeating aliases
// ("billion laughs"), more aliases than the library resolves in reasonable time (it scans every
// anchor per alias), nesting deeper than the bound, and a text past the size bound. Through the
// real bin (`driverbox agent --inventory`) and through the loader, on both parse paths.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InventoryError, parseInventory } from '../../host/agent/inventory/index.js';
import { MAX_INVENTORY_CHARS } from '../../host/agent/inventory/parse-text.js';
import { INVENTORY_YAML_BOUNDS } from '../../host/agent/inventory/yaml-bounds.js';
import { runBin } from '../helpers/cli.js';

/** Ten aliases of the anchor before, nine levels deep: 10^10 values once expanded. */
function laughs(): string {
  let text = 'version: 1\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n';
  for (let i = 1; i <= 9; i++) text += `a${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(', ')}]\n`;
  return text;
}

function problemsOf(text: string): readonly string[] {
  try {
    parseInventory(text, { format: 'yaml', file: '/inventories/site.yaml', env: {} });
  } catch (error) {
    expect(error).toBeInstanceOf(InventoryError);
    return (error as InventoryError).problems;
  }
  throw new Error('the inventory was accepted');
}

describe('inventory YAML bounds', () => {
  it('an alias bomb given to `driverbox agent --inventory` is the inventory error (file, line, limit), exit 2, no stack trace', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-bomb-'));
    const file = path.join(dir, 'inventory.yaml');
    writeFileSync(file, laughs());
    const r = await runBin(['agent', '--inventory', file, '--port', '0', '--store', path.join(dir, 'store.db')], { cwd: dir });
    expect(r.stderr).toContain(`driverbox agent: the inventory cannot be used: ${file}: 1 problem`);
    // Refused at the alias where the running expansion passes the bound, long before 10^10.
    expect(r.stderr).toMatch(new RegExp(`line \\d+, column \\d+: the alias \\*a\\d expands the document past ${INVENTORY_YAML_BOUNDS.maxExpandedNodes} values`));
    expect(r.stderr).not.toMatch(/ReferenceError|\n\s+at /);
    expect(r.code).toBe(2);
  }, 60_000);

  it('more aliases than the bound: refused at the first one past it, with its line', () => {
    const max = INVENTORY_YAML_BOUNDS.maxAliases;
    const text = `version: 1\nshared: &s x\nmany:\n${Array.from({ length: max + 1 }, () => '  - *s').join('\n')}\n`;
    expect(problemsOf(text)).toEqual([`line ${3 + max + 1}, column 5: more than ${max} aliases (*name); an inventory may use at most ${max}`]);
  });

  it('nesting deeper than the bound, on the whole-document path and in one item of the item-by-item path', () => {
    const depth = INVENTORY_YAML_BOUNDS.maxDepth + 1;
    const nested = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    // Anchors and aliases force the whole-document parse; a plain list is split into items.
    const whole = `version: 1\nx: &n ${nested}\n`;
    const items = `version: 1\ndevices:\n  - name: a\n    ip: 10.0.0.1\n  - ${nested}\n`;
    const said = `nested more than ${INVENTORY_YAML_BOUNDS.maxDepth} levels deep; an inventory may nest at most ${INVENTORY_YAML_BOUNDS.maxDepth}`;
    // The top-level mapping is level 1: x's 100th bracket is level 101, and devices[1]'s 99th
    // (the item refused on its own, the whole document's parse says where).
    expect(problemsOf(whole)).toEqual([`line 2, column ${7 + 99}: ${said}`]);
    expect(problemsOf(items)).toEqual([`line 5, column ${5 + 98}: ${said}`]);
  });

  it('nesting past what the parser itself can take is said as the depth bound, not "Maximum call stack size exceeded"', () => {
    const problems = problemsOf(`version: 1\nx: ${'['.repeat(50_000)}${']'.repeat(50_000)}\n`);
    expect(problems.length).toBeGreaterThan(0);
    for (const p of problems) expect(p).toMatch(/^line 2, column \d+: nested too deeply for the parser; an inventory may nest at most 100 levels$/);
  });

  it('a text past the size bound is refused before it is parsed', () => {
    const text = `version: 1\n#${' '.repeat(MAX_INVENTORY_CHARS)}`;
    expect(problemsOf(text)).toEqual([`the inventory is ${text.length} characters long; an inventory may be at most ${MAX_INVENTORY_CHARS} (64 MiB)`]);
  });

  it('ordinary aliases (shared credentials) still load', () => {
    const devices = Array.from({ length: 50 }, (_, i) => `  - { name: d${i}, ip: 10.0.0.${i + 1}, credentials: *creds }`).join('\n');
    const text = `version: 1\ndevices:\n  - { name: first, ip: 10.0.1.1, credentials: &creds { username: admin, password: secret } }\n${devices}\n`;
    const inventory = parseInventory(text, { format: 'yaml', env: {} });
    expect(inventory.devices).toHaveLength(51);
    expect(inventory.devices.every((d) => d.credentials?.username === 'admin')).toBe(true);
  });
});
