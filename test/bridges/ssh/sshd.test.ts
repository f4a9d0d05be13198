// D.device.sendSSHCommand and sendSSHCommands against a real OpenSSH sshd (test/helpers/sshd.ts):
// the callback shapes of shared/PROTOCOLS.md, the bounds, the run's end, through createHost().run
// and through the compiled CLI.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceSpec } from '../../../host/contract/device.js';
import type { RunResult } from '../../../host/contract/run-result.js';
import { runSource, useHost } from '../../helpers/host.js';
import { freePort, sshdUnavailable, startSshd, type Sshd } from '../../helpers/sshd.js';

const unavailable = sshdUnavailable();
if (unavailable) console.warn(`ssh-sshd tests skipped: ${unavailable}`);

/** A driver that calls `fn` once with `options` and reports what its callback got as variables. */
function probe(fn: 'sendSSHCommand' | 'sendSSHCommands', options: Record<string, unknown>): string {
  return `function get_status() {
  D.device.${fn}(${JSON.stringify(options)}, function (output, error) {
    D.success([
      D.createVariable('output', 'Output', JSON.stringify(output)),
      D.createVariable('error', 'Error', JSON.stringify(error)),
      D.createVariable('isError', 'Is Error', String(error instanceof Error)),
      D.createVariable('code', 'Code', error && 'code' in error ? String(error.code) : 'none'),
      D.createVariable('message', 'Message', error ? String(error.message) : 'none'),
    ]);
  });
}`;
}

const value = (result: RunResult, uid: string) => result.variables.find((v) => v.uid === uid)?.value ?? null;

