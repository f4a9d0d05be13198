// D.device.sendWinRMCommand against the simulated WinRM service (a WS-Management responder
// that checks each SOAP action), through createHost().run and the CLI: the platform's one-object
// callback, basic and NTLM authentication, HTTP and exit-status errors, the Receive loop, the
// call's timeout, the run's bounds, and the shell deleted afterwards.
import { mkdtempSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceSpec } from '../../../host/contract/device.js';
import { startSimulator, type Simulator } from '../../../host/simulator/simulator.js';
import { runCli } from '../../helpers/cli.js';
import { runSource, useHost } from '../../helpers/host.js';

const host = useHost();

function probe(options: string): string {
  return `function get_status() {
    D.device.sendWinRMCommand(${options}, function (output) {
      var e = output.error;
      D.success([
        D.createVariable('keys', 'Keys', Object.keys(output).join(',')),
        D.createVariable('outcome', 'Outcome', JSON.stringify(output.outcome)),
        D.createVariable('error', 'Error', e === null ? 'null' : JSON.stringify({ isError: e instanceof Error, hasCode: 'code' in e, code: e.code, message: e.message.slice(0, 200), tail: e.message.length > 200 ? e.message.slice(-150) : undefined })),
      ]);
    });
  }`;
}

interface Outcome {
  keys: string;
  outcome: { commandId: string; shellId: string; stdout: string; stderr: string | null; exitCode: number } | null;
  error: { isError: boolean; hasCode: boolean; code?: unknown; message: string; tail?: string } | null;
  ms: number;
}

async function call(options: string, device: DeviceSpec, limits?: Record<string, number>): Promise<Outcome> {
  const started = performance.now();
  const result = await runSource(host, probe(options), { device, limits });
  const ms = performance.now() - started;
  expect(result.status, result.message ?? '').toBe('success');
  const value = (uid: string) => result.variables.find((v) => v.uid === uid)?.value ?? 'null';
  return { keys: value('keys'), outcome: JSON.parse(value('outcome')), error: JSON.parse(value('error')), ms };
}

const until = async (check: () => boolean, ms = 2000) => {
  for (const end = Date.now() + ms; Date.now() < end && !check(); ) await new Promise((r) => setTimeout(r, 20));
  return check();
};

