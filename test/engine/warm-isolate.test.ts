// A warm isolate between runs: compiled driver scripts are reused only for the very same
// source and file name.
import { afterEach, describe, expect, it } from 'vitest';
import type ivm from 'isolated-vm';
import { WarmIsolate } from '../../host/engine/isolate/warm-isolate.js';

const made: WarmIsolate[] = [];
function warmIsolate(): WarmIsolate {
  const warm = WarmIsolate.create(32);
  made.push(warm);
  return warm;
}
afterEach(() => {
  for (const warm of made.splice(0)) warm.dispose();
});

const evaluate = (warm: WarmIsolate, context: ivm.Context, code: string): unknown =>
  warm.isolate.compileScriptSync(code).runSync(context, { copy: true });

describe('compiled driver scripts', () => {
  const small = (n: number) => `function get_status() { D.success([D.createVariable('n', 'N', ${n})]); }`;
  // Past the size up to which a source is its own cache key: these are keyed by a digest.
  const large = (n: number) => `${small(n)}\n/* ${'x'.repeat(40 * 1024)} */`;

  for (const [kind, source] of [
    ['small', small],
    ['large', large],
  ] as const) {
    it(`${kind} sources: the same source and name reuse a script, any difference compiles anew`, () => {
      const warm = warmIsolate();
      const a = warm.driver(source(1), 'driver.js');
      expect(warm.driver(source(1), 'driver.js')).toBe(a);
      expect(warm.driver(source(2), 'driver.js')).not.toBe(a);
      expect(warm.driver(source(1), 'other.js')).not.toBe(a);
      const context = warm.isolate.createContextSync();
      // The script makes the driver's function (host/driver/wrap.ts); calling it returns its entry points.
      warm.driver(source(2), 'driver.js').runSync(context);
      expect(evaluate(warm, context, `String(__driverboxCode().get_status).match(/'N', (\\d+)/)[1]`)).toBe('2'); // the script run is source 2's
    });
  }

  it('a source that does not compile on its own throws its SyntaxError with the position, even when its wrapper would compile', () => {
    const warm = warmIsolate();
    expect(() => warm.driver('var x = ;', 'driver.js')).toThrow(/Unexpected token ';' \[driver\.js:1:9\]/);
    // Would close the wrapper's function early and run code outside the runtime's guard.
    expect(() => warm.driver('}); (function () {', 'driver.js')).toThrow(/Unexpected token '\}' \[driver\.js:1:1\]/);
    expect(() => warm.driver('return 1;', 'driver.js')).toThrow(/Illegal return statement \[driver\.js:1:1\]/);
  });

  it('the wrapper keeps every line and column of the driver', () => {
    const warm = warmIsolate();
    const context = warm.isolate.createContextSync();
    warm.driver('\n\n  function get_status() { return new Error("x").stack; }', 'driver.js').runSync(context);
    expect(evaluate(warm, context, `var f = __driverboxCode().get_status; f()`)).toMatch(/^Error: x\n    at get_status \(driver\.js:3:34\)/);
  });
});
