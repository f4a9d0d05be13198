// Every command's flags go through parseFlags: node:util's parseArgs, with the caller's mistakes
// (an unknown or misspelt flag, a missing value) answered in our words, with the closest flag
// suggested, instead of parseArgs' own messages.
import { parseArgs } from 'node:util';
import { UsageError } from '../contract/errors.js';
import { closestNames } from '../closest-name.js';

export type FlagSpecs = Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean; default?: string | boolean | string[] | boolean[] }>;

type Parsed<O extends FlagSpecs> = ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>>;

/** Parses argv against the command's flags; positionals are allowed (each command checks its own). */
export function parseFlags<const O extends FlagSpecs>(argv: string[], options: O): Parsed<O> {
  const { tokens } = parseArgs({ args: argv, options, allowPositionals: true, strict: false, tokens: true });
  for (const token of tokens) {
    if (token.kind === 'option-terminator') break;
    if (token.kind !== 'option') continue;
    const spec = options[token.name];
    if (!spec) throw new UsageError(unknownOption(token.rawName, options));
    const flag = token.rawName;
    if (spec.type === 'boolean' && token.value !== undefined) throw new UsageError(`${flag} takes no value (got ${flag}=${token.value})`);
    if (spec.type === 'string') {
      if (token.value === undefined) throw new UsageError(`${flag} needs a value: ${flag} <value>`);
      // parseArgs would take "--password --json" as a password; more likely the value was forgotten.
      if (!token.inlineValue && token.value.startsWith('-')) {
        throw new UsageError(`${flag} needs a value, and "${token.value}" looks like an option; a value that starts with "-" is written ${flag}=${token.value}`);
      }
    }
  }
  return parseArgs({ args: argv, options, allowPositionals: true, strict: true }) as Parsed<O>;
}

/** `unknown option --pasword (did you mean --password?)`; no suggestion when no flag is close. */
export function unknownOption(raw: string, options: FlagSpecs): string {
  if (!raw.startsWith('--')) return `unknown option ${raw}`;
  const close = closest(raw.slice(2), Object.keys(options));
  return `unknown option ${raw}${close.length ? ` (did you mean ${close.map((c) => `--${c}`).join(' or ')}?)` : ''}`;
}

/** The candidates nearest to `word`: those it is the start of (--device → --device-ip), else the nearest by edit distance. */
export function closest(word: string, candidates: readonly string[]): string[] {
  return closestNames(word, candidates, { prefixes: true });
}
