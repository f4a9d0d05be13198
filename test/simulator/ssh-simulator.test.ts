// The simulated SSH device (host/simulator/ssh/): its fixture section, exec and shell answers,
// logins with the fixture's credentials; drivers run against it through createHost().run,
// and `driverbox simulate` serving it to the `driverbox run` line it prints.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FixtureError } from '../../host/contract/errors.js';
import { parseFixture } from '../../host/simulator/parse-fixture.js';
import { startSimulator, type Simulator } from '../../host/simulator/simulator.js';
import type { SshEvent } from '../../host/simulator/ssh/server.js';
import { runSource, useHost } from '../helpers/host.js';

export const switchFixture = {
  fixture: 1,
  description: 'A switch over SSH',
  device: { host: 'sw-01', username: 'admin', password: 'sw-secret' },
  routes: [],
  ssh: {
    commands: {
      'uname -a': 'Linux sw-01 5.10.0 x86_64 GNU/Linux',
      'cat /missing': { stderr: 'cat: /missing: No such file or directory', exitCode: 1 },
      'slow': { stdout: 'late', delayMs: 3000 },
    },
    shell: {
      banner: ['Welcome to sw-01', ''],
      prompt: 'sw-01>',
      commands: {
        enable: { prompt: 'sw-01#' },
        'show version': ['Switch OS 2.1', 'Uptime 5 days'],
        'terminal length 0': '',
      },
      unknownCommand: "% Invalid input detected at '^' marker.",
    },
  },
};

function probe(fn: string, options: Record<string, unknown>): string {
  return `function get_status() {
  D.device.${fn}(${JSON.stringify(options)}, function (output, error) {
    D.success([D.createVariable('output', 'Output', JSON.stringify(output)), D.createVariable('error', 'Error', JSON.stringify(error)), D.createVariable('code', 'Code', error && 'code' in error ? String(error.code) : 'none'), D.createVariable('message', 'Message', error ? error.message : 'none')]);
  });
}`;
}

