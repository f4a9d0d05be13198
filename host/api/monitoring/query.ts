// Request helpers shared by the route modules: time windows and paging.
import { API_TIME_FORMS, formatApiTime, parseApiTime, WEEK_MS } from '../../store/db/time.js';
import { invalid } from './api-error.js';

export interface TimeWindow {
  from: number;
  to: number;
}

/**
 * from / to of a time-series request: yyyy-mm-ddThh:mm:ss in UTC, or ISO 8601 with a zone and
 * fractions (see parseApiTime). Defaults: to is now, from is one week before to.
 */
export function timeWindow(query: { from?: string; to?: string }, now: number): TimeWindow {
  const to = query.to === undefined ? now : parseTime('to', query.to);
  const from = query.from === undefined ? to - WEEK_MS : parseTime('from', query.from);
  if (from > to) throw invalid(['query', 'from'], `from (${formatApiTime(from)}) is after to (${formatApiTime(to)})`);
  return { from, to };
}

function parseTime(name: 'from' | 'to', text: string): number {
  const ms = parseApiTime(text);
  if (ms === null) throw invalid(['query', name], `"${text}" is not a date-time: accepted forms are ${API_TIME_FORMS}`, 'value_error.datetime');
  return ms;
}

export interface Page {
  limit: number;
  offset: number;
}

/**
 * The LIMIT / OFFSET of a page. A page_size past `maxSize` is clamped to it, as the cloud does
 * (the schema layer already clamped what came through the query string: query-leniency.ts).
 */
export function page(query: { page_size?: number; page_number?: number }, defaultSize: number, maxSize = Number.MAX_SAFE_INTEGER): Page {
  const limit = Math.min(query.page_size ?? defaultSize, maxSize);
  const number = query.page_number ?? 0;
  // The schema bounds both; this keeps a caller that skipped it from sending SQLite a bad OFFSET.
  if (!Number.isSafeInteger(limit) || limit < 1) throw invalid(['query', 'page_size'], `must be a whole number >= 1 (got ${limit})`);
  if (!Number.isSafeInteger(number) || number < 0) throw invalid(['query', 'page_number'], `must be a whole number >= 0 (got ${number})`);
  return { limit, offset: Math.min(limit * number, Number.MAX_SAFE_INTEGER) };
}
