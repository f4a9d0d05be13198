// The prompts a Telnet call waits for. A driver gives a prompt as text (found anywhere in a
// received chunk, as the platform's telnet-client 0.9 does with a string) or as a regular
// expression (the runtime sends a RegExp as { regexp, flags }). A driver's regular expression
// runs on device data in the host: it runs in a node:vm context with a time limit, so a
// pattern that backtracks without end fails the call instead of stalling the host.
import vm from 'node:vm';

/** Longest pattern or text a prompt may be. */
const MAX_PROMPT_CHARS = 1_000;
/** Time one match of a driver's regular expression may take, ms (device prompts are short). */
const MATCH_TIME_MS = 200;
/** Time the first run in a fresh context may take: it compiles the script there. */
const WARM_UP_MS = 2_000;

export type PromptMatcher = (text: string) => boolean;

export class PromptError extends Error {}

const matchScript = new vm.Script('pattern.test(text)');

/** A driver's regular expression, matched under a time limit. */
function guardedRegExp(source: string, flags: string, name: string): PromptMatcher {
  let pattern: RegExp;
  try {
    // g and y would make test() stateful across chunks: dropped, as search() ignores them.
    pattern = new RegExp(source, flags.replace(/[gy]/g, ''));
  } catch (error) {
    throw new PromptError(`${name}: not a valid regular expression (${(error as Error).message})`);
  }
  const context = vm.createContext({ pattern, text: '' });
  // The first run in a context compiles the script: done now, so a match's limit is the match's.
  try {
    matchScript.runInContext(context, { timeout: WARM_UP_MS });
  } catch {
    throw new PromptError(`${name}: the regular expression /${source}/ took more than ${WARM_UP_MS} ms on empty text`);
  }
  return (text) => {
    context.text = text;
    try {
      return matchScript.runInContext(context, { timeout: MATCH_TIME_MS }) === true;
    } catch {
      throw new PromptError(`${name}: the regular expression /${source}/ took more than ${MATCH_TIME_MS} ms on ${text.length} characters of output`);
    }
  };
}

/**
 * The matcher of a prompt option: undefined or null gives `fallback`; a string is found as
 * text; { regexp, flags } is a regular expression. Throws PromptError on anything else.
 */
export function promptOption(value: unknown, name: string, fallback: PromptMatcher): PromptMatcher {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'string') {
    if (value.length > MAX_PROMPT_CHARS) throw new PromptError(`${name}: longer than ${MAX_PROMPT_CHARS} characters`);
    return (text) => text.includes(value);
  }
  if (typeof value === 'object' && !Array.isArray(value)) {
    const { regexp, flags } = value as { regexp?: unknown; flags?: unknown };
    if (typeof regexp === 'string' && (flags === undefined || (typeof flags === 'string' && /^[dgimsuvy]*$/.test(flags)))) {
      if (regexp.length > MAX_PROMPT_CHARS) throw new PromptError(`${name}: the regular expression is longer than ${MAX_PROMPT_CHARS} characters`);
      return guardedRegExp(regexp, flags ?? '', name);
    }
  }
  throw new PromptError(`${name} must be a string or a regular expression`);
}

// The defaults of telnet-client 0.9, which the platform uses: ours, so matched directly.
export const defaultShellPrompt: PromptMatcher = (text) => /(?:\/ )?#\s/.test(text);
export const defaultLoginPrompt: PromptMatcher = (text) => /login[: ]*$/i.test(text);
export const defaultPasswordPrompt: PromptMatcher = (text) => /Password: /i.test(text);
