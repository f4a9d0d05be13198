// Files that ship with the driverbox package (dist/, templates/, drivers-examples/), found by
// walking up from this module to the package root: the same code runs from host/ (tests,
// tsx), from dist/host/ (installed), and bundled into dist/thread/ (sandbox threads).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DriverboxError } from './contract/errors.js';

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

/**
 * A script a child process runs (it cannot load TypeScript): `sibling` when this code runs from
 * dist/, else the built copy at `distRelative` (tests and tsx run host/ from source).
 */
export function builtScriptPath(sibling: URL, distRelative: string): string {
  const beside = fileURLToPath(sibling);
  if (existsSync(beside)) return beside;
  const built = packagePath(distRelative);
  if (!built) throw new DriverboxError('RUNTIME_BUNDLE_MISSING', `${distRelative} is missing: run \`npm run build\``);
  return built;
}
