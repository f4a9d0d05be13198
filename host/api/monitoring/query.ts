// Request helpers shared by the route modules: time windows and paging.
import { formatApiTime, parseApiTime, WEEK_MS } from '../../store/time.js';
import { invalid } from './api-error.js';

export interface TimeWindow {
  from: number;
  to: number;
}

/**
 * from / to of a time-series request: yyyy-mm-ddThh:mm:ss in UTC, no zone. Defaults: to is now,
 * from is one week before to.
 */
export function timeWindow(query: { from?: string; to?: string }, now: number): TimeWindow {
  const to = query.to === undefined ? now : parseTime('to', query.to);
  const from = query.from === undefined ? to - WEEK_MS : parseTime('from', query.from);
  if (from > to) throw invalid(['query', 'from'], `from (${formatApiTime(from)}) is after to (${formatApiTime(to)})`);
  return { from, to };
}

function parseTime(name: 'from' | 'to', text: string): number {
  const ms = parseApiTime(text);
  if (ms === null) {
    throw invalid(['query', name], `"${text}" is not a date-time of the form yyyy-mm-ddThh:mm:ss (UTC, no time zone)`, 'value_error.datetime');
  }
  return ms;
}

export interface Page {
  limit: number;
  offset: number;
}

export function page(query: { page_size?: number; page_number?: number }, defaultSize: number): Page {
  const limit = query.page_size ?? defaultSize;
  const number = query.page_number ?? 0;
  // The schema bounds both; this keeps a caller that skipped it from sending SQLite a bad OFFSET.
  if (!Number.isSafeInteger(limit) || limit < 1) throw invalid(['query', 'page_size'], `must be a whole number >= 1 (got ${limit})`);
  if (!Number.isSafeInteger(number) || number < 0) throw invalid(['query', 'page_number'], `must be a whole number >= 0 (got ${number})`);
  return { limit, offset: Math.min(limit * number, Number.MAX_SAFE_INTEGER) };
}