describe.skipIf(unavailable !== null)('SSH against a real sshd', () => {
  const host = useHost();
  let sshd: Sshd;
  let device: DeviceSpec;
  beforeAll(async () => {
    sshd = await startSshd();
    device = { ip: '127.0.0.1', portMap: { 22: sshd.port }, username: sshd.user, password: sshd.password };
  });
  afterAll(() => sshd?.stop());

  const run = async (fn: 'sendSSHCommand' | 'sendSSHCommands', options: Record<string, unknown>, spec: DeviceSpec = device) => {
    const started = performance.now();
    const result = await runSource(host, probe(fn, options), { device: spec });
    expect(result.status, result.message ?? '').toBe('success');
    return { result, ms: performance.now() - started, output: JSON.parse(value(result, 'output')!), error: JSON.parse(value(result, 'error')!), isError: value(result, 'isError'), code: value(result, 'code'), message: value(result, 'message') };
  };

  it('exec: trimmed stdout, stderr dropped, inner CRLF kept; the device credentials by default', async () => {
    const r = await run('sendSSHCommand', { command: "printf '  \\n hello\\r\\nworld \\n\\n'; echo noise >&2; whoami >/dev/null", timeout: 10_000 });
    expect(r.output).toBe('hello\r\nworld');
    expect(r.error).toBeNull();
    const who = await run('sendSSHCommand', { command: 'whoami', timeout: 10_000 });
    expect(who.output).toBe(sshd.user);
    // One exchange, as dialled, with the command and the output; the password nowhere.
    expect(who.result.http).toHaveLength(1);
    expect(who.result.http[0]).toMatchObject({ method: 'SSH', url: `ssh://127.0.0.1:${sshd.port}`, error: null });
    expect(JSON.stringify(who.result)).not.toContain(sshd.password);
  });

  it('exec: a non-zero exit is an Error with the exit status as code, trimmed stderr as message, stdout as output', async () => {
    const r = await run('sendSSHCommand', { command: 'echo " partial "; echo "  it failed  " >&2; exit 3', timeout: 10_000 });
    expect(r.output).toBeNull();
    expect(r.isError).toBe('true');
    expect(r.code).toBe('3');
    expect(r.message).toBe('it failed');
    expect(r.error).toEqual({ code: 3, output: 'partial' });
    expect(r.result.http[0]).toMatchObject({ error: 'EXIT_STATUS', errorMessage: 'it failed' });
  });

  it('exec: username / password options win over the device credentials; a wrong password is code 5 "Permission denied"', async () => {
    const ok = await run('sendSSHCommand', { command: 'echo ok', username: sshd.user, password: sshd.password, timeout: 10_000 }, { ip: '127.0.0.1', portMap: { 22: sshd.port } });
    expect(ok.output).toBe('ok');
    const bad = await run('sendSSHCommand', { command: 'echo ok', user: sshd.user, password: 'not-the-password', timeout: 10_000 });
    expect(bad).toMatchObject({ output: null, isError: 'true', code: '5', message: 'Permission denied' });
    expect(JSON.stringify(bad.result)).not.toContain('not-the-password');
  });

  it('exec: a refused port is code 255 with the original message', async () => {
    const port = await freePort();
    const r = await run('sendSSHCommand', { command: 'echo ok', port: 2222 }, { ...device, portMap: { 2222: port } });
    expect(r).toMatchObject({ isError: 'true', code: '255', message: `connect ECONNREFUSED 127.0.0.1:${port}` });
  });

  it('exec: a command that outlasts its timeout ends with "Timeout of <N>ms expired", no code, on time', async () => {
    const r = await run('sendSSHCommand', { command: 'sleep 20', timeout: 800 });
    expect(r).toMatchObject({ isError: 'true', code: 'none', message: 'Timeout of 800ms expired' });
    expect(r.ms).toBeLessThan(3_000);
    expect(r.result.http[0]).toMatchObject({ error: 'TIMEOUT' });
    // ttl is timeout's alias; the default 2000 ms counts from before the connection.
    const ttl = await run('sendSSHCommand', { command: 'sleep 20', ttl: 600 });
    expect(ttl.message).toBe('Timeout of 600ms expired');
    const byDefault = await run('sendSSHCommand', { command: 'sleep 20' });
    expect(byDefault.message).toBe('Timeout of 2000ms expired');
    expect(byDefault.ms).toBeGreaterThan(1_900);
    expect(byDefault.ms).toBeLessThan(4_000);
  });

  it('exec: options are checked on the host, with a specific error through the callback', async () => {
    const noCommand = await run('sendSSHCommand', { timeout: 1000 });
    expect(noCommand).toMatchObject({ isError: 'true', code: 'INVALID_OPTIONS' });
    expect(noCommand.message).toMatch(/command is required/);
    const badAlg = await run('sendSSHCommand', { command: 'true', algorithms: { kex: ['no-such-kex'] } });
    expect(badAlg.code).toBe('INVALID_OPTIONS');
    expect(badAlg.message).toMatch(/algorithms\.kex: "no-such-kex" not supported; supported: .*diffie-hellman-group14-sha1/);
    const badPort = await run('sendSSHCommand', { command: 'true', port: 'abc' });
    expect(badPort.message).toMatch(/port must be a TCP port/);
  });

  it('output over maxOutputBytes ends the call with OUTPUT_TOO_LARGE and closes the connection', async () => {
    const result = await runSource(host, probe('sendSSHCommand', { command: 'head -c 200000 /dev/zero | tr "\\0" x', timeout: 10_000 }), { device, limits: { maxOutputBytes: 50_000 } });
    expect(value(result, 'code')).toBe('OUTPUT_TOO_LARGE');
    expect(value(result, 'message')).toMatch(/passed 50000 bytes/);
  });

  it('sessions and commands are counted against the run\'s bounds', async () => {
    const source = `function get_status() {
  var answers = [];
  function one(i) {
    D.device.sendSSHCommand({ command: 'echo ' + i, timeout: 10000 }, function (out, err) {
      answers.push(err ? err.code : out);
      if (answers.length === 3) D.success([D.createVariable('a', 'A', answers.join(','))]);
    });
  }
  one(1); one(2); one(3);
}`;
    const result = await runSource(host, source, { device, limits: { maxProtocolSessions: 2 } });
    expect(value(result, 'a')!.split(',').sort()).toEqual(['1', '2', 'TOO_MANY_SESSIONS']);
  });

  it('algorithms reach old gear: an sshd that only speaks diffie-hellman-group14-sha1 / aes128-cbc', async () => {
    const old = await startSshd(['KexAlgorithms diffie-hellman-group14-sha1', 'Ciphers aes128-cbc', 'MACs hmac-sha1', 'HostKeyAlgorithms ssh-ed25519']);
    try {
      const spec = { ...device, portMap: { 22: old.port } };
      const plain = await run('sendSSHCommand', { command: 'echo old', timeout: 10_000 }, spec);
      expect(plain.code).toBe('255');
      expect(plain.message).toMatch(/Handshake failed: no matching (key exchange|cipher)/);
      const algorithms = { kex: ['diffie-hellman-group14-sha1'], cipher: ['aes128-cbc'], hmac: ['hmac-sha1'], serverHostKey: ['ssh-ed25519'] };
      const ok = await run('sendSSHCommand', { command: 'echo old', timeout: 10_000, algorithms }, spec);
      expect(ok.output).toBe('old');
      const shell = await run('sendSSHCommands', { commands: ['echo seq'], prompt: '$ ', inter_command_timeout_ms: 300, algorithms }, spec);
      expect(shell.error).toBeNull();
      expect(shell.output[0]).toContain('seq');
    } finally {
      await old.stop();
    }
  });

  it('shell: a sequence on a real bash with a pty; each output raw (echo, output, prompt)', async () => {
    const r = await run('sendSSHCommands', { commands: ['echo one', 'echo $((6*7))', 'exit'], prompt: '$ ', inter_command_timeout_ms: 300 });
    expect(r.error).toBeNull();
    expect(r.output).toHaveLength(3);
    // bash's readline wraps each command in bracketed-paste switches (ESC[?2004l / ESC[?2004h): raw, as sent.
    expect(r.output[0]).toMatch(/^echo one\r\n(\x1b\[\?2004l\r)?one\r\n[\s\S]*\$ $/);
    expect(r.output[1]).toMatch(/echo \$\(\(6\*7\)\)\r\n(\x1b\[\?2004l\r)?42\r\n/);
    expect(r.output[2]).toMatch(/^exit/);
    expect(r.result.http.map((e) => e.method)).toEqual(['SSH-SHELL', 'SSH-SHELL', 'SSH-SHELL']);
    // A first command sent before bash's first prompt arrived would get that prompt as its output:
    // the first command waits for the shell's greeting, however short inter_command_timeout_ms is.
    const quick = await run('sendSSHCommands', { commands: ['echo quick', 'echo again'], prompt: '$ ', inter_command_timeout_ms: 1 });
    expect(quick.error).toBeNull();
    expect(quick.output[0]).toMatch(/^echo quick\r\n/);
    expect(quick.output[1]).toMatch(/^echo again\r\n/);
    // prompt_regex: the prompt as a pattern (here "user@host:~$ ").
    const re = await run('sendSSHCommands', { commands: ['echo two'], prompt: 'never-shown', prompt_regex: `${sshd.user}@[^:]+:~\\$ $`, inter_command_timeout_ms: 300 });
    expect(re.error).toBeNull();
    expect(re.output[0]).toMatch(/two\r\n/);
  });

  it('shell: error_prompt ends the sequence with a plain error object (the output so far, the command), no code', async () => {
    const r = await run('sendSSHCommands', { commands: ['echo fine', 'ls /no-such-dir', 'echo never'], prompt: '$ ', error_prompt: 'No such file', inter_command_timeout_ms: 300 });
    expect(r.output).toEqual([]);
    expect(r.isError).toBe('false');
    expect(r.code).toBe('none');
    expect(r.error.command).toBe('ls /no-such-dir');
    expect(r.error.message).toMatch(/No such file/);
  });

  it('shell: global_timeout_ms bounds the sequence ("timeout"); a wrong password is ssh2\'s message, no code', async () => {
    const r = await run('sendSSHCommands', { commands: ['echo one'], prompt: 'never-shown', inter_command_timeout_ms: 200, global_timeout_ms: 1200 });
    expect(r.error).toEqual({ message: 'timeout' });
    expect(r.ms).toBeLessThan(3_500);
    const bad = await run('sendSSHCommands', { commands: ['echo one'], password: 'wrong-one', username: sshd.user });
    expect(bad.output).toEqual([]);
    expect(bad.error).toEqual({ message: 'All configured authentication methods failed' });
  });

  it("the run's end closes the connection: no sshd session is left", async () => {
    const waitNoSession = async () => {
      const deadline = Date.now() + 3_000;
      while (sshd.sessions() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      return sshd.sessions();
    };
    // Ended by D.success while an exec and a shell still run: both are cut (ABORTED) and closed.
    const source = `function get_status() {
  D.device.sendSSHCommand({ command: 'sleep 60', timeout: 120000 }, function () { D.failure(D.errorType.GENERIC_ERROR); });
  D.device.sendSSHCommands({ commands: ['sleep 60'], prompt: 'never-shown', inter_command_timeout_ms: 100, global_timeout_ms: 120000 }, function () { D.failure(D.errorType.GENERIC_ERROR); });
  D.device.sendSSHCommand({ command: 'sleep 1', timeout: 10000 }, function () { D.success(); });
}`;
    const before = sshd.log().split('Accepted password').length;
    const result = await runSource(host, source, { device });
    expect(result.status, result.message ?? '').toBe('success');
    expect(sshd.log().split('Accepted password').length - before).toBe(3);
    expect(await waitNoSession()).toBe(0);
    expect(result.http.map((e) => e.error).sort()).toEqual(['ABORTED', 'ABORTED', null]);
    // Ended by the run's deadline: the calls' own timers are cut to it, the connections closed.
    const late = await runSource(host, `function get_status() {\n  D.device.sendSSHCommand({ command: 'sleep 60', timeout: 120000 }, function (o, e) { console.log(e.message); });\n}`, { device, limits: { timeoutMs: 1_500 } });
    expect(late.errorType).toBe('TIMEOUT_ERROR');
    expect(await waitNoSession()).toBe(0);
  });

  it("a callback that throws is the driver's uncaught error, with the driver's line", async () => {
    const result = await runSource(host, `function get_status() {\n  D.device.sendSSHCommand({ command: 'echo hi', timeout: 10000 }, function (out) {\n    throw new Error('cb boom: ' + out);\n  });\n}`, { device });
    expect(result.status).toBe('failure');
    expect(result.errorType).toBe('GENERIC_ERROR');
    expect(result.message).toBe('Error: cb boom: hi\n    at driver.js:3:11');
    const shell = await runSource(host, `function get_status() {\n  D.device.sendSSHCommands({ commands: ['echo x'], prompt: '$ ', inter_command_timeout_ms: 100 }, function (out, err) {\n    null.boom;\n  });\n}`, { device });
    expect(shell.errorType).toBe('GENERIC_ERROR');
    expect(shell.message).toMatch(/^TypeError: Cannot read properties of null \(reading 'boom'\)\n {4}at driver\.js:3:10$/);
  });

  it('an external device reaches its own host with the credentials it was made with', async () => {
    const source = `function get_status() {
  var ext = D.createExternalDevice('127.0.0.1', { username: ${JSON.stringify(sshd.user)}, password: ${JSON.stringify(sshd.password)} });
  ext.sendSSHCommand({ command: 'echo external', port: ${sshd.port}, timeout: 10000 }, function (out, err) {
    D.success([D.createVariable('out', 'Out', out || (err && err.message))]);
  });
}`;
    const result = await runSource(host, source, { device: { ip: '127.0.0.1' } });
    expect(result.status, result.message ?? '').toBe('success');
    expect(value(result, 'out')).toBe('external');
  });

  it('driverbox run (the compiled CLI) runs an SSH driver and shows the exchange with --verbose', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-ssh-cli-'));
    const file = path.join(dir, 'driver.js');
    writeFileSync(file, `function get_status() {\n  D.device.sendSSHCommand({ command: 'echo from-cli; uname -s', timeout: 10000 }, function (out, err) {\n    if (err) return D.failure(err.code === 5 ? D.errorType.AUTHENTICATION_ERROR : D.errorType.GENERIC_ERROR);\n    D.success([D.createVariable('os', 'OS', out.split('\\n')[1])]);\n  });\n}\n`);
    const exec = promisify(execFile);
    const args = ['bin/driverbox.js', 'run', file, '--device-ip', '127.0.0.1', '--port-map', `22=${sshd.port}`, '--username', sshd.user, '--password', sshd.password];
    const { stdout } = await exec(process.execPath, [...args, '--verbose']);
    expect(stdout).toMatch(/Linux/);
    expect(stdout).toMatch(/SSH ssh:\/\/127\.0\.0\.1:\d+/);
    expect(stdout).toContain('echo from-cli; uname -s');
    expect(stdout).not.toContain(sshd.password);
    const bad = await exec(process.execPath, [...args.slice(0, -1), 'wrong', '--json']).catch((e: { stdout: string; code: number }) => e);
    expect((bad as { code: number }).code).toBe(1);
    expect(JSON.parse((bad as { stdout: string }).stdout)).toMatchObject({ status: 'failure', errorType: 'AUTHENTICATION_ERROR' });
  });
});