describe('the simulated SSH device', () => {
  const host = useHost();
  let sim: Simulator;
  const events: SshEvent[] = [];
  beforeAll(async () => {
    sim = await startSimulator(switchFixture, { onSsh: (e) => events.push(e) });
  });
  afterAll(() => sim?.close());
  const run = async (fn: string, options: Record<string, unknown>, device = sim.device) => {
    const result = await runSource(host, probe(fn, options), { device });
    expect(result.status, result.message ?? '').toBe('success');
    const v = (uid: string) => result.variables.find((x) => x.uid === uid)!.value!;
    return { output: JSON.parse(v('output')), error: JSON.parse(v('error')), code: v('code'), message: v('message'), result };
  };

  it('serves ssh on loopback behind the device port 22, with a host key made at start', () => {
    expect(sim.ssh).not.toBeNull();
    expect(sim.portMap[22]).toBe(sim.ssh!.port);
    expect(sim.ssh!.fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    expect(sim.device).toMatchObject({ username: 'admin', password: 'sw-secret' });
  });

  it('exec: a known command, a failing one, an unknown one (command not found, 127)', async () => {
    expect((await run('sendSSHCommand', { command: 'uname -a' })).output).toBe('Linux sw-01 5.10.0 x86_64 GNU/Linux');
    expect(await run('sendSSHCommand', { command: 'cat /missing' })).toMatchObject({ output: null, code: '1', message: 'cat: /missing: No such file or directory' });
    expect(await run('sendSSHCommand', { command: 'frobnicate --all' })).toMatchObject({ code: '127', message: 'bash: frobnicate: command not found' });
    expect(await run('sendSSHCommand', { command: 'slow', timeout: 500 })).toMatchObject({ code: 'none', message: 'Timeout of 500ms expired' });
    expect(events.filter((e) => e.kind === 'exec').map((e) => [e.command, e.exitCode, e.known])).toEqual([
      ['uname -a', 0, true],
      ['cat /missing', 1, true],
      ['frobnicate --all', 127, false],
      ['slow', 0, true],
    ]);
  });

  it("logs in with the fixture's device credentials only", async () => {
    expect(await run('sendSSHCommand', { command: 'uname -a', username: 'admin', password: 'nope' })).toMatchObject({ code: '5', message: 'Permission denied' });
    expect(events.some((e) => e.kind === 'login-refused')).toBe(true);
  });

  it('shell: banner dropped, echo + output + prompt per command, a prompt that changes, an unknown command', async () => {
    const r = await run('sendSSHCommands', { commands: ['enable', 'show version', 'show bogus'], inter_command_timeout_ms: 50 });
    expect(r.error).toBeNull();
    expect(r.output).toEqual(['enable\r\nsw-01#', 'show version\r\nSwitch OS 2.1\r\nUptime 5 days\r\nsw-01#', "show bogus\r\n% Invalid input detected at '^' marker.\r\nsw-01#"]);
    const err = await run('sendSSHCommands', { commands: ['enable', 'show bogus'], error_prompt: '% Invalid', inter_command_timeout_ms: 50 });
    expect(err.output).toEqual([]);
    expect(err.error).toEqual({ message: "show bogus\r\n% Invalid input detected at '^' marker.\r\nsw-01#", command: 'show bogus' });
    const regex = await run('sendSSHCommands', { commands: ['show version'], prompt_regex: 'sw-01[>#]$', prompt: 'never', inter_command_timeout_ms: 50 });
    expect(regex.output).toEqual(['show version\r\nSwitch OS 2.1\r\nUptime 5 days\r\nsw-01>']);
  });

  it("a slow login: the first command waits for the shell's greeting, however short inter_command_timeout_ms is", async () => {
    const slow = await startSimulator({ ...switchFixture, ssh: { ...switchFixture.ssh, shell: { ...switchFixture.ssh.shell, delayMs: 600 } } });
    try {
      const r = await run('sendSSHCommands', { commands: ['show version', 'enable'], prompt: 'sw-01', inter_command_timeout_ms: 1 }, slow.device);
      expect(r.error).toBeNull();
      expect(r.output).toEqual(['show version\r\nSwitch OS 2.1\r\nUptime 5 days\r\nsw-01>', 'enable\r\nsw-01#']);
    } finally {
      await slow.close();
    }
  });

  it('prompt_regex given as a RegExp (as drivers in the wild do) works as its source and flags', async () => {
    const source = `function get_status() {
  D.device.sendSSHCommands({ commands: ['show version'], prompt: 'never', prompt_regex: /SW-01[>#]$/gi, inter_command_timeout_ms: 50 }, function (out, err) {
    D.success([D.createVariable('out', 'Out', err ? 'error: ' + err.message : out[0])]);
  });
}`;
    const result = await runSource(host, source, { device: sim.device });
    expect(result.variables[0]!.value).toBe('show version\r\nSwitch OS 2.1\r\nUptime 5 days\r\nsw-01>');
  });

  it('fixture checks: the ssh section is validated with field paths; an SSH-only fixture needs no routes', () => {
    expect(parseFixture({ fixture: 1, ssh: { commands: { ls: 'a' } } }).routes).toEqual([]);
    let error: unknown;
    try {
      parseFixture({ fixture: 1, ssh: { port: 0, commands: { x: { exitCode: 300, stdout: 3 } }, shell: { prompt: '', commads: {} } } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FixtureError);
    const text = (error as Error).message;
    expect(text).toContain('ssh.port: must be an integer 1–65535 (got 0)');
    expect(text).toContain('ssh.commands.x.stdout: must be text or a list of lines (got 3)');
    expect(text).toContain('ssh.commands.x.exitCode: must be an integer 0–255 (got 300)');
    expect(text).toContain('ssh.shell.prompt: must be a non-empty string');
    expect(text).toMatch(/ssh\.shell\.commads: unknown field/);
  });
});

describe('driverbox simulate serves the SSH device to the run line it prints', () => {
  it('prints the ssh listener, logs logins and commands, and the printed line runs an SSH driver', async () => {
    const work = mkdtempSync(path.join(tmpdir(), 'driverbox-ssh-sim-'));
    writeFileSync(path.join(work, 'device.json'), JSON.stringify(switchFixture));
    writeFileSync(path.join(work, 'driver.js'), `function get_status() {\n  D.device.sendSSHCommand({ command: 'uname -a' }, function (out, err) {\n    if (err) return D.failure(D.errorType.GENERIC_ERROR);\n    D.success([D.createVariable('kernel', 'Kernel', out.split(' ')[2])]);\n  });\n}\n`);
    const bin = path.resolve('bin/driverbox.js');
    const proc = spawn(process.execPath, [bin, 'simulate', 'device.json'], { cwd: work, env: { PATH: process.env.PATH, NO_COLOR: '1' } });
    let out = '';
    proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
    try {
      await expect.poll(() => out, { timeout: 15_000 }).toContain('Requests (Ctrl-C to stop):');
      expect(out).toMatch(/ssh {4}ssh:\/\/127\.0\.0\.1:\d+ {3}device port 22; 3 exec commands, 3 shell commands \(prompt "sw-01>"\); host key SHA256:/);
      const line = /^ {2}(npx driverbox run .*)$/m.exec(out)![1]!;
      expect(line).toMatch(/--port-map 22=\d+,80=\d+ --username admin --password sw-secret/);
      const { stdout } = await promisify(execFile)('/bin/sh', ['-c', `${line.replace(/^npx driverbox/, `'${process.execPath}' '${bin}'`)} --json`], { cwd: work });
      expect(JSON.parse(stdout)).toMatchObject({ status: 'success', variables: [{ uid: 'kernel', value: '5.10.0' }] });
      await expect.poll(() => out).toContain('ssh   exec "uname -a" → exit 0');
      expect(out).toContain('ssh   login admin');
    } finally {
      proc.kill('SIGINT');
    }
  });
});
