// D.device.sendTelnetCommand against Debian's real telnetd and the simulated Telnet device,
// through createHost().run and the CLI: the platform's callback shapes, option negotiation,
// the login dialogue, the idle timeout, failures, and the run's bounds.
import { mkdtempSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceSpec } from '../../../host/contract/device.js';
import { startSimulator, type Simulator } from '../../../host/simulator/simulator.js';
import type { FixtureSpec } from '../../../host/simulator/fixture-types.js';
import { runCli } from '../../helpers/cli.js';
import { runSource, useHost } from '../../helpers/host.js';
import { hasTelnetd, startTelnetd, type RealTelnetd } from '../../helpers/telnetd.js';

const host = useHost();

/** A driver making one Telnet call and reporting what its callback got. */
function probe(options: string): string {
  return `function get_status() {
    D.device.sendTelnetCommand(${options}, function (out, err) {
      D.success([
        D.createVariable('out', 'Out', JSON.stringify(out)),
        D.createVariable('err', 'Err', err === '' ? 'EMPTY' : JSON.stringify({ isError: err instanceof Error, code: err.code, message: err.message })),
      ]);
    });
  }`;
}

async function call(options: string, device: DeviceSpec, limits?: Record<string, number>) {
  const started = performance.now();
  const result = await runSource(host, probe(options), { device, limits });
  const ms = performance.now() - started;
  expect(result.status, result.message ?? '').toBe('success');
  const value = (uid: string) => result.variables.find((v) => v.uid === uid)?.value ?? null;
  return { out: JSON.parse(value('out')!) as string, err: value('err') === 'EMPTY' ? '' : (JSON.parse(value('err')!) as { isError: boolean; code: string; message: string }), result, ms };
}

