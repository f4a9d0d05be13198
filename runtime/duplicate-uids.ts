// Duplicate variable uids in one D.success (docs/reference/compatibility.md, "Duplicate variable uids"):
// every one is reported in the run's result, as the official emulator prints them all, and the
// store (so the agent and the APIs) keeps one variable per uid, the last one reported. The
// runtime and the store say so in the same words: this module is the one place they come from.
// Loops and saved built-ins only: inside the sandbox a driver may have replaced Array methods.
import { append, joinText, stringSlice } from './intrinsics.js';

const shown = (v: string | null): string => (v === null ? 'null' : `"${v.length > 40 ? `${stringSlice(v, 0, 40)}…` : v}"`);

/** The warning for a uid reported `values.length` (≥ 2) times, values in the order reported. */
export function duplicateUidWarning(uid: string, values: ReadonlyArray<string | null>): string {
  const distinct: Array<string | null> = [];
  for (let i = 0; i < values.length; i++) {
    let seen = false;
    for (let j = 0; j < distinct.length && !seen; j++) seen = distinct[j] === values[i];
    if (!seen) append(distinct, values[i]!);
  }
  const last = values[values.length - 1]!;
  let what: string;
  if (distinct.length === 1) what = `the same value ${shown(last)} each time`;
  else {
    const listed: string[] = [];
    for (let i = 0; i < distinct.length && i < 3; i++) append(listed, shown(distinct[i]!));
    what = `values ${joinText(listed, ', ')}${distinct.length > 3 ? ` and ${distinct.length - 3} more` : ''}`;
  }
  return `duplicate variable uid "${uid}": reported ${values.length} times, ${what}; all are in the run's result, the store keeps the last one (${shown(last)})`;
}
