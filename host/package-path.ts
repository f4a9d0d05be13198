// Files that ship with the driverbox package (dist/, templates/, drivers-examples/), found by
// walking up from this module to the package root: the same code runs from host/ (tests,
// tsx), from dist/host/ (installed), and bundled into node_modules/.cache (sandbox threads).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The absolute path of `relative` in the nearest enclosing package that has it, or null. */
export function packagePath(relative: string): string | null {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, relative);
    if (existsSync(path.join(dir, 'package.json')) && existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}