describe('against the simulated WinRM service', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({
      fixture: 1,
      device: { username: 'Administrator', password: 'W1n!pass' },
      routes: [],
      winrm: {
        commands: [
          { command: 'hostname', stdout: 'WIN-01\r\n' },
          { command: 'Write-Output "a b" ; Get-Item "C:\\"', stdout: 'quoted ok\r\n' },
          { command: 'Write-Warning w', stdout: 'ünïcödé ✓\r\n', stderr: 'WARNING: w\r\n' },
          { command: 'exit 3', stdout: 'partial', stderr: 'boom', exitCode: 3 },
          { command: 'Crash', status: 500 },
          { command: 'Slow', stdout: 'late\r\n', delayMs: 1500 },
          { command: 'Forever', stdout: 'never', delayMs: 60_000 },
          { command: 'Big', stdout: 'x'.repeat(6000) },
          { command: 'Large', stdout: 'abcdefghij'.repeat(30_000) },
        ],
      },
    });
  });
  afterAll(() => sim?.close());
  const device = () => sim.device;
  const events = () => sim.winrm!.events;

  it('success: ONE object {outcome: {commandId, shellId, stdout, stderr, exitCode}, error: null}; the shell is deleted', async () => {
    events().length = 0;
    const r = await call(`{ command: 'hostname' }`, device());
    expect(r.keys).toBe('outcome,error');
    expect(r.error).toBeNull();
    expect(r.outcome).toEqual({ commandId: expect.stringMatching(/^[0-9A-F-]{36}$/), shellId: expect.stringMatching(/^[0-9A-F-]{36}$/), stdout: 'WIN-01\r\n', stderr: null, exitCode: 0 });
    expect(await until(() => events().some((e) => e.action === 'delete'))).toBe(true);
    expect(events().map((e) => e.action)).toEqual(['create', 'command', 'receive', 'receive', 'delete']);
    expect(events()[0]).toMatchObject({ auth: 'basic', user: 'Administrator' });
    expect(events()[1]!.detail).toBe('powershell.exe "hostname"');
    expect(sim.winrm!.openShells).toBe(0);
  });

  it('quotes in the command are escaped as \\" inside powershell.exe "…"', async () => {
    events().length = 0;
    const r = await call(`{ command: 'Write-Output "a b" ; Get-Item "C:\\\\"' }`, device());
    expect(r.error).toBeNull();
    expect(r.outcome!.stdout).toBe('quoted ok\r\n');
    expect(events().find((e) => e.action === 'command')!.detail).toBe('powershell.exe "Write-Output \\"a b\\" ; Get-Item \\"C:\\\\""');
  });

  it('stderr is text when the command wrote some; the streams are joined before decoding', async () => {
    const r = await call(`{ command: 'Write-Warning w' }`, device());
    expect(r.error).toBeNull();
    expect(r.outcome).toMatchObject({ stdout: 'ünïcödé ✓\r\n', stderr: 'WARNING: w\r\n', exitCode: 0 });
  });

  it('NTLM for DOMAIN\\user names, on one kept-alive connection per request', async () => {
    // The test before does not wait for its shell's delete, which comes after its answer.
    expect(await until(() => sim.winrm!.openShells === 0)).toBe(true);
    events().length = 0;
    const r = await call(`{ command: 'hostname', username: 'WORKGROUP\\\\Administrator', password: 'W1n!pass' }`, device());
    expect(r.error).toBeNull();
    expect(r.outcome!.stdout).toBe('WIN-01\r\n');
    expect(events()[0]).toMatchObject({ action: 'create', auth: 'ntlm', user: 'WORKGROUP\\Administrator' });
  });

  it('wrong credentials: the HTTP error text and the status as a number code (basic and NTLM)', async () => {
    for (const username of ['Administrator', 'WORKGROUP\\\\Administrator']) {
      const r = await call(`{ command: 'hostname', username: '${username}', password: 'nope' }`, device());
      expect(r.outcome).toBeNull();
      expect(r.error).toEqual({ isError: true, hasCode: true, code: 401, message: 'Failed to process the request, status Code: 401 - response body: ' });
    }
  });

  it('a non-zero exit status: the platform\'s text, no code', async () => {
    const r = await call(`{ command: 'exit 3' }`, device());
    expect(r.outcome).toBeNull();
    expect(r.error).toEqual({ isError: true, hasCode: false, message: 'Command powershell.exe "exit 3" failed with exit code: 3 - partial boom' });
  });

  it('HTTP 500 with its body; an unknown command fails with the shell\'s exit code', async () => {
    const r = await call(`{ command: 'Crash' }`, device());
    expect(r.error).toMatchObject({ code: 500, hasCode: true });
    expect(r.error!.message).toMatch(/^Failed to process the request, status Code: 500 - response body: <s:Envelope /);
    expect(r.error!.tail).toContain('simulated failure of Crash');
    const unknown = await call(`{ command: 'Get-Nothing' }`, device());
    expect(unknown.error!.message).toMatch(/^Command powershell.exe "Get-Nothing" failed with exit code: 1 - {2}Get-Nothing : The term is not recognized/);
  });

  it('a Receive that times out on the server (OperationTimeout) is asked again', async () => {
    events().length = 0;
    const r = await call(`{ command: 'Slow', timeout: 3000 }`, device());
    expect(r.error).toBeNull();
    expect(r.outcome!.stdout).toBe('late\r\n');
    expect(events().some((e) => e.action === 'fault' && /OperationTimeout/.test(e.detail!))).toBe(true);
  });

  it('the call\'s timeout: ETIMEDOUT, the command terminated and the shell deleted', async () => {
    events().length = 0;
    const r = await call(`{ command: 'Forever', timeout: 2500 }`, device());
    expect(r.error).toMatchObject({ code: 'ETIMEDOUT', message: 'the WinRM command did not finish within 2500 ms' });
    expect(r.ms).toBeLessThan(5000);
    expect(await until(() => events().some((e) => e.action === 'delete'), 4000)).toBe(true);
    expect(events().find((e) => e.action === 'signal')!.detail).toBe('http://schemas.microsoft.com/wbem/wsman/1/windows/shell/signal/terminate');
  });

  it("the run's deadline, shorter than the call, ends it in time", async () => {
    const started = performance.now();
    const result = await runSource(host, probe(`{ command: 'Forever', timeout: 60000 }`), { device: device(), limits: { timeoutMs: 1500 } });
    // Ended by the 1.5 s deadline, not the call's 60 s (bound loose for a loaded machine).
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(result.errorType).toBe('TIMEOUT_ERROR');
  });

  it('output larger than one answer may be comes in several Receives, each within MaxEnvelopeSize', async () => {
    events().length = 0;
    // Variables are cut at 500 characters: the driver checks the output itself.
    const result = await runSource(host, `function get_status() {
      D.device.sendWinRMCommand({ command: 'Large' }, function (output) {
        var out = output.outcome ? output.outcome.stdout : '';
        D.success([D.createVariable('check', 'Check', String(output.error === null && out === new Array(30001).join('abcdefghij')) + ' ' + out.length)]);
      });
    }`, { device: device() });
    expect(result.variables[0]?.value).toBe('true 300000');
    expect(events().filter((e) => e.action === 'receive').length).toBeGreaterThanOrEqual(3);
  });

  it('output past maxOutputBytes: OUTPUT_TOO_LARGE', async () => {
    const r = await call(`{ command: 'Big' }`, device(), { maxOutputBytes: 4000 });
    expect(r.error).toMatchObject({ code: 'OUTPUT_TOO_LARGE' });
  });

  it('a refused connection is an error, not a crash; bad options are named', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const r = await call(`{ command: 'hostname' }`, { ip: '127.0.0.1', portMap: { 5985: port }, username: 'a', password: 'b' });
    expect(r.error).toMatchObject({ isError: true, code: 'ECONNREFUSED' });
    const bad = await call(`{ command: 'hostname', scheme: 'ftp' }`, device());
    expect(bad.error!.message).toBe('D.device.sendWinRMCommand: scheme must be one of "http", "https", not "ftp"');
    const none = await call(`{ }`, device());
    expect(none.error!.message).toContain("requires a 'command'");
  });

  it("a callback that throws is the driver's uncaught error", async () => {
    const result = await runSource(host, `function get_status() {
      D.device.sendWinRMCommand({ command: 'hostname' }, function (output) { JSON.parse(output.outcome.stdout); });
    }`, { device: device() });
    expect(result.status).toBe('failure');
    expect(result.errorType).toBe('GENERIC_ERROR');
    expect(result.message).toContain('JSON');
  });

  it("the run's end drops a call in flight; the password never reaches the transcript", async () => {
    const result = await runSource(host, `function get_status() {
      D.device.sendWinRMCommand({ command: 'Forever', username: 'Administrator', password: 'W1n!pass' }, function () {});
      D.device.http.get({ url: '/nothing' }, function () { D.success(); });
    }`, { device: device(), transcript: 'full' });
    expect(result.status).toBe('success');
    const exchange = result.http.find((e) => e.method === 'WINRM')!;
    expect(exchange.error).toBe('ABORTED');
    expect(exchange.request?.body).toBe('powershell.exe "Forever"');
    expect(JSON.stringify(result)).not.toContain('W1n!pass');
  });

  it('runs through `driverbox run` with the simulator\'s port map', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'driverbox-winrm-')), 'driver.js');
    writeFileSync(file, probe(`{ command: 'hostname' }`));
    const portMap = Object.entries(sim.portMap).map(([from, to]) => `${from}=${to}`).join(',');
    const cli = await runCli(['run', file, '--device-ip', '127.0.0.1', '--port-map', portMap, '--username', 'Administrator', '--password', 'W1n!pass', '--json']);
    expect(cli.code, cli.stderr).toBe(0);
    const result = JSON.parse(cli.stdout) as { status: string; variables: Array<{ uid: string; value: string }> };
    expect(JSON.parse(result.variables.find((v) => v.uid === 'outcome')!.value)).toMatchObject({ stdout: 'WIN-01\r\n', exitCode: 0 });
  });
});

