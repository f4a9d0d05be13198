// The prompts a Telnet call waits for. A driver gives a prompt as text (found anywhere in the
// received text, as the platform's telnet-client 0.9 does with a string) or as a regular
// expression (the runtime sends a RegExp as { regexp, flags }). A driver's regular expression
// is never run on the host: prompt-watch.ts runs it in an isolate under the run's pattern
// budget (core/device-text/pattern-isolate.ts). Text and our own defaults are linear searches.
import { driverPattern, DriverPatternError, type DriverPattern } from '../core/device-text/driver-pattern.js';

/** Longest text a prompt may be. */
const MAX_PROMPT_CHARS = 1_000;

export type TelnetPrompt =
  | { kind: 'text'; text: string }
  /** Ours (telnet-client's defaults): linear in the text, tested on the host. */
  | { kind: 'builtin'; regexp: RegExp }
  | { kind: 'driver'; pattern: DriverPattern };

export class PromptError extends Error {}

/** Whether a text or built-in prompt shows in `text` (a driver's pattern is never tested here). */
export function hostPromptShown(prompt: Exclude<TelnetPrompt, { kind: 'driver' }>, text: string): boolean {
  return prompt.kind === 'text' ? text.includes(prompt.text) : prompt.regexp.test(text);
}

/**
 * The prompt of an option: undefined or null gives `fallback`; a string is found as text;
 * { regexp, flags } is the driver's regular expression. Throws PromptError on anything else.
 */
export function promptOption(value: unknown, name: string, fallback: TelnetPrompt): TelnetPrompt {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'string') {
    if (value.length > MAX_PROMPT_CHARS) throw new PromptError(`${name}: longer than ${MAX_PROMPT_CHARS} characters`);
    return { kind: 'text', text: value };
  }
  if (typeof value === 'object' && !Array.isArray(value)) {
    const { regexp, flags } = value as { regexp?: unknown; flags?: unknown };
    if (typeof regexp === 'string' && (flags === undefined || typeof flags === 'string')) {
      try {
        return { kind: 'driver', pattern: driverPattern(name, regexp, flags ?? '') };
      } catch (error) {
        if (error instanceof DriverPatternError) throw new PromptError(error.message);
        throw error;
      }
    }
  }
  throw new PromptError(`${name} must be a string or a regular expression`);
}

// The defaults of telnet-client 0.9, which the platform uses: ours, linear, tested on the host.
export const defaultShellPrompt: TelnetPrompt = { kind: 'builtin', regexp: /(?:\/ )?#\s/ };
export const defaultLoginPrompt: TelnetPrompt = { kind: 'builtin', regexp: /login[: ]*$/i };
export const defaultPasswordPrompt: TelnetPrompt = { kind: 'builtin', regexp: /Password: /i };
