// One run's budget for its drivers' prompt patterns: the CPU all its pattern tests may take in
// all, over every SSH and Telnet call of the run, never per test only. Tests of one run are run
// one at a time (a run's concurrent calls queue here), so each gets exactly what is left.
//
// The budget belongs to the run; a call reaches it through the run's abort signal
// (ProtocolContext.signal, one per run), so it goes when the run does.

/** CPU a run's prompt patterns may use in all, ms. A sane prompt test on a window takes microseconds. */
export const PATTERN_BUDGET_MS = 1_000;

export class PatternBudget {
  readonly totalMs: number;
  #spentMs = 0;
  #tests = 0;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(totalMs = PATTERN_BUDGET_MS) {
    this.totalMs = totalMs;
  }

  get spentMs(): number {
    return this.#spentMs;
  }

  get tests(): number {
    return this.#tests;
  }

  leftMs(): number {
    return Math.max(0, this.totalMs - this.#spentMs);
  }

  charge(ms: number): void {
    this.#spentMs += ms;
    this.#tests++;
  }

  /** The budget is gone (a test that overran its share). */
  exhaust(): void {
    this.#spentMs = Math.max(this.#spentMs, this.totalMs);
  }

  /** Runs `test` once the run's earlier tests are done. */
  queue<T>(test: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(test);
    this.#queue = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

const budgets = new WeakMap<AbortSignal, PatternBudget>();

/** The budget of the run whose abort signal is `runSignal`. */
export function patternBudget(runSignal: AbortSignal): PatternBudget {
  let budget = budgets.get(runSignal);
  if (!budget) budgets.set(runSignal, (budget = new PatternBudget()));
  return budget;
}
