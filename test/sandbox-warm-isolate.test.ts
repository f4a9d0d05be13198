// A warm isolate between runs: the next run's context is made ahead (off the sandbox
// thread), yet every context is new and handed out once; compiled driver scripts are
// reused only for the very same source and file name.
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

describe('contexts made ahead', () => {
  it('a prepared context is new, has fresh globals, and is handed out once', async () => {
    const warm = warmIsolate();
    warm.prepareContext();
    await warm.ready();
    const first = warm.takeContext();
    evaluate(warm, first, `globalThis.leaked = 1; Array.prototype.polluted = 2`);

    const second = warm.takeContext(); // nothing prepared now: made on the spot
    expect(second).not.toBe(first);
    expect(evaluate(warm, second, `typeof leaked + ',' + typeof [].polluted`)).toBe('undefined,undefined');

    warm.prepareContext();
    warm.prepareContext(); // a second call while one is being made changes nothing
    await warm.ready();
    const third = warm.takeContext();
    expect(third).not.toBe(first);
    expect(third).not.toBe(second);
    expect(evaluate(warm, third, `typeof leaked + ',' + typeof [].polluted`)).toBe('undefined,undefined');
    expect(warm.takeContext()).not.toBe(third);
  });

  it('an isolate disposed while its context is being made is disposed once that is done, and gives no context', async () => {
    // Disposing under isolated-vm's async call could hang the thread: many tries, for the race.
    for (let i = 0; i < 50; i++) {
      const warm = warmIsolate();
      warm.prepareContext();
      if (i % 2 === 1) await new Promise((resolve) => setImmediate(resolve));
      warm.dispose();
      expect(warm.disposed).toBe(true);
      await warm.ready(); // settles, does not reject
      expect(warm.isolate.isDisposed).toBe(true);
      expect(() => warm.takeContext()).toThrow(/disposed/i);
    }
  });

  it('a disposed isolate prepares nothing', async () => {
    const warm = warmIsolate();
    warm.dispose();
    warm.prepareContext();
    await warm.ready();
    expect(() => warm.takeContext()).toThrow(/disposed/i);
  });
});

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
      const context = warm.takeContext();
      warm.driver(source(2), 'driver.js').runSync(context);
      expect(evaluate(warm, context, `String(get_status).match(/'N', (\\d+)/)[1]`)).toBe('2'); // the script run is source 2's
    });
  }
});