describe.skipIf(!hasTelnetd)('against Debian telnetd (inetutils)', () => {
  let telnetd: RealTelnetd;
  beforeAll(async () => {
    telnetd = await startTelnetd('admin', 'pa55word');
  });
  afterAll(() => telnetd?.close());
  const device = () => ({ ip: '127.0.0.1', portMap: { 23: telnetd.port }, username: 'admin', password: 'pa55word' });

  it('logs in with the device credentials, waits for the shell prompt, and gives the raw transcript with error ""', async () => {
    const { out, err } = await call(`{ command: 'echo out-$((6*7))', shellPrompt: 'box# ', timeout: 800 }`, device());
    expect(err).toBe('');
    // telnetd negotiates first: its IAC bytes are in the transcript, as the platform keeps them.
    expect(out.charCodeAt(0)).toBe(0xfffd);
    expect(out).toContain('box login: admin\r\n');
    expect(out).toContain('Password: ');
    expect(out).not.toContain('pa55word'); // telnetd's pty does not echo it
    expect(out).toMatch(/box# echo out-\$\(\(6\*7\)\)\r\nout-42\r\nbox# $/);
  });

  it('a wrong password gets the device\'s answer in the transcript, not an error', async () => {
    const { out, err } = await call(`{ command: 'id', username: 'admin', password: 'wrong', shellPrompt: 'box# ', timeout: 800 }`, device());
    expect(err).toBe('');
    expect(out).toContain('Login incorrect');
    expect(out).not.toContain('box# id');
  });

  it('a RegExp shellPrompt from the driver is matched (in an isolate, off the host loop)', async () => {
    const { out, err } = await call(`{ command: 'echo re-ok', shellPrompt: /bo[x]# $/, timeout: 800 }`, device());
    expect(err).toBe('');
    expect(out).toContain('re-ok\r\nbox# ');
  });
});

describe('against the simulated device', () => {
  let sim: Simulator;
  const fixture: FixtureSpec = {
    fixture: 1,
    device: { username: 'ops', password: 'T3lnet!' },
    routes: [],
    telnet: {
      banner: 'Acme PDU 2000\n',
      loginPrompt: 'pdu login: ',
      passwordPrompt: 'Password: ',
      shellPrompt: 'pdu> ',
      commands: [
        { command: 'show outlets', output: 'Outlet 1  ON\nOutlet 2  OFF' },
        { command: 'show log', output: 'x'.repeat(5000) },
        { command: 'slow', output: 'done', delayMs: 5_000 },
        { command: 'aaaa', output: 'a'.repeat(30) + '!' },
      ],
    },
  };
  beforeAll(async () => {
    sim = await startSimulator(fixture);
  });
  afterAll(() => sim?.close());
  const device = () => sim.device;

  it('answers DO with WONT and WILL with DO, then logs in and runs the command', async () => {
    sim.telnet!.events.length = 0;
    const { out, err } = await call(`{ command: 'show outlets', loginPrompt: 'login:', passwordPrompt: 'Password:', shellPrompt: 'pdu> ' }`, device());
    expect(err).toBe('');
    expect(out).toBe('\ufffd\ufffd\u0018\ufffd\ufffd\u0001\ufffd\ufffd\u0003Acme PDU 2000\r\npdu login: Password: \r\npdu> show outlets\r\nOutlet 1  ON\r\nOutlet 2  OFF\r\npdu> ');
    const said = sim.telnet!.events.filter((e) => e.kind === 'negotiation').map((e) => e.detail);
    expect(said).toEqual(['fffc18', 'fffd01', 'fffd03']); // IAC WONT TTYPE, IAC DO ECHO, IAC DO SGA
    expect(sim.telnet!.events.filter((e) => e.kind === 'login').map((e) => e.detail)).toEqual(['ops']);
    expect(sim.telnet!.events.filter((e) => e.kind === 'command').map((e) => e.detail)).toEqual(['show outlets']);
  });

  it('with negotiationMandatory false the command goes at once, after onConnectCommand', async () => {
    sim.telnet!.events.length = 0;
    const { out, err } = await call(`{ command: 'show outlets', negotiationMandatory: false, onConnectCommand: 'hello\\n' }`, device());
    expect(err).toBe('');
    // The device took both lines as its login: the driver did not wait for a prompt.
    expect(sim.telnet!.events.filter((e) => e.kind === 'login-failed').map((e) => e.detail)).toEqual(['hello']);
    expect(out).toContain('Login incorrect');
  });

  it('the timeout is an idle timeout: the call ends that long after the last byte', async () => {
    const short = await call(`{ command: 'show outlets', shellPrompt: 'pdu> ', loginPrompt: 'login:', timeout: 200 }`, device());
    const long = await call(`{ command: 'show outlets', shellPrompt: 'pdu> ', loginPrompt: 'login:', timeout: 1200 }`, device());
    expect(short.err).toBe('');
    expect(long.err).toBe('');
    expect(long.ms - short.ms).toBeGreaterThan(700);
    expect(long.ms - short.ms).toBeLessThan(2500);
  });

  it('a shell prompt never seen: the command is never sent, the transcript so far comes back', async () => {
    const { out, err } = await call(`{ command: 'show outlets', shellPrompt: 'router#', loginPrompt: 'login:', timeout: 200 }`, device());
    expect(err).toBe('');
    expect(out).toContain('pdu> ');
    expect(out).not.toContain('show outlets');
  });

  it('output past maxOutputBytes ends the call with OUTPUT_TOO_LARGE', async () => {
    const { out, err } = await call(`{ command: 'show log', shellPrompt: 'pdu> ', loginPrompt: 'login:', timeout: 500 }`, device(), { maxOutputBytes: 2000 });
    expect(out).toBe('');
    expect(err).toMatchObject({ isError: true, code: 'OUTPUT_TOO_LARGE' });
  });

  it('a refused port is an Error with its code, and an empty transcript', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const { out, err } = await call(`{ command: 'x' }`, { ip: '127.0.0.1', portMap: { 23: port } });
    expect(out).toBe('');
    expect(err).toMatchObject({ isError: true, code: 'ECONNREFUSED' });
    expect((err as { message: string }).message).toContain('ECONNREFUSED');
  });

  it('a regular expression that backtracks without end fails the call, not the host', async () => {
    const evil = await startSimulator({ fixture: 1, routes: [], telnet: { banner: 'a'.repeat(40) + '!', loginPrompt: null, shellPrompt: '' } });
    try {
      const { err, ms } = await call(`{ command: 'x', shellPrompt: /^(a+)+$/, timeout: 5000 }`, evil.device);
      // Run in an isolate under the run's pattern budget (1000 ms of CPU in all), never on the host's loop.
      expect(err).toMatchObject({ isError: true, code: 'PATTERN_BUDGET_EXCEEDED' });
      expect((err as { message: string }).message).toMatch(/^shellPrompt \/\^\(a\+\)\+\$\/: the run's prompt patterns used up their budget of 1000 ms of CPU/);
      expect(ms).toBeLessThan(5000);
    } finally {
      await evil.close();
    }
    const bad = await call(`{ command: 'x', shellPrompt: { regexp: '(' } }`, device());
    expect(bad.err).toMatchObject({ code: 'INVALID_OPTIONS' });
    expect((bad.err as { message: string }).message).toContain('shellPrompt: not a valid regular expression');
    const wrongType = await call(`{ command: 'x', timeout: 'soon' }`, device());
    expect((wrongType.err as { message: string }).message).toMatch(/timeout must be a whole number/);
    const noCommand = await call(`{ timeout: 100 }`, device());
    expect((noCommand.err as { message: string }).message).toContain("requires a 'command'");
  });

  it("the run's deadline, shorter than the call, ends it in time", async () => {
    const started = performance.now();
    const result = await runSource(host, probe(`{ command: 'slow', shellPrompt: 'pdu> ', loginPrompt: 'login:', timeout: 60000 }`), { device: device(), limits: { timeoutMs: 1500 } });
    expect(performance.now() - started).toBeLessThan(4000);
    expect(result.status).toBe('failure');
    expect(result.errorType).toBe('TIMEOUT_ERROR');
  });

  it('a callback that throws is the driver\'s uncaught error', async () => {
    const result = await runSource(host, `function get_status() {
      D.device.sendTelnetCommand({ command: 'show outlets', shellPrompt: 'pdu> ', loginPrompt: 'login:', timeout: 200 }, function () { throw new Error('parse failed'); });
    }`, { device: device() });
    expect(result.status).toBe('failure');
    expect(result.errorType).toBe('GENERIC_ERROR');
    expect(result.message).toContain('parse failed');
  });

  it("the run's end closes the connection; the transcript keeps the command, the password masked", async () => {
    const before = sim.telnet!.events.filter((e) => e.kind === 'close').length;
    const result = await runSource(host, `function get_status() {
      D.device.sendTelnetCommand({ command: 'slow', shellPrompt: 'pdu> ', loginPrompt: 'login:', username: 'ops', password: 'T3lnet!', timeout: 60000 }, function () {});
      D.device.http.get({ url: '/nothing' }, function () { D.success(); });
    }`, { device: device(), transcript: 'full' });
    expect(result.status).toBe('success');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sim.telnet!.events.filter((e) => e.kind === 'close').length).toBeGreaterThan(before);
    const exchange = result.http.find((e) => e.method === 'TELNET')!;
    expect(exchange.request?.body).toBe('slow');
    expect(JSON.stringify(result)).not.toContain('T3lnet!');
  });

  it('runs through `driverbox run` with the simulator\'s port map', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'driverbox-telnet-')), 'driver.js');
    writeFileSync(file, probe(`{ command: 'show outlets', shellPrompt: 'pdu> ', loginPrompt: 'login:', timeout: 200 }`));
    const portMap = Object.entries(sim.portMap).map(([from, to]) => `${from}=${to}`).join(',');
    const cli = await runCli(['run', file, '--device-ip', '127.0.0.1', '--port-map', portMap, '--username', 'ops', '--password', 'T3lnet!', '--json']);
    expect(cli.code, cli.stderr).toBe(0);
    const result = JSON.parse(cli.stdout) as { status: string; variables: Array<{ uid: string; value: string }> };
    expect(result.status).toBe('success');
    expect(JSON.parse(result.variables.find((v) => v.uid === 'out')!.value)).toContain('Outlet 2  OFF');
  });
});
