// What the shell sequence waits for in a command's output: `prompt` (found anywhere),
// `prompt_regex` (matched), `error_prompt` (found anywhere, only while a command is waited on).
// The output is what came since the command was sent, as the collector's buffer was.
//
// Device text is hostile and the host's loop is shared, so: the literal prompts are searched
// as the text streams in (O(1) per character, literal-search.ts), the output is kept as pieces
// and joined once, and the driver's prompt_regex runs in an isolate of its own under the run's
// pattern budget (core/device-text/pattern-isolate.ts). Its tests are coalesced: one at a time, the
// next covering everything that came meanwhile, each on a bounded window (match-window.ts);
// a window re-reads earlier text only once at least a quarter as much new text came, or
// QUIET_MS after the last test, so the text tested grows linearly with the output.
import { LiteralSearch } from '../core/device-text/literal-search.js';
import { EMPTY_WINDOW, nextWindow, type Window } from '../core/device-text/match-window.js';
import type { DriverPattern } from '../core/device-text/driver-pattern.js';
import { patternBudget } from '../core/device-text/pattern-budget.js';
import { PatternFailure, PatternIsolate } from '../core/device-text/pattern-isolate.js';
import { TextCollector } from '../core/device-text/text-collector.js';

/** A test that would re-read more than 4× the new text waits at most this long after the last one. */
const QUIET_MS = 10;

export interface PromptWatchEvents {
  /** The prompt showed (prompt or prompt_regex): the output up to where it was seen. */
  prompt(output: string): void;
  /** error_prompt showed: the output up to where it was seen. */
  errorPrompt(output: string): void;
  /** prompt_regex could not be tested (the run's pattern budget spent, the pattern failed). */
  failure(error: PatternFailure): void;
}

/** greeting: before the first command (the prompt only noted); command: waited on; idle: only kept. */
export type WatchMode = 'greeting' | 'command' | 'idle';

export class ShellPromptWatch {
  readonly #events: PromptWatchEvents;
  readonly #output = new TextCollector();
  readonly #prompt: LiteralSearch;
  readonly #error: LiteralSearch | null;
  readonly #isolate: PatternIsolate | null;
  #mode: WatchMode = 'greeting';
  /** The prompt or error prompt was seen in this output: nothing more to look for. */
  #hit = false;
  #shown = false;
  /** Bumped by reset: a test of an earlier output answers into nothing. */
  #generation = 0;
  #disposed = false;
  // prompt_regex: text not tested yet, the last window, the test in flight.
  readonly #fresh = new TextCollector();
  #window: Window = EMPTY_WINDOW;
  #inFlight: Promise<void> | null = null;
  #lastTest = -Infinity;
  #timer: NodeJS.Timeout | null = null;
  /** A literal hit seen while a test of earlier text was in flight: it counts only if that test fails. */
  #heldHit: (() => void) | null = null;

  constructor(runSignal: AbortSignal, options: { prompt: string; errorPrompt: string | null; promptRegex: DriverPattern | null }, events: PromptWatchEvents) {
    this.#events = events;
    this.#prompt = new LiteralSearch(options.prompt);
    this.#error = options.errorPrompt === null ? null : new LiteralSearch(options.errorPrompt);
    this.#isolate = options.promptRegex === null ? null : new PatternIsolate([options.promptRegex], patternBudget(runSignal));
  }

  /** Whether the prompt was seen in this output (the greeting's check). */
  get shown(): boolean {
    return this.#shown;
  }

  /** The output so far. */
  text(): string {
    return this.#output.text();
  }

  /** Starts a new output (a command was sent, or one was answered). */
  reset(mode: WatchMode): void {
    this.#generation++;
    this.#mode = mode;
    this.#output.clear();
    this.#prompt.reset();
    this.#error?.reset();
    this.#hit = false;
    this.#shown = false;
    this.#heldHit = null;
    this.#fresh.clear();
    this.#window = EMPTY_WINDOW;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  push(text: string): void {
    if (this.#disposed || text.length === 0) return;
    this.#output.push(text);
    if (this.#hit || this.#mode === 'idle') return;
    if (this.#mode === 'command' && this.#error?.feed(text)) return this.#literalHit('error');
    if (this.#prompt.feed(text)) return this.#literalHit('prompt');
    if (this.#isolate && this.#heldHit === null) {
      this.#fresh.push(text);
      this.#schedule(false);
    }
  }

  #literalHit(kind: 'prompt' | 'error'): void {
    this.#hit = true;
    if (kind === 'prompt') this.#shown = true;
    const output = this.#output.text();
    const report = () => (kind === 'prompt' ? this.#events.prompt(output) : this.#events.errorPrompt(output));
    // A test of earlier text may still match: it would have been seen first.
    if (this.#inFlight) this.#heldHit = report;
    else if (this.#mode === 'command' || kind === 'error') report();
  }

  #schedule(now: boolean): void {
    if (this.#inFlight || this.#hit || this.#disposed || this.#fresh.length === 0) return;
    const since = performance.now() - this.#lastTest;
    if (now || this.#fresh.length * 4 >= this.#window.text.length || since >= QUIET_MS) return this.#test();
    this.#timer ??= setTimeout(() => {
      this.#timer = null;
      this.#schedule(true);
    }, QUIET_MS - since);
  }

  #test(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#window = nextWindow(this.#window, this.#fresh.text());
    this.#fresh.clear();
    const end = this.#output.length;
    const generation = this.#generation;
    this.#lastTest = performance.now();
    this.#inFlight = this.#isolate!.test(0, this.#window.text).then(
      (match) => {
        this.#inFlight = null;
        if (this.#disposed) return;
        if (generation !== this.#generation) return this.#schedule(false);
        const held = this.#heldHit;
        this.#heldHit = null;
        if (match) {
          this.#hit = true;
          this.#shown = true;
          if (this.#mode === 'command') this.#events.prompt(this.#output.text().slice(0, end));
        } else if (held) {
          held();
        } else {
          this.#schedule(false);
        }
      },
      (error: unknown) => {
        this.#inFlight = null;
        if (this.#disposed) return;
        this.#events.failure(error instanceof PatternFailure ? error : new PatternFailure('PATTERN_FAILED', String(error)));
      },
    );
  }

  /**
   * Null when nothing is being tested; else a promise of the moment every text that came has
   * been tested (and its prompt reported), at once, without waiting for QUIET_MS.
   */
  settled(): Promise<void> | null {
    if (!this.#inFlight && (this.#hit || this.#fresh.length === 0)) return null;
    return (async () => {
      while (!this.#disposed) {
        if (this.#inFlight) await this.#inFlight;
        else if (!this.#hit && this.#fresh.length > 0) this.#schedule(true);
        else return;
      }
    })();
  }

  dispose(): void {
    this.#disposed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#isolate?.dispose();
  }
}