describe('over HTTPS (the simulator\'s self-signed certificate)', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ fixture: 1, device: { username: 'Administrator', password: 'W1n!pass' }, routes: [], winrm: { https: true, auth: 'basic', commands: [{ command: 'hostname', stdout: 'WIN-TLS\r\n' }] } });
  });
  afterAll(() => sim?.close());

  it('port 5986 means https; skipVerify accepts the certificate, without it the TLS error comes back', async () => {
    sim.winrm!.events.length = 0;
    const ok = await call(`{ command: 'hostname', port: 5986, skipVerify: true }`, sim.device);
    expect(ok.error).toBeNull();
    expect(ok.outcome!.stdout).toBe('WIN-TLS\r\n');
    const explicit = await call(`{ command: 'hostname', scheme: 'https', skipVerify: true }`, sim.device);
    expect(explicit.outcome!.stdout).toBe('WIN-TLS\r\n');
    const strict = await call(`{ command: 'hostname', scheme: 'https' }`, sim.device);
    expect(strict.error).toMatchObject({ isError: true, code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    // Plain HTTP to the HTTPS port is not a WinRM answer.
    const plain = await call(`{ command: 'hostname', port: 5986, scheme: 'http' }`, sim.device);
    expect(plain.error).not.toBeNull();
  });
});
