// host/bridges/core/device-text/: what SSH and Telnet share for hostile device text — the streaming
// literal search, the window a pattern test sees, the compact collectors, and a driver's
// patterns in an isolate under one budget per run.
import { describe, expect, it } from 'vitest';
import { ByteCollector } from '../../../host/bridges/core/device-text/byte-collector.js';
import { driverPattern, DriverPatternError } from '../../../host/bridges/core/device-text/driver-pattern.js';
import { LiteralSearch } from '../../../host/bridges/core/device-text/literal-search.js';
import { EMPTY_WINDOW, nextWindow, WINDOW_CHARS } from '../../../host/bridges/core/device-text/match-window.js';
import { patternBudget, PatternBudget } from '../../../host/bridges/core/device-text/pattern-budget.js';
import { PatternIsolate } from '../../../host/bridges/core/device-text/pattern-isolate.js';
import { TextCollector } from '../../../host/bridges/core/device-text/text-collector.js';

describe('device text', () => {
  it('LiteralSearch answers what includes() on everything so far answers, after every piece', () => {
    let seed = 7;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let round = 0; round < 300; round++) {
      const alphabet = 'ab#';
      const needle = Array.from({ length: 1 + random(5) }, () => alphabet[random(3)]).join('');
      const search = new LiteralSearch(needle);
      let all = '';
      for (let piece = 0; piece < 20; piece++) {
        const text = Array.from({ length: random(4) }, () => alphabet[random(3)]).join('');
        all += text;
        expect(search.feed(text), `${JSON.stringify(needle)} in ${JSON.stringify(all)}`).toBe(all.includes(needle));
      }
    }
  });

  it('the window: the whole output while short; past WINDOW_CHARS its tail, from a line start', () => {
    const short = nextWindow(nextWindow(EMPTY_WINDOW, 'show version\r\n'), 'sw-01# ');
    expect(short).toEqual({ text: 'show version\r\nsw-01# ', atLineStart: true });
    const long = nextWindow(short, `${'x'.repeat(WINDOW_CHARS)}\r\nsw-01# `);
    expect(long).toEqual({ text: 'sw-01# ', atLineStart: true });
    const oneLine = nextWindow(EMPTY_WINDOW, 'y'.repeat(WINDOW_CHARS * 2));
    expect(oneLine.text.length).toBe(WINDOW_CHARS);
    expect(oneLine.atLineStart).toBe(false);
  });

  it('the collectors keep every piece in order and join once', () => {
    const text = new TextCollector();
    const bytes = new ByteCollector();
    for (let i = 0; i < 10_000; i++) {
      text.push(String(i % 10));
      bytes.append(Buffer.of(48 + (i % 10)));
    }
    expect(text.length).toBe(10_000);
    expect(text.text()).toBe(bytes.bytes().toString('latin1'));
    expect(text.text().slice(0, 12)).toBe('012345678901');
  });

  it('a driver pattern is checked on the host (syntax, length, flags) but never run there', () => {
    expect(driverPattern('prompt_regex', 'sw[>#]$', 'gim')).toEqual({ name: 'prompt_regex', source: 'sw[>#]$', flags: 'im' });
    expect(() => driverPattern('prompt_regex', '(', '')).toThrow(DriverPatternError);
    expect(() => driverPattern('prompt_regex', 'a'.repeat(1001), '')).toThrow(/at most 1000/);
    expect(() => driverPattern('shellPrompt', 'a', 'q')).toThrow(/flags/);
  });

  it("a run's patterns share one budget across calls; once spent, every call of the run fails at once", async () => {
    const run = new AbortController().signal;
    expect(patternBudget(run)).toBe(patternBudget(run));
    expect(patternBudget(run)).not.toBe(patternBudget(new AbortController().signal));
    const budget = new PatternBudget(300);
    const hostile = driverPattern('prompt_regex', '^(x+)+y', '');
    const first = new PatternIsolate([hostile], budget);
    const second = new PatternIsolate([driverPattern('prompt_regex', 'sw#', '')], budget);
    try {
      expect(await second.test(0, 'sw# ')).toBe(true);
      await expect(first.test(0, `${'x'.repeat(40)}!`)).rejects.toMatchObject({ code: 'PATTERN_BUDGET_EXCEEDED', message: expect.stringMatching(/budget of 300 ms of CPU/) });
      expect(budget.leftMs()).toBe(0);
      await expect(second.test(0, 'sw# ')).rejects.toMatchObject({ code: 'PATTERN_BUDGET_EXCEEDED' });
    } finally {
      first.dispose();
      second.dispose();
    }
  });
});
