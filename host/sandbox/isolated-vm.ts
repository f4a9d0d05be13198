// The one place that knows isolated-vm comes in lines: no single release builds on every Node
// driverbox supports (5.0.x builds on Node 20 and 22 but not on Node 24's V8; 6.x needs Node 22
// or later). package.json installs each line as an optional dependency under its own alias; npm
// skips a line whose `engines` exclude the running Node and drops one whose native build fails,
// so what is left in node_modules is what fits. Everything else imports isolated-vm from here.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type IsolatedVM from 'isolated-vm';
import { DriverboxError } from '../errors.js';

export interface IsolatedVmLine {
  /** The alias it is installed under (package.json's optionalDependencies). */
  readonly alias: string;
  /** The Node majors it builds and passes the test suite on. */
  readonly nodeMajors: readonly number[];
}

/** Preferred first: on a Node both lines build for (22), the newer one is used. */
export const ISOLATED_VM_LINES: readonly IsolatedVmLine[] = [
  { alias: 'isolated-vm-6', nodeMajors: [22, 24] },
  { alias: 'isolated-vm-5', nodeMajors: [20, 22] },
];

export interface LoadedIsolatedVm {
  readonly ivm: typeof IsolatedVM;
  readonly alias: string;
  /** isolated-vm's own version (its package.json). */
  readonly version: string;
  /** Absolute path of the package's entry file, for a child process that loads it bare. */
  readonly path: string;
}

const require = createRequire(import.meta.url);
let loaded: LoadedIsolatedVm | undefined;

/**
 * The isolated-vm line that built for the running Node, loaded once. Throws
 * ISOLATED_VM_MISSING naming the Node version and what each line said when none loads.
 */
export function loadIsolatedVm(): LoadedIsolatedVm {
  if (loaded) return loaded;
  const major = Number(process.versions.node.split('.')[0]);
  // Lines meant for this Node first; the others after, in case one built anyway (a newer Node).
  const order = [...ISOLATED_VM_LINES.filter((l) => l.nodeMajors.includes(major)), ...ISOLATED_VM_LINES.filter((l) => !l.nodeMajors.includes(major))];
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
      const ivm = require(entry) as typeof IsolatedVM;
      const { version } = JSON.parse(readFileSync(join(dirname(entry), 'package.json'), 'utf8')) as { version: string };
      loaded = { ivm, alias: line.alias, version, path: entry };
      return loaded;
    } catch (error) {
      failures.push(`${line.alias}: ${(error as Error).message.split('\n')[0]}`);
    }
  }
  const supported = [...new Set(ISOLATED_VM_LINES.flatMap((l) => l.nodeMajors))].sort((a, b) => a - b).join(', ');
  throw new DriverboxError(
    'ISOLATED_VM_MISSING',
    `no isolated-vm build loads on Node ${process.versions.node}; driverbox supports Node ${supported} ` +
      `(20.18 or later on 20). Install again with a supported Node first on the PATH (npm ci), which builds the line that fits. ` +
      failures.join('; '),
  );
}
