// A warm isolate between runs: a driver source is compiled (checked) once per isolate, for the
// very same source and file name only.
import { afterEach, describe, expect, it } from 'vitest';
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

describe('driver sources checked', () => {
  const small = (n: number) => `function get_status() { D.success([D.createVariable('n', 'N', ${n})]); }`;
  // Past the size up to which a source is its own cache key: these are keyed by a digest.
  const large = (n: number) => `${small(n)}\n/* ${'x'.repeat(40 * 1024)} */`;

  for (const [kind, source] of [
    ['small', small],
    ['large', large],
  ] as const) {
    it(`${kind} sources: the same source and name are compiled once, any difference compiles anew`, () => {
      const warm = warmIsolate();
      expect(warm.checkDriver(source(1), 'driver.js')).toBe(true);
      expect(warm.checkDriver(source(1), 'driver.js')).toBe(false);
      expect(warm.checkDriver(source(2), 'driver.js')).toBe(true);
      expect(warm.checkDriver(source(1), 'other.js')).toBe(true);
    });
  }

  it('a source that does not compile throws its SyntaxError with the position, every time', () => {
    const warm = warmIsolate();
    for (let i = 0; i < 2; i++) expect(() => warm.checkDriver('var x = ;', 'driver.js')).toThrow(/Unexpected token ';' \[driver\.js:1:9\]/);
  });
});
