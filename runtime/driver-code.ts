// Runs the driver's code from inside the runtime, so that nothing the driver throws or leaves
// as its script's last value ever reaches isolated-vm (which would copy it out of the isolate
// running the driver's getters and Proxy traps with no time limit): the top level is evaluated
// here, by an indirect eval (global scope, a script's semantics for var and function
// declarations), inside the bridge's guard, and errors become text here (error-text.ts).
import { regexpTest } from './intrinsics';

const indirectEval = eval;
const ENTRY_POINT = /^(validate|get_status|custom_[1-9]\d*)$/;
/** Characters that would end the sourceURL comment (and let a file name add code). */
const LINE_BREAKS = /[\r\n\u2028\u2029]/g;

/** The name the driver's frames carry, as it can stand in a `//# sourceURL=` comment. */
export function sourceName(filename: string): string {
  return filename.replace(LINE_BREAKS, ' ');
}

/**
 * Evaluates the driver's source and returns its entry point `action`, or null. The host has
 * compiled the same source already (host/sandbox/run.ts), so a syntax error never gets here.
 * The entry point is found as a global function (what a script's function declaration makes),
 * else through a lookup appended after the source (a strict-mode driver's declarations stay
 * in its eval's scope); appended, so that no line or column of the driver moves.
 */
export function runDriverCode(source: string, filename: string, action: string): unknown {
  const lookup = regexpTest(ENTRY_POINT, action) ? `\n;(function () { return typeof ${action} === 'function' ? ${action} : undefined; })` : '\n;undefined';
  const found = indirectEval(`${source}${lookup}\n//# sourceURL=${sourceName(filename)}`) as unknown;
  const global = (globalThis as Record<string, unknown>)[action];
  if (typeof global === 'function') return global;
  return typeof found === 'function' ? (found as () => unknown)() : undefined;
}
