// A driver's options to D.device.sendTelnetCommand, type-checked: they are the driver's to
// forge, so anything unexpected is a clear INVALID_OPTIONS, never a host exception.
import type { ProtocolTarget } from '../core/protocol-handler.js';
import { TelnetOptionError } from './errors.js';
import { defaultLoginPrompt, defaultPasswordPrompt, defaultShellPrompt, PromptError, promptOption, type TelnetPrompt } from './prompt.js';

export const DEFAULT_TELNET_PORT = 23;
/** telnet-client's idle timeout, ms. */
export const DEFAULT_TELNET_TIMEOUT_MS = 500;
/** Longest command or onConnectCommand, characters. */
const MAX_COMMAND_CHARS = 64 * 1024;

export interface TelnetOptions {
  command: string;
  port: number;
  /** The socket's idle timeout, ms: the call ends after this long without traffic. */
  timeoutMs: number;
  /** Send the command once the shell prompt is seen (true), or right after connecting. */
  negotiationMandatory: boolean;
  shellPrompt: TelnetPrompt;
  loginPrompt: TelnetPrompt;
  passwordPrompt: TelnetPrompt;
  onConnectCommand: string | null;
  username: string;
  password: string;
}

function text(options: Record<string, unknown>, name: string, max = MAX_COMMAND_CHARS): string | undefined {
  const value = options[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value !== 'string') throw new TelnetOptionError(`${name} must be a string`);
  if (value.length > max) throw new TelnetOptionError(`${name} is longer than ${max} characters`);
  return value;
}

function positiveInteger(options: Record<string, unknown>, name: string, fallback: number, max: number): number {
  const value = options[name];
  if (value === undefined || value === null) return fallback;
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > max) throw new TelnetOptionError(`${name} must be a whole number from 1 to ${max}, not ${JSON.stringify(value)}`);
  return n;
}

/** The options read, or a TelnetOptionError naming what is wrong. */
export function telnetOptions(options: Record<string, unknown>, target: ProtocolTarget): TelnetOptions {
  const command = text(options, 'command');
  if (command === undefined) throw new TelnetOptionError("D.device.sendTelnetCommand requires a 'command' in its options");
  const negotiation = options.negotiationMandatory;
  if (negotiation !== undefined && negotiation !== null && typeof negotiation !== 'boolean') throw new TelnetOptionError('negotiationMandatory must be true or false');
  try {
    return {
      command,
      port: positiveInteger(options, 'port', DEFAULT_TELNET_PORT, 65_535),
      timeoutMs: positiveInteger(options, 'timeout', DEFAULT_TELNET_TIMEOUT_MS, 2 ** 31 - 1),
      negotiationMandatory: negotiation !== false,
      shellPrompt: promptOption(options.shellPrompt, 'shellPrompt', defaultShellPrompt),
      loginPrompt: promptOption(options.loginPrompt, 'loginPrompt', defaultLoginPrompt),
      passwordPrompt: promptOption(options.passwordPrompt, 'passwordPrompt', defaultPasswordPrompt),
      onConnectCommand: text(options, 'onConnectCommand') ?? null,
      // The options' credentials, else the device's: what an author expects (the platform's
      // library would log in as root / guest).
      username: text(options, 'username', 1024) ?? target.username ?? '',
      password: text(options, 'password', 1024) ?? target.password ?? '',
    };
  } catch (error) {
    if (error instanceof PromptError) throw new TelnetOptionError(error.message);
    throw error;
  }
}
