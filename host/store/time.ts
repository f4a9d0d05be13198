// Times are kept as integer milliseconds since the epoch in the store, and written on the API
// as yyyy-mm-ddThh:mm:ss in UTC (the spec: no zone suffix, and none accepted on input).

const API_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/;

/** 1700000000000 → "2023-11-14T22:13:20" (UTC). */
export function formatApiTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}

export function formatApiTimeOrNull(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : formatApiTime(ms);
}

/**
 * "2023-11-14T22:13:20" → ms, or null when the text is not that exact form (a zone suffix,
 * fractions, or an impossible date such as month 13 or February 30).
 */
export function parseApiTime(text: string): number | null {
  const m = API_TIME.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  const back = new Date(ms);
  if (
    back.getUTCFullYear() !== year ||
    back.getUTCMonth() !== month - 1 ||
    back.getUTCDate() !== day ||
    back.getUTCHours() !== hour ||
    back.getUTCMinutes() !== minute ||
    back.getUTCSeconds() !== second
  ) {
    return null;
  }
  return ms;
}

export const WEEK_MS = 7 * 24 * 3600 * 1000;
