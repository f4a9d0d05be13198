// The driver's source as a function the in-isolate runtime calls inside its own guard
// (runtime/driver-code.ts), so that whatever the driver's top level throws is caught there and
// described as text, never copied out of the isolate by isolated-vm. The wrapper adds a line
// before the source (compiled with lineOffset -1, so every line and column stays the driver's)
// and, after it, a return of the entry points the source names: its declarations are the
// function's own, not globals, so the runtime finds them through that object.
import { ENTRY_POINT } from './entry-points.js';

/** The global the wrapper script leaves the driver's function in (runtime/index.ts takes it). */
export const CODE_SLOT = '__driverboxCode';

/** Entry-point names that appear anywhere in the source (in code, comments or strings alike: typeof sorts them out). */
function namedEntryPoints(source: string): string[] {
  const names = new Set<string>();
  for (const match of source.matchAll(/\b(?:validate|get_status|backup|custom_[1-9]\d*)\b/g)) {
    if (ENTRY_POINT.test(match[0])) names.add(match[0]);
  }
  return [...names];
}

export function wrapDriver(source: string): string {
  const entries = namedEntryPoints(source)
    .map((name) => `${name}: typeof ${name} === 'function' ? ${name} : undefined`)
    .join(', ');
  // Run as a script, it leaves the function in CODE_SLOT (taken and deleted by the runtime's install,
  // before any driver code runs) and completes with undefined: nothing to copy out of the isolate.
  // Returned from a function, not assigned: V8 would name it after the slot, and its frames must
  // read "at driver.js:L:C" as a script's top level does.
  return `${CODE_SLOT} = (function () { return function () {\n${source}\n;return { ${entries} };\n}; })();\nvoid 0;`;
}
