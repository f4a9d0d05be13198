// The runs list's cursor (GET …/agent/{id}/run?cursor=…): where the page before ended, as the
// list's sort key of its last run, so the next page starts right after it whatever was recorded
// or pruned meanwhile (offset paging shifts then). Opaque to clients; it names its order, and one
// made for the other order is refused.
import type { RunListKey } from '../../store/runs/run-list.js';
import { invalid } from '../monitoring/api-error.js';

/** n.<started>.<id> (newest first) or f.<0 failure|1 other>.<started>.<id> (failures first). */
export const RUN_CURSOR_PATTERN = '^(n|f\\.[01])\\.\\d{1,16}\\.\\d{1,16}$';

export function encodeRunCursor(key: RunListKey, failuresFirst: boolean): string {
  return `${failuresFirst ? `f.${key.failure ? 0 : 1}` : 'n'}.${key.started}.${key.id}`;
}

export function decodeRunCursor(cursor: string, failuresFirst: boolean): RunListKey {
  const match = /^(?:n|f\.([01]))\.(\d{1,16})\.(\d{1,16})$/.exec(cursor);
  if (!match) throw invalid(['query', 'cursor'], 'is not a cursor of this list (use next_cursor of the page before)');
  if ((match[1] !== undefined) !== failuresFirst) {
    throw invalid(['query', 'cursor'], `was made for order=${failuresFirst ? 'newest' : 'failures_first'}: start from the first page of this order`);
  }
  const started = Number(match[2]);
  const id = Number(match[3]);
  if (!Number.isSafeInteger(started) || !Number.isSafeInteger(id)) throw invalid(['query', 'cursor'], 'is out of range');
  return { failure: match[1] === '0', started, id };
}
