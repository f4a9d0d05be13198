// The one place that loads isolated-vm, which comes in lines (native-lines.ts): 5.0.x
// builds on Node 20 and 22 but not against Node 24's V8; 6.x needs Node 22 or later. The engine's
// isolates (host/engine/isolate/) and the bridges' pattern isolates get it from here, and any
// difference between the lines is handled here.
import type IsolatedVM from 'isolated-vm';
import { loadNativeLine, type LoadedLine, type NativeLine } from './native-lines.js';

/** Preferred first: on a Node both lines build for (22), the newer one is used. */
export const ISOLATED_VM_LINES: readonly NativeLine[] = [
  { alias: 'isolated-vm-6', nodeMajors: [22, 24] },
  { alias: 'isolated-vm-5', nodeMajors: [20, 22] },
];

let loaded: (LoadedLine<typeof IsolatedVM> & { ivm: typeof IsolatedVM }) | undefined;

/** The isolated-vm line that built for the running Node, loaded once; ISOLATED_VM_MISSING when none did. */
export function loadIsolatedVm(): LoadedLine<typeof IsolatedVM> & { ivm: typeof IsolatedVM } {
  if (!loaded) {
    const line = loadNativeLine<typeof IsolatedVM>('isolated-vm', ISOLATED_VM_LINES, 'ISOLATED_VM_MISSING');
    loaded = { ...line, ivm: line.module };
  }
  return loaded;
}
