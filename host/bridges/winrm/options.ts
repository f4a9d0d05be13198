// A driver's options to D.device.sendWinRMCommand, type-checked (they are the driver's to forge).
import type { ProtocolTarget } from '../core/protocol-handler.js';
import { WinrmOptionError } from './errors.js';
import { domainAccount, type NtlmCredentials } from './ntlm.js';

export const DEFAULT_HTTP_PORT = 5985;
export const DEFAULT_HTTPS_PORT = 5986;
/** The whole call's time, ms, when the driver gives no `timeout` (the drivers' own value). */
export const DEFAULT_WINRM_TIMEOUT_MS = 30_000;
const MAX_COMMAND_CHARS = 256 * 1024;

export interface WinrmOptions {
  /** The command line sent: powershell.exe "<command with " escaped>". */
  commandLine: string;
  scheme: 'http' | 'https';
  port: number;
  username: string;
  password: string;
  ntlm: NtlmCredentials | null;
  verify: boolean;
  timeoutMs: number;
}

function text(options: Record<string, unknown>, name: string, max: number): string | undefined {
  const value = options[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value !== 'string') throw new WinrmOptionError(`${name} must be a string`);
  if (value.length > max) throw new WinrmOptionError(`${name} is longer than ${max} characters`);
  return value;
}

function integer(options: Record<string, unknown>, name: string, max: number): number | undefined {
  const value = options[name];
  if (value === undefined || value === null) return undefined;
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > max) throw new WinrmOptionError(`${name} must be a whole number from 1 to ${max}, not ${JSON.stringify(value)}`);
  return n;
}

function oneOf<T extends string>(options: Record<string, unknown>, name: string, allowed: readonly T[]): T | undefined {
  const value = options[name];
  if (value === undefined || value === null) return undefined;
  const lower = typeof value === 'string' ? value.toLowerCase() : value;
  if (!allowed.includes(lower as T)) throw new WinrmOptionError(`${name} must be one of ${allowed.map((a) => `"${a}"`).join(', ')}, not ${JSON.stringify(value)}`);
  return lower as T;
}

export function winrmOptions(options: Record<string, unknown>, target: ProtocolTarget): WinrmOptions {
  const command = text(options, 'command', MAX_COMMAND_CHARS);
  if (!command) throw new WinrmOptionError("D.device.sendWinRMCommand requires a 'command' in its options");
  const port = integer(options, 'port', 65_535);
  // https when asked, or when the driver names the HTTPS port without a scheme.
  const scheme = oneOf(options, 'scheme', ['http', 'https'] as const) ?? (port === DEFAULT_HTTPS_PORT ? 'https' : 'http');
  const skipVerify = options.skipVerify;
  if (skipVerify !== undefined && skipVerify !== null && typeof skipVerify !== 'boolean') throw new WinrmOptionError('skipVerify must be true or false');
  const auth = oneOf(options, 'auth', ['auto', 'basic', 'ntlm'] as const) ?? 'auto';
  // The options' credentials when a user name is given, else the device's (as the platform).
  const given = text(options, 'username', 1024);
  const username = given || target.username || '';
  const password = (given ? text(options, 'password', 1024) : target.password) ?? '';
  const account = domainAccount(username);
  if (auth === 'ntlm' && !account && !username) throw new WinrmOptionError('auth "ntlm" needs a user name');
  const ntlm = auth === 'basic' ? null : account ? { ...account, password } : auth === 'ntlm' ? { domain: '', username, password } : null;
  return {
    commandLine: `powershell.exe "${command.replace(/"/g, '\\"')}"`,
    scheme,
    port: port ?? (scheme === 'https' ? DEFAULT_HTTPS_PORT : DEFAULT_HTTP_PORT),
    username,
    password,
    ntlm,
    verify: skipVerify !== true,
    timeoutMs: integer(options, 'timeout', 2 ** 31 - 1) ?? DEFAULT_WINRM_TIMEOUT_MS,
  };
}
