// The bounds on a device's variables and tables (StoreBounds.variablesPerDevice,
// tablesPerDevice): a driver that names new ones every run would otherwise grow its device, its
// history and every list of it without end. What a monitoring user keeps: what the device has
// goes on being updated (history unbroken); new ones past the bound are refused, and the run's
// record says which.

/** The uids named in a warning; the rest are counted. */
const NAMED = 10;

/** The warning a run's record carries when new `kind`s past `bound` were refused; null when none were. */
function refusedWarning(kind: 'variable' | 'table', bound: string, refused: readonly string[], max: number): string | null {
  if (refused.length === 0) return null;
  const named = refused.slice(0, NAMED).map((name) => JSON.stringify(name)).join(', ');
  const more = refused.length > NAMED ? ` and ${refused.length - NAMED} more` : '';
  return (
    `the device has reached its bound of ${max} ${kind}s: ${refused.length} new ${kind}${refused.length === 1 ? '' : 's'} of this run ` +
    `not stored (${named}${more}); the ones it has are still updated (store bound ${bound})`
  );
}

/** The warning a run's record carries when new variables were refused; null when none were. */
export const refusedVariablesWarning = (refused: readonly string[], max: number) => refusedWarning('variable', 'variablesPerDevice', refused, max);

/** How many of `fresh` new variables fit when the device has `has` (all when unbounded). */
export function roomFor(max: number | null, has: number, fresh: number): number {
  return max === null ? fresh : Math.max(0, Math.min(fresh, max - has));
}

/** The warning a run's record carries when new tables were refused; null when none were. */
export const refusedTablesWarning = (refused: readonly string[], max: number) => refusedWarning('table', 'tablesPerDevice', refused, max);
