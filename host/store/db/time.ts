// Times are kept as integer milliseconds since the epoch in the store, and written on the API
// as yyyy-mm-ddThh:mm:ss in UTC (the spec: no zone suffix). On input, what clients send is
// read too: that form, or ISO 8601 with a Z or an offset and fractional seconds.

// date T time [.fraction] [Z | ±hh:mm | ±hhmm | ±hh]; a space for the + is a + left unescaped
// in a URL (the query string decodes it to a space).
const API_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+ -]\d{2}(?::?\d{2})?)?$/i;

/** The forms parseApiTime reads, for error messages. */
export const API_TIME_FORMS =
  'yyyy-mm-ddThh:mm:ss (UTC), optionally with fractional seconds (.sss) and a zone: Z, +hh:mm, +hhmm or +hh (e.g. 2026-11-20T00:00:00.000Z, 2026-11-20T01:00:00+01:00)';

/** 1700000000000 → "2023-11-14T22:13:20" (UTC). */
export function formatApiTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}

export function formatApiTimeOrNull(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : formatApiTime(ms);
}

/** "Z" → 0, "+02:00" / "+0200" / "+02" → 120, "-0530" → -330; null for an impossible offset. */
function offsetMinutes(zone: string | undefined): number | null {
  if (zone === undefined || zone.toUpperCase() === 'Z') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0;
  if (hours > 23 || minutes > 59) return null;
  return sign * (hours * 60 + minutes);
}

/**
 * "2023-11-14T22:13:20" (UTC), "2023-11-14T22:13:20.5Z", "2023-11-14T23:13:20+01:00" → ms
 * (fractions past the millisecond are dropped), or null when the text is none of those forms
 * or names an impossible date or time (month 13, February 30, 24:00, an offset of +25:00).
 */
export function parseApiTime(text: string): number | null {
  const m = API_TIME.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const offset = offsetMinutes(m[8]);
  if (offset === null) return null;
  const wall = Date.UTC(year, month - 1, day, hour, minute, second);
  const back = new Date(wall);
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
  const millis = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  return wall + millis - offset * 60_000;
}

export const WEEK_MS = 7 * 24 * 3600 * 1000;
