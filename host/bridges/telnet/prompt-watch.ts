// Which prompt the device shows (shell, login, password, in that order, as telnet-client
// checks them) in the text received before the command is sent. Without a driver's regular
// expression, each received chunk is tested at once on the host, as telnet-client does (text
// and our defaults are linear). With one, the chunks are tested in an isolate under the run's
// pattern budget (core/device-text/pattern-isolate.ts), one test at a time, the next covering every
// chunk that came meanwhile, on at most the last WINDOW_CHARS of it: the host's loop only
// queues text, and the run's patterns cost at most its budget in all.
import { EMPTY_WINDOW, nextWindow } from '../core/device-text/match-window.js';
import type { DriverPattern } from '../core/device-text/driver-pattern.js';
import { patternBudget } from '../core/device-text/pattern-budget.js';
import { PatternFailure, PatternIsolate } from '../core/device-text/pattern-isolate.js';
import { TextCollector } from '../core/device-text/text-collector.js';
import { hostPromptShown, type TelnetPrompt } from './prompt.js';

export type PromptKind = 'shell' | 'login' | 'password';
const KINDS: PromptKind[] = ['shell', 'login', 'password'];

export class TelnetPromptWatch {
  readonly #prompts: TelnetPrompt[];
  readonly #onPrompt: (kind: PromptKind) => void;
  readonly #onFailure: (error: PatternFailure) => void;
  readonly #isolate: PatternIsolate | null;
  /** Per prompt, its index among the driver's patterns (in the isolate), or -1. */
  readonly #slots: number[];
  readonly #fresh = new TextCollector();
  #busy = false;
  #stopped = false;

  constructor(runSignal: AbortSignal, prompts: { shell: TelnetPrompt; login: TelnetPrompt; password: TelnetPrompt }, onPrompt: (kind: PromptKind) => void, onFailure: (error: PatternFailure) => void) {
    this.#prompts = [prompts.shell, prompts.login, prompts.password];
    this.#onPrompt = onPrompt;
    this.#onFailure = onFailure;
    const patterns: DriverPattern[] = [];
    this.#slots = this.#prompts.map((p) => (p.kind === 'driver' ? patterns.push(p.pattern) - 1 : -1));
    this.#isolate = patterns.length === 0 ? null : new PatternIsolate(patterns, patternBudget(runSignal));
  }

  /** One received chunk's text (negotiation taken out). */
  push(text: string): void {
    if (this.#stopped || text.length === 0) return;
    if (!this.#isolate) {
      const index = this.#prompts.findIndex((p) => hostPromptShown(p as Exclude<TelnetPrompt, { kind: 'driver' }>, text));
      if (index >= 0) this.#onPrompt(KINDS[index]!);
      return;
    }
    this.#fresh.push(text);
    if (!this.#busy) void this.#test();
  }

  async #test(): Promise<void> {
    this.#busy = true;
    try {
      while (!this.#stopped && this.#fresh.length > 0) {
        const text = nextWindow(EMPTY_WINDOW, this.#fresh.text()).text;
        this.#fresh.clear();
        for (let i = 0; i < this.#prompts.length; i++) {
          const prompt = this.#prompts[i]!;
          const shown = prompt.kind === 'driver' ? await this.#isolate!.test(this.#slots[i]!, text) : hostPromptShown(prompt, text);
          if (this.#stopped) return;
          if (shown) {
            this.#onPrompt(KINDS[i]!);
            break;
          }
        }
      }
    } catch (error) {
      if (!this.#stopped) this.#onFailure(error instanceof PatternFailure ? error : new PatternFailure('PATTERN_FAILED', String(error)));
    } finally {
      this.#busy = false;
    }
  }

  /** No more prompts to look for (the command was sent, or the call ended). */
  stop(): void {
    this.#stopped = true;
    this.#fresh.clear();
    this.#isolate?.dispose();
  }
}
