// The driver's options of D.device.sendSSHCommand / sendSSHCommands, type-checked (they are
// the driver's to forge) and turned into what the connection and the command need. Defaults
// and names as shared/PROTOCOLS.md ("SSH", "SSH shell sequence"); docs/reference/driver-api/ssh.md.
import { describe, isPlainObject } from '../../untrusted-input/plain-values.js';
import type { ProtocolTarget } from '../core/protocol-handler.js';
import { driverPattern, DriverPatternError, type DriverPattern } from '../core/device-text/driver-pattern.js';
import { readAlgorithms, type SshAlgorithms } from './algorithms.js';
import { SshOptionError } from './errors.js';

export { SshOptionError };

export const DEFAULT_SSH_PORT = 22;
export const DEFAULT_EXEC_TIMEOUT_MS = 2_000;
export const DEFAULT_PROMPT = '#';
export const DEFAULT_INTER_COMMAND_MS = 1_000;
export const DEFAULT_GLOBAL_TIMEOUT_MS = 30_000;
/** A command line longer than this is refused: no device takes one, and it would fill the transcript. */
const MAX_COMMAND_CHARS = 64 * 1024;
/** Commands one shell sequence may hold (maxProtocolCommands bounds the run as a whole too). */
const MAX_SEQUENCE = 1_000;
/** No timer waits longer (Node fires at once past 2^31-1 ms); the run's deadline bounds it anyway. */
const MAX_MS = 2_147_483_647;

function invalid(message: string): never {
  throw new SshOptionError(message);
}

/** What both calls connect with. */
export interface ConnectOptions {
  port: number;
  username: string;
  password: string;
  algorithms: SshAlgorithms | undefined;
}

export interface ExecOptions extends ConnectOptions {
  command: string;
  timeoutMs: number;
}

export interface ShellOptions extends ConnectOptions {
  commands: string[];
  prompt: string;
  /** Run in an isolate under the run's pattern budget (core/device-text/pattern-isolate.ts), never on the host. */
  promptRegex: DriverPattern | null;
  errorPrompt: string | null;
  interCommandMs: number;
  globalTimeoutMs: number;
}

const given = (value: unknown) => value !== undefined && value !== null && value !== '';

/** A number of ms, or its decimal text (drivers pass both: `timeout: '60000'`); 0 / absent → the default. */
function milliseconds(value: unknown, name: string, fallback: number, allowZero = false): number {
  if (!given(value)) return fallback;
  const number = typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number) || number < 0) {
    return invalid(`${name} must be a number of milliseconds (got ${describe(value)})`);
  }
  // The collector reads `options.x || default`: 0 means the default, except where 0 is a real wait.
  if (number === 0 && !allowZero) return fallback;
  return Math.min(Math.ceil(number), MAX_MS);
}

function portOf(value: unknown): number {
  if (!given(value)) return DEFAULT_SSH_PORT;
  const number = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < 1 || number > 65535) {
    return invalid(`port must be a TCP port 1–65535 (got ${describe(value)})`);
  }
  return number;
}

function textOption(value: unknown, name: string): string | undefined {
  if (!given(value)) return undefined;
  if (typeof value !== 'string') return invalid(`${name} must be a string (got ${describe(value)})`);
  return value;
}

/** A literal prompt: searched as the output streams in, at a cost that does not grow with its length; bounded like a command. */
function promptText(value: unknown, name: string): string | undefined {
  const text = textOption(value, name);
  if (text !== undefined && text.length > MAX_COMMAND_CHARS) return invalid(`${name} is ${text.length} characters long; at most ${MAX_COMMAND_CHARS} are allowed`);
  return text;
}

function commandText(value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '') return invalid(`${name} must be a non-empty string (got ${describe(value)})`);
  if (value.length > MAX_COMMAND_CHARS) return invalid(`${name} is ${value.length} characters long; at most ${MAX_COMMAND_CHARS} are sent`);
  return value;
}

/**
 * User name and password: the options' (`username`, or its alias `user`), each falling back
 * to the device's management credentials when the driver leaves it empty.
 */
function connectOptions(options: Record<string, unknown>, target: ProtocolTarget): ConnectOptions {
  const username = textOption(options.username, 'username') ?? textOption(options.user, 'user') ?? target.username ?? undefined;
  const password = textOption(options.password, 'password') ?? target.password ?? '';
  if (username === undefined || username === '') {
    return invalid('no user name: pass username in the options or give the device credentials (--username / the device\'s management credentials)');
  }
  return { port: portOf(options.port), username, password, algorithms: readAlgorithms(options.algorithms) };
}

export function readExecOptions(options: unknown, target: ProtocolTarget): ExecOptions {
  if (!isPlainObject(options)) return invalid(`the options must be an object such as { command: "uname -a" } (got ${describe(options)})`);
  if (!given(options.command)) return invalid('command is required: the command line to run, such as "uname -a"');
  const command = commandText(options.command, 'command');
  const timeoutMs = milliseconds(given(options.timeout) ? options.timeout : options.ttl, given(options.timeout) ? 'timeout' : 'ttl', DEFAULT_EXEC_TIMEOUT_MS);
  return { ...connectOptions(options, target), command, timeoutMs };
}

export function readShellOptions(options: unknown, target: ProtocolTarget): ShellOptions {
  if (!isPlainObject(options)) return invalid(`the options must be an object such as { commands: ["show version"] } (got ${describe(options)})`);
  const list = options.commands;
  if (!Array.isArray(list)) return invalid(`commands must be a list of command lines such as ["show version"] (got ${describe(list)})`);
  if (list.length > MAX_SEQUENCE) return invalid(`commands holds ${list.length} commands; one sequence sends at most ${MAX_SEQUENCE}`);
  const commands = list.map((c, i) => commandText(c, `commands[${i}]`));
  const prompt = promptText(options.prompt, 'prompt') ?? DEFAULT_PROMPT;
  let promptRegex: DriverPattern | null = null;
  const regexText = textOption(options.prompt_regex, 'prompt_regex');
  if (regexText !== undefined) {
    try {
      // A RegExp the driver passed arrives as its source and flags.
      promptRegex = driverPattern('prompt_regex', regexText, textOption(options.prompt_regex_flags, 'prompt_regex_flags') ?? '');
    } catch (error) {
      if (error instanceof DriverPatternError) return invalid(error.message);
      throw error;
    }
  }
  return {
    ...connectOptions(options, target),
    commands,
    prompt,
    promptRegex,
    errorPrompt: promptText(options.error_prompt, 'error_prompt') ?? null,
    interCommandMs: milliseconds(options.inter_command_timeout_ms, 'inter_command_timeout_ms', DEFAULT_INTER_COMMAND_MS),
    globalTimeoutMs: milliseconds(options.global_timeout_ms, 'global_timeout_ms', DEFAULT_GLOBAL_TIMEOUT_MS),
  };
}
