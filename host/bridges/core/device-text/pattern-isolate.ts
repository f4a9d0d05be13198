// Where a driver's prompt patterns run: an isolated-vm isolate of their own, one per call that
// has any. A test is an async apply: it runs on isolated-vm's threads, never on the host's loop
// (which every device's network work shares), with a timeout of what is left of the run's
// pattern budget, and costs the budget exactly the isolate's CPU time. So a pattern that
// backtracks without end, or a device that makes every test slow, ends its own call with a
// clear error once the run's budget is spent, and no other device waits on it.
import type IsolatedVM from 'isolated-vm';
import type { DriverErrorCode } from '../../../contract/driver-error-codes.js';
import { loadIsolatedVm } from '../../../platform/isolated-vm.js';
import { showPattern, type DriverPattern } from './driver-pattern.js';
import type { PatternBudget } from './pattern-budget.js';

/** The isolate's heap: a window of text and a few compiled patterns need far less. */
const MEMORY_LIMIT_MB = 16;

export type PatternFailureCode = Extract<DriverErrorCode, 'PATTERN_BUDGET_EXCEEDED' | 'PATTERN_FAILED'>;

export class PatternFailure extends Error {
  readonly code: PatternFailureCode;
  constructor(code: PatternFailureCode, message: string) {
    super(message);
    this.code = code;
  }
}

// Runs inside the isolate: the patterns compiled once; test(i, text) is pattern i on text.
const SETUP = `(function (list) {
  const patterns = JSON.parse(list).map(function (p) { return new RegExp(p.source, p.flags); });
  return function (index, text) { return patterns[index].test(text); };
})`;

/** CPU the isolate used since `before`, ms (0 once it is gone: a memory-limit hit disposes it). */
function cpuMsSince(isolate: IsolatedVM.Isolate, before: bigint): number {
  try {
    return Number(isolate.cpuTime - before) / 1e6;
  } catch {
    return 0;
  }
}

export class PatternIsolate {
  readonly #patterns: DriverPattern[];
  readonly #budget: PatternBudget;
  #isolate: IsolatedVM.Isolate | null = null;
  #test: Promise<IsolatedVM.Reference<(index: number, text: string) => boolean>> | null = null;
  #disposed = false;

  constructor(patterns: DriverPattern[], budget: PatternBudget) {
    this.#patterns = patterns;
    this.#budget = budget;
  }

  /** Whether pattern `index` matches `text`; rejects with a PatternFailure. */
  test(index: number, text: string): Promise<boolean> {
    const pattern = this.#patterns[index]!;
    return this.#budget.queue(async () => {
      if (this.#disposed) return false;
      if (this.#budget.leftMs() < 1) throw this.#overBudget(pattern);
      const isolate = this.#isolate ?? this.#start();
      const before = isolate.cpuTime;
      let charged = false;
      const charge = () => {
        if (!charged && !this.#disposed) this.#budget.charge(cpuMsSince(isolate, before));
        charged = true;
      };
      try {
        const test = await this.#test!;
        const left = this.#budget.leftMs();
        if (left < 1) throw this.#overBudget(pattern);
        return (await test.apply(undefined, [index, text], { timeout: Math.ceil(left), result: { copy: true } })) === true;
      } catch (error) {
        if (error instanceof PatternFailure || this.#disposed) throw error;
        const message = error instanceof Error ? error.message : String(error);
        // isolated-vm's timeout: the test ran past what was left of the budget.
        if (/timed out/i.test(message)) {
          charge();
          this.#budget.exhaust();
          throw this.#overBudget(pattern);
        }
        throw new PatternFailure('PATTERN_FAILED', `${pattern.name} ${showPattern(pattern)} failed on the device's output: ${message}`);
      } finally {
        charge();
      }
    });
  }

  #start(): IsolatedVM.Isolate {
    const { ivm } = loadIsolatedVm();
    const isolate = new ivm.Isolate({ memoryLimit: MEMORY_LIMIT_MB });
    this.#isolate = isolate;
    const list = JSON.stringify(this.#patterns.map((p) => ({ source: p.source, flags: p.flags })));
    this.#test = isolate.createContext().then(async (context) => {
      const setup = await context.eval(SETUP, { reference: true, timeout: Math.max(1, Math.ceil(this.#budget.leftMs())) });
      return (await setup.apply(undefined, [list], { result: { reference: true } })) as IsolatedVM.Reference<(index: number, text: string) => boolean>;
    });
    // Awaited by the test that started it; a failure there is that test's.
    this.#test.catch(() => undefined);
    return isolate;
  }

  #overBudget(pattern: DriverPattern): PatternFailure {
    const budget = this.#budget;
    return new PatternFailure(
      'PATTERN_BUDGET_EXCEEDED',
      `${pattern.name} ${showPattern(pattern)}: the run's prompt patterns used up their budget of ${budget.totalMs} ms of CPU (${Math.round(budget.spentMs)} ms over ${budget.tests} tests); the call was ended`,
    );
  }

  /** Ends the isolate (a test in flight is dropped). Idempotent. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    try {
      if (this.#isolate && !this.#isolate.isDisposed) this.#isolate.dispose();
    } catch {
      // already gone
    }
  }
}
