// Validates a fixture's "winrm" section (problems collected by the fixture's FieldChecker).
import { describeValue, type FieldChecker } from '../field-checker.js';
import type { FixtureDevice } from '../fixture-device.js';
import type { WinrmCommand, WinrmFixture } from './types.js';

const FIELDS = ['comment', 'port', 'https', 'auth', 'credentials', 'commands'];
const COMMAND_FIELDS = ['comment', 'command', 'contains', 'stdout', 'stderr', 'exitCode', 'delayMs', 'status', 'body'];

export function parseWinrm(value: unknown, device: FixtureDevice, check: FieldChecker): WinrmFixture | null {
  const spec = check.object(value, 'winrm');
  if (!spec) return null;
  check.knownFields(spec, 'winrm', FIELDS);
  const port = spec.port === undefined ? 5985 : (check.integer(spec.port, 'winrm.port', 1, 65535) ?? 5985);
  let httpsPort: number | null = null;
  if (spec.https === true) httpsPort = 5986;
  else if (typeof spec.https === 'number') httpsPort = check.integer(spec.https, 'winrm.https', 1, 65535);
  else if (spec.https !== undefined && spec.https !== false) check.problem('winrm.https', `must be true, false or a port (got ${describeValue(spec.https)})`);
  const auth = spec.auth === undefined ? 'both' : spec.auth;
  if (auth !== 'basic' && auth !== 'ntlm' && auth !== 'both') check.problem('winrm.auth', `must be "basic", "ntlm" or "both" (got ${describeValue(spec.auth)})`);
  let credentials = { username: device.username ?? '', password: device.password ?? '' };
  if (spec.credentials === undefined || spec.credentials === 'device') {
    if (device.username === null) check.problem('winrm.credentials', 'the device has no username: give device.username / password, or "credentials": { "username", "password" }');
  } else {
    const pair = check.object(spec.credentials, 'winrm.credentials');
    if (pair && typeof pair.username === 'string' && typeof pair.password === 'string') credentials = { username: pair.username, password: pair.password };
    else if (pair) check.problem('winrm.credentials', 'must be "device" or { "username": "…", "password": "…" }');
  }
  const commands: WinrmCommand[] = [];
  if (!Array.isArray(spec.commands)) check.problem('winrm.commands', `must be a list such as [{ "command": "hostname", "stdout": "WIN-01" }] (got ${describeValue(spec.commands)})`);
  else
    spec.commands.forEach((entry, i) => {
      const at = `winrm.commands[${i}]`;
      const c = check.object(entry, at);
      if (!c) return;
      check.knownFields(c, at, COMMAND_FIELDS);
      const textOf = (key: string) => {
        const v = c[key];
        if (v === undefined) return null;
        if (typeof v === 'string') return v;
        check.problem(`${at}.${key}`, `must be a string (got ${describeValue(v)})`);
        return null;
      };
      const command = textOf('command');
      const contains = textOf('contains');
      if ((command === null) === (contains === null)) check.problem(at, 'needs exactly one of "command" (the exact PowerShell command) or "contains"');
      commands.push({
        command,
        contains,
        stdout: textOf('stdout') ?? '',
        stderr: textOf('stderr') ?? '',
        exitCode: c.exitCode === undefined ? 0 : (check.integer(c.exitCode, `${at}.exitCode`, -2147483648, 4294967295) ?? 0),
        delayMs: c.delayMs === undefined ? 0 : (check.integer(c.delayMs, `${at}.delayMs`, 0, 600_000) ?? 0),
        status: c.status === undefined ? null : check.integer(c.status, `${at}.status`, 200, 599),
        body: textOf('body'),
      });
    });
  return { port, httpsPort, auth: auth as WinrmFixture['auth'], credentials, commands };
}
