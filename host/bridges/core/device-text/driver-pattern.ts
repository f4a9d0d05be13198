// A regular expression a driver hands the host to test on device text (SSH prompt_regex,
// Telnet's shellPrompt / loginPrompt / passwordPrompt). Only its syntax is checked here, on the
// host: V8 parses a pattern in time linear in its length, bounded by MAX_PATTERN_CHARS. It is
// never executed here: pattern-isolate.ts runs it, off the host's loop, under the run's budget.

/** Longest pattern a driver may give. */
export const MAX_PATTERN_CHARS = 1_000;

export interface DriverPattern {
  /** The option it came from, for messages ("prompt_regex", "shellPrompt"). */
  name: string;
  source: string;
  /** Without g and y: they would make test() stateful across outputs (search() ignores them too). */
  flags: string;
}

export class DriverPatternError extends Error {}

/** The pattern checked, or a DriverPatternError saying what is wrong with it. */
export function driverPattern(name: string, source: string, flags: string): DriverPattern {
  if (source.length > MAX_PATTERN_CHARS) throw new DriverPatternError(`${name}: the regular expression is ${source.length} characters long; at most ${MAX_PATTERN_CHARS} are allowed`);
  if (!/^[dgimsuvy]*$/.test(flags)) throw new DriverPatternError(`${name}: ${JSON.stringify(flags)} are not regular expression flags`);
  const kept = flags.replace(/[gy]/g, '');
  try {
    new RegExp(source, kept);
  } catch (error) {
    throw new DriverPatternError(`${name}: not a valid regular expression (${(error as Error).message})`);
  }
  return { name, source, flags: kept };
}

/** How messages show a pattern: /source/flags, cut when long. */
export function showPattern(pattern: DriverPattern): string {
  const source = pattern.source.length > 100 ? `${pattern.source.slice(0, 100)}…` : pattern.source;
  return `/${source}/${pattern.flags}`;
}
