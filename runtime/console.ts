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

export function createConsole(bridge: Bridge, maxChars: number) {
  let used = 0;
  let silenced = false;
  const write = (level: LogLevel) =>
    function (...args: unknown[]): void {
      if (silenced) return;
      let message = formatLog(args);
      if (used + message.length > maxChars) {
        silenced = true;
        message = message.slice(0, Math.max(0, maxChars - used));
        if (message) bridge.call('log', { level, message });
        bridge.call('warn', `log limit of ${maxChars} characters reached: later console output was dropped`);
        return;
      }
      used += message.length;
      bridge.call('log', { level, message });
    };
  return {
    log: write('log'),
    info: write('info'),
    warn: write('warn'),
    warning: write('warn'),
    error: write('error'),
    debug: write('debug'),
    verbose: write('debug'),
    trace: write('debug'),
  };
}
