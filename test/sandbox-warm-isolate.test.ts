// A warm isolate between runs: compiled driver scripts are reused only for the very same
// source and file name.
import { afterEach, describe, expect, it } from 'vitest';
import type ivm from 'isolated-vm';
import { WarmIsolate } from '../host/sandbox/warm-isolate.js';

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
      warm.driver(source(2), 'driver.js').runSync(context);
      expect(evaluate(warm, context, `String(get_status).match(/'N', (\\d+)/)[1]`)).toBe('2'); // the script run is source 2's
    });
  }
});
