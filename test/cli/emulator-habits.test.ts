// Issue 19, items 8 and 10 (parameters): habits of the official emulator's users, through the real
// CLI. `.env` lines written NAME: value and the emulator's SNMP names, a line that cannot be read said with its number,
// `.parameters.json` read from the working directory (--params wins), a missing parameter's warning
// naming --params, a params file's broken JSON located as file:line:column, an object value warned about.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const bin = path.resolve('bin/driverbox.js');
const root = mkdtempSync(path.join(tmpdir(), 'driverbox-emulator-habits-'));

const DRIVER = `function get_status() {
  var site = D.getParameter('site');
  D.success([
    D.createVariable('ip', 'IP', D.device.ip()),
    D.createVariable('user', 'User', D.device.username()),
    D.createVariable('site', 'Site', typeof site === 'string' ? site : JSON.stringify(site)),
  ]);
}
`;

/** A fresh working directory holding the driver and `files`. */
function folder(name: string, files: Record<string, string> = {}): string {
  const dir = path.join(root, name);
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'driver.js'), DRIVER);
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(dir, file), text);
  return dir;
}

async function cli(cwd: string, args: string[]) {
  try {
    const { stdout, stderr } = await exec(process.execPath, [bin, 'run', 'driver.js', '--json', ...args], { cwd, env: { PATH: process.env.PATH, NO_COLOR: '1' } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

function variables(stdout: string): Record<string, unknown> {
  const result = JSON.parse(stdout) as { variables: Array<{ uid: string; value: unknown }> };
  return Object.fromEntries(result.variables.map((v) => [v.uid, v.value]));
}

describe('.env as the official emulator writes it', () => {
  it('reads NAME: value lines beside NAME=value, and says which line it cannot read (without quoting its value)', async () => {
    const dir = folder('env', {
      '.env': ['# device', 'DEVICE_IP: 10.0.0.7', 'DEVICE_USERNAME = "admin"', 'DEVICE_PASSWORD hunter2-secret', 'site lab', ''].join('\n'),
    });
    const { code, stdout, stderr } = await cli(dir, []);
    expect(code, stderr).toBe(0);
    expect(variables(stdout)).toMatchObject({ ip: '10.0.0.7', user: 'admin' });
    expect(stderr).toContain(`driverbox run: ${path.join(dir, '.env')}:4: "DEVICE_PASSWORD …" is not NAME=value (or NAME: value); the line is ignored`);
    expect(stderr).toContain(`driverbox run: ${path.join(dir, '.env')}:5: "site …" is not NAME=value (or NAME: value); the line is ignored`);
    expect(stderr).not.toContain('hunter2');
  });
  it('reads the emulator\'s SNMP names (DEVICE_SNMP_USERNAME, DEVICE_SNMP_AUTHENTICATION_KEY…), an empty one as unset', async () => {
    const dir = folder('env-snmp', {
      '.env': ['DEVICE_IP=10.0.0.7', 'DEVICE_SNMP_READ_COMMUNITY=', 'DEVICE_SNMP_VERSION=3', 'DEVICE_SNMP_USERNAME: monitor', 'DEVICE_SNMP_AUTHENTICATION_KEY: short', 'DEVICE_SNMP_ENCRYPTION_KEY=', ''].join('\n'),
    });
    const { code, stderr } = await cli(dir, []);
    expect(code).toBe(2);
    expect(stderr).toContain('driverbox run: DEVICE_SNMP_AUTHENTICATION_KEY must have at least 8 characters');
  });
});

describe('parameters', () => {
  it('reads .parameters.json from the working directory when --params is not given; --params wins', async () => {
    const dir = folder('emulator-params', {
      '.parameters.json': JSON.stringify({ site: 'from-emulator-file', listParam: ['a', 'b'] }),
      'mine.json': JSON.stringify({ site: 'from-flag' }),
    });
    const byDefault = await cli(dir, ['--device-ip', '10.0.0.7']);
    expect(byDefault.code, byDefault.stderr).toBe(0);
    expect(variables(byDefault.stdout).site).toBe('from-emulator-file');
    expect(byDefault.stderr).toContain('driverbox run: parameters from ./.parameters.json (--params <file.json> replaces it)');

    const flagged = await cli(dir, ['--device-ip', '10.0.0.7', '--params', 'mine.json']);
    expect(variables(flagged.stdout).site).toBe('from-flag');
    expect(flagged.stderr).not.toContain('.parameters.json');
  });

  it('a missing parameter\'s warning says how to give it: --params, or the file given lacks it', async () => {
    const none = await cli(folder('missing'), ['--device-ip', '10.0.0.7']);
    expect(JSON.parse(none.stdout).warnings).toContain(
      'D.getParameter("site"): no such parameter was given to this run; returned undefined: give it with --params <file.json> holding {"site": …} (or in ./.parameters.json)',
    );
    const dir = folder('missing-in-file', { 'other.json': '{"port": 80}' });
    const lacking = await cli(dir, ['--device-ip', '10.0.0.7', '--params', 'other.json']);
    expect(JSON.parse(lacking.stdout).warnings).toContain('D.getParameter("site"): no such parameter was given to this run; returned undefined: other.json has no "site"');
  });

  it.each([
    // Node 20 gives no position for this one: found by scanning.
    ['an unexpected token', '{\n  "site": "lab",\n  "port": }\n', 3, 11, "Unexpected token '}'", '    "port": }\n            ^'],
    // … and "at position N" for this one.
    ['a missing comma', '{\n  "site": "lab"\n  "port": 80\n}\n', 3, 3, "Expected ',' or '}' after property value", '    "port": 80\n    ^'],
    ['a file cut short', '{\n  "site": "lab",\n', 3, 1, 'Expected double-quoted property name', '  \n  ^'],
  ])('a params file with %s: exit 2 naming file:line:column, with the line', async (_what, text, line, column, reason, frame) => {
    const dir = folder(`bad-${line}-${column}`, { 'params.json': text });
    const { code, stderr } = await cli(dir, ['--device-ip', '10.0.0.7', '--params', 'params.json']);
    expect(code).toBe(2);
    expect(stderr).toContain(`driverbox run: --params: ${path.join(dir, 'params.json')}:${line}:${column}: not valid JSON: ${reason}\n${frame}\n`);
  });

  it('a broken .parameters.json is named as such', async () => {
    const dir = folder('bad-emulator-file', { '.parameters.json': '{ "site": lab }' });
    const { code, stderr } = await cli(dir, ['--device-ip', '10.0.0.7']);
    expect(code).toBe(2);
    expect(stderr).toContain(`driverbox run: .parameters.json: ${path.join(dir, '.parameters.json')}:1:11: not valid JSON: Unexpected token 'l'`);
  });

  it('an object value is warned about, and D.getParameter returns it as written', async () => {
    const dir = folder('object', { 'params.json': JSON.stringify({ site: { building: 'B', floor: 2 } }) });
    const { code, stdout, stderr } = await cli(dir, ['--device-ip', '10.0.0.7', '--params', 'params.json']);
    expect(code, stderr).toBe(0);
    expect(stderr).toContain(
      'driverbox run: --params: parameter "site" is an object; a collector\'s parameters are strings, numbers or lists of strings, ' +
        'so a real one never gives this: here D.getParameter("site") returns it as written ({"building":"B","floor":2})',
    );
    expect(variables(stdout).site).toBe('{"building":"B","floor":2}');
  });
});
