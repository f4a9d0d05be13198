// Where the sandbox process's entry module is: next to this module when running from dist/,
// else the built copy in the package's dist/ (tests and tsx run host/ from source, and a
// forked process cannot load TypeScript). Same rule as host/testing/run-driver.ts.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DriverboxError } from '../../errors.js';
import { packagePath } from '../../package-path.js';

export function sandboxEntryPath(): string {
  const sibling = fileURLToPath(new URL('./child.js', import.meta.url));
  if (existsSync(sibling)) return sibling;
  const relative = path.join('dist', 'host', 'agent', 'sandbox-process', 'child.js');
  const built = packagePath(relative);
  if (!built) throw new DriverboxError('RUNTIME_BUNDLE_MISSING', `${relative} is missing: run \`npm run build\``);
  return built;
}
