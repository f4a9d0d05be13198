// isolated-vm (5.x and 6.x alike) crashes on Node 20 and later without --no-node-snapshot, and
// the flag cannot be turned on from inside a running process: say so plainly instead of
// crashing later; likewise when no isolated-vm line built for this Node.
import { DriverboxError } from '../contract/errors.js';
import { loadIsolatedVm } from './isolated-vm.js';

export function hasNoNodeSnapshot(): boolean {
  const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return flags.includes('--no-node-snapshot');
}

export function assertNodeFlags(): void {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= 20 && !hasNoNodeSnapshot()) {
    throw new DriverboxError(
      'NODE_FLAG_MISSING',
      'isolated-vm needs Node to start with --no-node-snapshot: run `node --no-node-snapshot …` ' +
        '(the driverbox CLI, tests and benchmarks already do)',
    );
  }
  // Here, on the caller's thread, so that createHost throws ISOLATED_VM_MISSING itself rather
  // than every sandbox thread failing on its first run.
  loadIsolatedVm();
}
