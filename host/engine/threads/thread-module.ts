// Where a sandbox thread's module is: the bundle that the build makes of thread-entry.ts
// (scripts/build-thread.mjs, dist/thread/), whether the host runs from dist/ or from source
// (tsx, vitest), since a worker thread does not inherit a TypeScript loader. Its dependencies
// stay external, resolved from node_modules; what the entry imports only when asked
// (thread-network.ts, with undici, ssh2, net-snmp, node-forge) is a chunk of its own, loaded
// only by a thread that does its runs' network.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DriverboxError } from '../../contract/errors.js';
import { packagePath } from '../../package-path.js';

/** The built thread module's file name under the package root. */
export const THREAD_MODULE = path.join('dist', 'thread', 'thread-entry.js');

let found: URL | null = null;

export function threadModule(): URL {
  if (!found) {
    const file = packagePath(THREAD_MODULE);
    if (!file) throw new DriverboxError('RUNTIME_BUNDLE_MISSING', `the sandbox thread module (${THREAD_MODULE}) is missing: run \`npm run build\``);
    found = pathToFileURL(file);
  }
  return found;
}
