// The driver's console. Every line goes to the host as it is written (so a run that
// dies still has its logs), up to the run's log budget; past it, one notice and silence.
import type { Bridge } from './bridge';
import type { LogLevel } from './protocol';
import { stringify } from './intrinsics';
import { describeForLog } from './error-text';

function formatOne(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Error) return describeForLog(value);
  if (typeof value === 'function') return `[Function ${value.name || 'anonymous'}]`;
  if (typeof value === 'bigint' || typeof value === 'symbol' || value === undefined) return String(value);
  const seen = new WeakSet<object>();
  try {
    return stringify(value, (_key, v: unknown) => {
      if (typeof v === 'bigint') return `${v}n`;
      if (v && typeof v === 'object') {
        if (seen.has(v)) return '[Circular]';
        seen.add(v);
      }
      return v;
    }) ?? String(value);
  } catch {
    return String(value);
  }
}

/** printf-style %s %d %i %f %j %o %O %% in the first argument, then the rest joined by spaces. */
export function formatLog(args: unknown[]): string {
  if (args.length === 0) return '';
  let rest = args.slice(1);
  let head = formatOne(args[0]);
  if (typeof args[0] === 'string' && args[0].includes('%')) {
    head = args[0].replace(/%([sdifjoO%])/g, (match, spec: string) => {
      if (spec === '%') return '%';
      if (rest.length === 0) return match;
      const [next] = rest;
      rest = rest.slice(1);
      if (spec === 'd' || spec === 'i') return String(spec === 'i' ? parseInt(String(next), 10) : Number(next));
      if (spec === 'f') return String(parseFloat(String(next)));
      return formatOne(next);
    });
  }
  return [head, ...rest.map(formatOne)].join(' ');
}

/** What the console dropped past the log limit, as the host is told it (protocol 'logDropped'). */
export interface LogDropped {
  /** Whole lines written after the limit. */
  lines: number;
  /** Characters dropped: the cut end of the line that reached the limit, and every later line's. */
  chars: number;
  /** true: the run's last count (sent as it ends); false: a count so far (a run killed later keeps it). */
  final: boolean;
}

/**
 * The driver's console. Past the log limit, lines are still formatted (on the driver's own CPU
 * time) to count what was dropped; the count goes to the host at the limit, at 2, 4, 8… dropped
 * lines (so a flood costs a logarithmic number of host calls) and as the run ends (`flush`).
 */
export function createConsole(bridge: Bridge, maxChars: number) {
  let used = 0;
  let silenced = false;
  let droppedLines = 0;
  let droppedChars = 0;
  let nextReport = 1;
  const report = (final: boolean): void => {
    bridge.call('logDropped', { lines: droppedLines, chars: droppedChars, final } satisfies LogDropped);
  };
  const write = (level: LogLevel) =>
    function (...args: unknown[]): void {
      let message = formatLog(args);
      if (silenced) {
        droppedLines++;
        droppedChars += message.length;
        if (droppedLines >= nextReport) {
          nextReport *= 2;
          report(false);
        }
        return;
      }
      if (used + message.length > maxChars) {
        silenced = true;
        const kept = Math.max(0, maxChars - used);
        droppedChars += message.length - kept;
        message = message.slice(0, kept);
        if (message) bridge.call('log', { level, message });
        report(false);
        return;
      }
      used += message.length;
      bridge.call('log', { level, message });
    };
  const methods = {
    log: write('log'),
    info: write('info'),
    warn: write('warn'),
    warning: write('warn'),
    error: write('error'),
    debug: write('debug'),
    verbose: write('debug'),
    trace: write('debug'),
  };
  return {
    /** The driver's `console`. */
    console: methods,
    /** As the run ends: the final count, when the limit was reached (not on `console`: drivers do not call it). */
    flush(): void {
      if (silenced) report(true);
    },
  };
}
