// Validates a fixture's "telnet" section (problems collected by the fixture's FieldChecker).
import { describeValue, type FieldChecker } from '../field-checker.js';
import type { FixtureDevice } from '../fixture-device.js';
import type { TelnetFixture } from './types.js';

const FIELDS = ['comment', 'port', 'negotiation', 'banner', 'loginPrompt', 'passwordPrompt', 'shellPrompt', 'credentials', 'echo', 'commands', 'unknownCommand'];
const COMMAND_FIELDS = ['comment', 'command', 'output', 'delayMs', 'close'];
// IAC DO TERMINAL-TYPE, IAC WILL ECHO, IAC WILL SUPPRESS-GO-AHEAD: what a small device sends.
const USUAL_NEGOTIATION = 'fffd18fffb01fffb03';

function text(check: FieldChecker, value: unknown, path: string, fallback: string, allowEmpty = true): string {
  if (value === undefined) return fallback;
  if (typeof value === 'string' && (allowEmpty || value !== '')) return value;
  check.problem(path, `must be a string (got ${describeValue(value)})`);
  return fallback;
}

export function parseTelnet(value: unknown, device: FixtureDevice, check: FieldChecker): TelnetFixture | null {
  const spec = check.object(value, 'telnet');
  if (!spec) return null;
  check.knownFields(spec, 'telnet', FIELDS);
  const port = spec.port === undefined ? 23 : (check.integer(spec.port, 'telnet.port', 1, 65535) ?? 23);
  let negotiation = Buffer.from(USUAL_NEGOTIATION, 'hex');
  if (spec.negotiation === false) negotiation = Buffer.alloc(0);
  else if (typeof spec.negotiation === 'string') {
    if (/^([0-9a-fA-F]{2})*$/.test(spec.negotiation)) negotiation = Buffer.from(spec.negotiation, 'hex');
    else check.problem('telnet.negotiation', `must be hex bytes such as "fffd18" (got ${describeValue(spec.negotiation)})`);
  } else if (spec.negotiation !== undefined && spec.negotiation !== true) check.problem('telnet.negotiation', `must be true, false or hex bytes (got ${describeValue(spec.negotiation)})`);

  const loginPrompt = spec.loginPrompt === null ? null : text(check, spec.loginPrompt, 'telnet.loginPrompt', 'login: ', false);
  let credentials: TelnetFixture['credentials'] = null;
  if (loginPrompt !== null) {
    if (spec.credentials === undefined || spec.credentials === 'device') {
      if (device.username === null) check.problem('telnet.credentials', 'the device has no username: give device.username / password, or "credentials": { "username", "password" }, or "loginPrompt": null');
      else credentials = { username: device.username, password: device.password ?? '' };
    } else {
      const pair = check.object(spec.credentials, 'telnet.credentials');
      if (pair && typeof pair.username === 'string' && typeof pair.password === 'string') credentials = { username: pair.username, password: pair.password };
      else if (pair) check.problem('telnet.credentials', 'must be "device" or { "username": "…", "password": "…" }');
    }
  }
  const commands = new Map<string, { output: string; delayMs: number; close: boolean }>();
  if (Array.isArray(spec.commands)) {
    spec.commands.forEach((entry, i) => {
      const at = `telnet.commands[${i}]`;
      const c = check.object(entry, at);
      if (!c) return;
      check.knownFields(c, at, COMMAND_FIELDS);
      const command = check.string(c.command, `${at}.command`);
      const delayMs = c.delayMs === undefined ? 0 : (check.integer(c.delayMs, `${at}.delayMs`, 0, 600_000) ?? 0);
      if (c.close !== undefined && typeof c.close !== 'boolean') check.problem(`${at}.close`, 'must be true or false');
      if (command) commands.set(command, { output: text(check, c.output, `${at}.output`, ''), delayMs, close: c.close === true });
    });
  } else if (spec.commands !== undefined) {
    const map = check.object(spec.commands, 'telnet.commands');
    for (const [command, output] of Object.entries(map ?? {})) commands.set(command, { output: text(check, output, `telnet.commands.${command}`, ''), delayMs: 0, close: false });
  }
  if (spec.echo !== undefined && typeof spec.echo !== 'boolean') check.problem('telnet.echo', 'must be true or false');
  return {
    port,
    negotiation,
    banner: text(check, spec.banner, 'telnet.banner', ''),
    loginPrompt,
    passwordPrompt: text(check, spec.passwordPrompt, 'telnet.passwordPrompt', 'Password: ', false),
    shellPrompt: text(check, spec.shellPrompt, 'telnet.shellPrompt', '# '),
    credentials,
    echo: spec.echo !== false,
    commands,
    unknownCommand: text(check, spec.unknownCommand, 'telnet.unknownCommand', '% Unknown command: {command}'),
  };
}
