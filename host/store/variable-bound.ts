// The bounds on a device's variables and tables (StoreBounds.variablesPerDevice,
// tablesPerDevice): a driver that names new ones every run would otherwise grow its device, its
// history and every list of it without end. What a monitoring user keeps: what the device has
// goes on being updated (history unbroken); new ones past the bound are refused, and the run's
// record says which.

/** The uids named in a warning; the rest are counted. */
const NAMED = 10;

/** The warning a run's record carries when new variables were refused; null when none were. */
export function refusedVariablesWarning(refused: readonly string[], max: number): string | null {
  if (refused.length === 0) return null;
  const named = refused.slice(0, NAMED).map((uid) => JSON.stringify(uid)).join(', ');
  const more = refused.length > NAMED ? ` and ${refused.length - NAMED} more` : '';
  return (
    `the device has reached its bound of ${max} variables: ${refused.length} new variable${refused.length === 1 ? '' : 's'} of this run ` +
    `not stored (${named}${more}); the ones it has are still updated (store bound variablesPerDevice)`
  );
}

/** How many of `fresh` new variables fit when the device has `has` (all when unbounded). */
export function roomFor(max: number | null, has: number, fresh: number): number {
  return max === null ? fresh : Math.max(0, Math.min(fresh, max - has));
}

/** The warning a run's record carries when new tables were refused; null when none were. */
export function refusedTablesWarning(refused: readonly string[], max: number): string | null {
  if (refused.length === 0) return null;
  const named = refused.slice(0, NAMED).map((label) => JSON.stringify(label)).join(', ');
  const more = refused.length > NAMED ? ` and ${refused.length - NAMED} more` : '';
  return (
    `the device has reached its bound of ${max} tables: ${refused.length} new table${refused.length === 1 ? '' : 's'} of this run ` +
    `not stored (${named}${more}); the ones it has are still updated (store bound tablesPerDevice)`
  );
}
