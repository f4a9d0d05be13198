// The fixture's telnet and winrm sections: validated with every problem named, defaults filled in,
// and a fixture of those protocols only needs no HTTP routes.
import { describe, expect, it } from 'vitest';
import { FixtureError } from '../../host/contract/errors.js';
import { parseFixture } from '../../host/simulator/parse-fixture.js';

const problems = (value: unknown): string[] => {
  try {
    parseFixture(value);
    return [];
  } catch (error) {
    if (error instanceof FixtureError) return error.problems;
    throw error;
  }
};

describe('telnet and winrm fixture sections', () => {
  it('defaults: port 23 / 5985, the usual negotiation, device credentials, no routes needed', () => {
    const fixture = parseFixture({ fixture: 1, device: { username: 'u', password: 'p' }, telnet: { commands: { ls: 'a b' } }, winrm: { commands: [{ command: 'hostname' }] } });
    expect(fixture.routes).toEqual([]);
    expect(fixture.telnet).toMatchObject({ port: 23, loginPrompt: 'login: ', passwordPrompt: 'Password: ', shellPrompt: '# ', echo: true, credentials: { username: 'u', password: 'p' } });
    expect(fixture.telnet!.negotiation.toString('hex')).toBe('fffd18fffb01fffb03');
    expect(fixture.telnet!.commands.get('ls')).toEqual({ output: 'a b', delayMs: 0, close: false });
    expect(fixture.winrm).toMatchObject({ port: 5985, httpsPort: null, auth: 'both', credentials: { username: 'u', password: 'p' } });
    expect(fixture.winrm!.commands[0]).toMatchObject({ command: 'hostname', stdout: '', stderr: '', exitCode: 0 });
  });

  it('names every problem', () => {
    expect(
      problems({
        fixture: 1,
        telnet: { prot: 23, negotiation: 'xyz', commands: [{ output: 'x' }] },
        winrm: { auth: 'kerberos', commands: [{ command: 'a', contains: 'b' }, { stdout: 1 }] },
      }),
    ).toEqual([
      'telnet.prot: unknown field (did you mean "port"?)',
      'telnet.negotiation: must be hex bytes such as "fffd18" (got "xyz")',
      'telnet.credentials: the device has no username: give device.username / password, or "credentials": { "username", "password" }, or "loginPrompt": null',
      'telnet.commands[0].command: must be a non-empty string (got nothing)',
      'winrm.auth: must be "basic", "ntlm" or "both" (got "kerberos")',
      'winrm.credentials: the device has no username: give device.username / password, or "credentials": { "username", "password" }',
      'winrm.commands[0]: needs exactly one of "command" (the exact PowerShell command) or "contains"',
      'winrm.commands[1]: needs exactly one of "command" (the exact PowerShell command) or "contains"',
      'winrm.commands[1].stdout: must be a string (got 1)',
    ]);
  });

  it('a fixture with neither HTTP routes nor another protocol is still refused', () => {
    expect(problems({ fixture: 1 })[0]).toMatch(/^routes: must be a non-empty list/);
  });
});
