// What a run's HTTP answers may cost the host, relative to the run's memoryMb. An answer is held
// on the host as bytes, then as the string the driver asked for (hex doubles it, base64 adds a
// third, UTF-16 text takes two bytes a character), then as JSON text on its way to the sandbox
// (control characters take six characters, quotes two), then copied to the sandbox thread: a
// run with a small memoryMb could otherwise make the host hold many times its own limit
// (four runs with memoryMb 16 reading 16 MB bodies as hex: +388 MB of host RSS, 6×).
//
// So a run's answers are bounded by a share of its memoryMb (ANSWER_SHARE): the bytes its
// requests hold at once on the wire, and each answer as the driver will be handed it.
import { ByteBudget } from '../core/buffer-budget.js';
import type { BodyEncoding } from './options.js';

/** A run's answers may take this share of its memoryMb on the host: a quarter. */
export const ANSWER_SHARE = 1 / 4;

export interface AnswerBound {
  /** Bytes of one answer (on the wire, and as the driver gets it), and of all the run's answers in flight. */
  bytes: number;
  /** What set `bytes`, for error messages. */
  limit: string;
  /** The bytes the run's requests hold at once (null: only the host's bound applies). */
  inFlight: ByteBudget | null;
}

/** The run's answers in flight, per run (its abort signal): gone with the run. */
const runBudgets = new WeakMap<AbortSignal, ByteBudget>();

/** The bound of a run's answers: maxResponseBytes, or less when its memoryMb is small. */
export function answerBound(maxResponseBytes: number, memoryMb: number | undefined, run: AbortSignal): AnswerBound {
  if (memoryMb === undefined) return { bytes: maxResponseBytes, limit: 'maxResponseBytes', inFlight: null };
  const share = Math.floor(memoryMb * 1024 * 1024 * ANSWER_SHARE);
  let inFlight = runBudgets.get(run);
  if (!inFlight) {
    inFlight = new ByteBudget(share);
    runBudgets.set(run, inFlight);
  }
  if (maxResponseBytes <= share) return { bytes: maxResponseBytes, limit: 'maxResponseBytes', inFlight };
  return { bytes: share, limit: `a quarter of the run's memoryMb of ${memoryMb}`, inFlight };
}

const MAX_TEXT_EXPANSION = 12;

// What JSON writes longer than one character, counted by the regex engine (a run of them at a
// time: a pass over 12 MB takes ~10 ms, where a loop in JavaScript took ~100).
const SIX_CHAR_ESCAPES = /[\x00-\x07\x0b\x0e-\x1f]+/g; // \u0001
const TWO_CHAR_ESCAPES = /[\b\t\n\f\r"\\]+/g; // \n, \"
const SURROGATES = /[\ud800-\udfff]+/g; // a lone one is written \udxxx (paired ones counted too: an upper bound)
const PAST_LATIN1 = /[^\x00-\xff]/;

/** Characters of `s` that `pattern` matches. */
const count = (s: string, pattern: RegExp) => s.length - s.replace(pattern, '').length;

/**
 * The bytes a body takes on the host once it is the string the driver asked for and that string
 * is written as JSON: hex and base64 exactly from the length; text by counting what JSON escapes
 * and two bytes a character once one is past Latin-1), unless even its worst case is within
 * `bound` (then that worst case is the answer, without the pass).
 */
export function deliveredBytes(body: Buffer, encoding: BodyEncoding, text: string | null, bound = Infinity): number {
  const n = body.length;
  if (encoding.kind === 'buffer') return 4 * Math.ceil(n / 3);
  switch (encoding.encoding) {
    case 'hex':
      return 2 * n;
    case 'base64':
    case 'base64url':
      return 4 * Math.ceil(n / 3);
  }
  // No text can take more than 12 bytes a byte (a control character escaped in a two-byte string).
  if (n * MAX_TEXT_EXPANSION <= bound) return n * MAX_TEXT_EXPANSION;
  const s = text ?? body.toString(encoding.encoding);
  let chars = s.length + 5 * count(s, SIX_CHAR_ESCAPES) + count(s, TWO_CHAR_ESCAPES);
  // A string with a character past Latin-1 takes two bytes a character.
  const wide = PAST_LATIN1.test(s);
  if (wide) chars += 5 * count(s, SURROGATES);
  return wide ? 2 * chars : chars;
}
