// "Did you mean …?": the known names nearest to a misspelt one (a flag, a member of D, an
// inventory name). The typed word may come from a driver or an inventory, so the work is
// bounded: words past MAX_WORD_CHARS get no suggestion, and the edit distance is computed only in
// a band of width 2k+1 around the diagonal (k the largest distance still suggested), so a
// comparison costs O(length × k), never length².

/** Longer words are not compared (no name driverbox suggests is that long). */
export const MAX_WORD_CHARS = 64;

/** The largest distance suggested for a candidate of this length: 1 up to 5 characters, then a third, at most 3. */
function allowedDistance(length: number): number {
  return Math.min(3, Math.max(1, Math.floor(length / 3)));
}

/**
 * Optimal string alignment distance (insertions, deletions, substitutions, swaps of neighbours)
 * when it is at most `limit`, else limit + 1. Only cells with |i − j| ≤ limit are computed.
 */
export function boundedEditDistance(a: string, b: string, limit: number): number {
  const over = limit + 1;
  if (Math.abs(a.length - b.length) > limit) return over;
  const width = b.length + 1;
  // Three rows (i−2, i−1, i) for the swap rule; cells outside the band stay `over`.
  let before = new Array<number>(width).fill(over);
  let previous = new Array<number>(width).fill(over);
  for (let j = 0; j <= Math.min(b.length, limit); j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const current = new Array<number>(width).fill(over);
    if (i <= limit) current[0] = i;
    let rowBest = current[0]!;
    const from = Math.max(1, i - limit);
    const to = Math.min(b.length, i + limit);
    for (let j = from; j <= to; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      current[j] = Math.min(d, over);
      if (current[j]! < rowBest) rowBest = current[j]!;
    }
    if (rowBest > limit) return over; // every path already costs more than the limit
    before = previous;
    previous = current;
  }
  return Math.min(previous[b.length]!, over);
}

/**
 * The candidates nearest to `word` (case ignored): those it is the start of (--device →
 * --device-ip), when `prefixes`, else those at the smallest edit distance allowed for their
 * length. At most `max` of them, in the candidates' order.
 */
export function closestNames(word: string, candidates: Iterable<string>, options: { prefixes?: boolean; max?: number } = {}): string[] {
  const max = options.max ?? 3;
  if (word.length === 0 || word.length > MAX_WORD_CHARS) return [];
  const typed = word.toLowerCase();
  const list = [...candidates].filter((c) => c !== word && c.length <= MAX_WORD_CHARS);
  if (options.prefixes && typed.length >= 3) {
    const extended = list.filter((c) => c.toLowerCase().startsWith(typed) && c.length > typed.length);
    if (extended.length) return extended.slice(0, max);
  }
  let best = Infinity;
  let found: string[] = [];
  for (const candidate of list) {
    const limit = allowedDistance(candidate.length);
    const d = boundedEditDistance(typed, candidate.toLowerCase(), limit);
    if (d > limit) continue;
    if (d < best) [best, found] = [d, [candidate]];
    else if (d === best) found.push(candidate);
  }
  return found.slice(0, max);
}
