// Native dependencies that come in lines: no single release builds (or runs) on every Node
// driverbox supports, so package.json installs each line as an optional dependency under an
// alias of its own. npm skips a line whose `engines` exclude the running Node and drops one
// whose native build fails; what is left is loaded here, the line meant for this Node first.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { DriverboxError, type DriverboxErrorCode } from '../contract/errors.js';

export interface NativeLine {
  /** The alias it is installed under (package.json's optionalDependencies). */
  readonly alias: string;
  /** The Node majors it builds, runs and passes the test suite on. */
  readonly nodeMajors: readonly number[];
}

export interface LoadedLine<T> {
  readonly module: T;
  readonly alias: string;
  /** The package's own version (its package.json). */
  readonly version: string;
  /** Absolute path of the package's entry file, for a child process that loads it bare. */
  readonly path: string;
}

/** Node majors driverbox supports (engines in package.json); README: Node lines. */
export const SUPPORTED_NODE_MAJORS: readonly number[] = [20, 22, 24];

const require = createRequire(import.meta.url);

/**
 * Loads the first line of `lines` (in order of preference) that is installed and loads, those
 * meant for the running Node first. Throws `code` naming the Node version and what each line
 * said when none loads.
 */
export function loadNativeLine<T>(name: string, lines: readonly NativeLine[], code: DriverboxErrorCode): LoadedLine<T> {
  const major = Number(process.versions.node.split('.')[0]);
  // The others after, in case one built anyway (a newer Node than those listed).
  const order = [...lines.filter((l) => l.nodeMajors.includes(major)), ...lines.filter((l) => !l.nodeMajors.includes(major))];
  const failures: string[] = [];
  for (const line of order) {
    let entry: string;
    try {
      entry = require.resolve(line.alias);
    } catch {
      failures.push(`${line.alias}: not installed (npm skips it, or removes it when its native build fails)`);
      continue;
    }
    try {
      const module = require(entry) as T;
      const { version } = JSON.parse(readFileSync(join(packageRoot(entry), 'package.json'), 'utf8')) as { version: string };
      return { module, alias: line.alias, version, path: entry };
    } catch (error) {
      failures.push(`${line.alias}: ${(error as Error).message.split('\n')[0]}`);
    }
  }
  throw new DriverboxError(
    code,
    `no ${name} build loads on Node ${process.versions.node}; driverbox supports Node ${SUPPORTED_NODE_MAJORS.join(', ')} ` +
      `(20.18 or later on 20). Install again with a supported Node first on the PATH (npm ci), which builds the line that fits; ` +
      `if npm skipped the install scripts that build it (npm 12 runs a dependency's only when package.json's allowScripts ` +
      `approves it), approve them first: npm install-scripts approve isolated-vm better-sqlite3. ` +
      failures.join('; '),
  );
}

/** The folder holding the package.json of the package `entry` belongs to. */
function packageRoot(entry: string): string {
  let dir = dirname(entry);
  for (;;) {
    try {
      readFileSync(join(dir, 'package.json'));
      return dir;
    } catch {
      const up = dirname(dir);
      if (up === dir) throw new Error(`no package.json above ${entry}`);
      dir = up;
    }
  }
}
