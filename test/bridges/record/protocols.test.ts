// Record / replay of the protocol modules' calls (issue 18 item 9): the wire hook of the real
// Recorder and Replayer with a real file, calls answered by perform functions of this test;
// and end to end through createHost().run and the CLI with --record / --replay.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DriverboxError } from '../../../host/index.js';
import type { ProtocolAnswer } from '../../../runtime/protocol.js';
import { loadRecording } from '../../../host/bridges/record/load.js';
import { Recorder } from '../../../host/bridges/record/recorder.js';
import { Replayer, REPLAY_MISS } from '../../../host/bridges/record/replayer.js';
import type { RecordingFile } from '../../../host/contract/recording.js';
import type { RunResult } from '../../../host/contract/run-result.js';
import { runCli } from '../../helpers/cli.js';
import { runSource, useHost } from '../../helpers/host.js';

const PASSWORD = 'hunter2-secret';
const COMMUNITY = 'c0mmunity-private';
const AUTH_KEY = 'v3-auth-key-123';
const device = { ip: '10.0.0.5', username: 'admin', password: PASSWORD, snmp: { version: 'v2c' as const, community: COMMUNITY } };
const finished = { status: 'success', errorType: null, http: [] } as unknown as RunResult;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'driverbox-record-protocols-'));
});

const answer = (result: unknown): Promise<ProtocolAnswer> => Promise.resolve({ error: null, result });

/** Records the calls `script` makes through the recorder's wire, writes the file, and returns it parsed. */
async function record(name: string, script: (wire: Recorder['wire'], signal: AbortSignal, abort: () => void) => Promise<void>): Promise<{ file: string; text: string; recording: RecordingFile }> {
  const file = path.join(dir, name);
  const recorder = await Recorder.open(file, { driver: 'd.js', action: 'get_status', device });
  const controller = new AbortController();
  await script(recorder.wire, controller.signal, () => controller.abort());
  expect(await recorder.finish(finished)).toBeNull();
  const text = await readFile(file, 'utf8');
  return { file, text, recording: await loadRecording(file) };
}

describe('the recorder keeps protocol calls, redacted', () => {
  let text: string;
  let recording: RecordingFile;
  beforeAll(async () => {
    ({ text, recording } = await record('redacted.json', async (wire, signal) => {
      await wire.protocol('ssh', 'ssh://10.0.0.5', { command: `echo ${PASSWORD} | sudo -S id`, username: 'admin', password: PASSWORD, timeout: 2000 }, () => answer(`[sudo] password for admin: ${PASSWORD}\nuid=0(root)`), signal);
      await wire.protocol('snmp', 'snmp://10.0.0.5', { op: 'get', oids: ['1.3.6.1.2.1.1.5.0'] }, () => Promise.resolve({ error: { code: 'RequestTimedOutError', message: `no answer with community ${COMMUNITY}` } }), signal);
      await wire.protocol('snmp', 'snmp://10.0.0.5', { op: 'walk', oid: '1.3.6', authKey: AUTH_KEY, privKey: 'another-private-key', community: 'x' }, () => answer({ '1.3.6.1': 'up' }), signal);
      await wire.protocol('telnet', 'telnet://10.0.0.5', { command: 'show ver', passwordPrompt: 'Password:' }, () => answer('ok'), signal);
    }));
  });

  it('one exchange per call, of the module\'s kind, with its url, options and answer', () => {
    expect(recording.exchanges.map((e) => `${e.kind} ${e.url}`)).toEqual(['ssh ssh://10.0.0.5', 'snmp snmp://10.0.0.5', 'snmp snmp://10.0.0.5', 'telnet telnet://10.0.0.5']);
    expect(recording.exchanges[0]).toEqual({
      kind: 'ssh',
      url: 'ssh://10.0.0.5',
      request: { command: 'echo *** | sudo -S id', username: 'admin', password: '***', timeout: 2000 },
      answer: { error: null, result: '[sudo] password for admin: ***\nuid=0(root)' },
    });
  });

  it('secret options are masked whatever their value; the device\'s community and every secret are masked in answers', () => {
    expect(recording.exchanges[1]).toMatchObject({ answer: { error: { code: 'RequestTimedOutError', message: 'no answer with community ***' } } });
    expect(recording.exchanges[2]).toMatchObject({ request: { op: 'walk', oid: '1.3.6', authKey: '***', privKey: '***', community: '***' } });
    // A prompt option's name contains "password" but it holds no secret.
    expect(recording.exchanges[3]).toMatchObject({ request: { command: 'show ver', passwordPrompt: 'Password:' } });
    for (const secret of [PASSWORD, COMMUNITY, AUTH_KEY, 'another-private-key']) expect(text).not.toContain(secret);
  });
});

describe('replay answers protocol calls from the recording', () => {
  let recording: RecordingFile;
  beforeAll(async () => {
    ({ recording } = await record('replay.json', async (wire, signal) => {
      let n = 0;
      const counter = () => answer(`count ${++n}`);
      await wire.protocol('ssh', 'ssh://10.0.0.5', { command: 'cat /proc/uptime', port: 22, timeout: 1000 }, () => answer('12.5 10.0'), signal);
      await wire.protocol('ssh', 'ssh://10.0.0.5', { command: 'counter' }, counter, signal);
      await wire.protocol('ssh', 'ssh://10.0.0.5', { command: 'counter' }, counter, signal);
      await wire.protocol('sshShell', 'sshshell://10.0.0.5', { commands: ['terminal length 0', 'show version'], password: PASSWORD }, () => answer(['a', 'b']), signal);
      await wire.protocol('winrm', 'winrm://10.0.0.5', { command: 'hostname', username: 'admin', password: PASSWORD }, () => Promise.resolve({ error: { code: 'HTTP_ERROR', message: 'status 401', status: 401 } }), signal);
    }));
  });

  const replayer = (given = {}) => {
    const r = new Replayer(recording);
    r.device(given);
    return r;
  };
  const never = () => {
    throw new Error('a replay must not perform a call');
  };
  const signal = new AbortController().signal;

  it('matches on module, url and options in any key order, ignoring timing options; performs nothing', async () => {
    const r = replayer();
    expect(await r.wire.protocol('ssh', 'ssh://10.0.0.5', { timeout: 9000, port: 22, command: 'cat /proc/uptime' }, never, signal)).toEqual({ error: null, result: '12.5 10.0' });
    // The stand-in password (the replay device's) redacts to what was recorded; so does the real one given again.
    expect(await r.wire.protocol('sshShell', 'sshshell://10.0.0.5', { password: '***', commands: ['terminal length 0', 'show version'] }, never, signal)).toEqual({ error: null, result: ['a', 'b'] });
    const withPassword = replayer({ password: PASSWORD });
    expect(await withPassword.wire.protocol('winrm', 'winrm://10.0.0.5', { command: 'hostname', username: 'admin', password: PASSWORD }, never, signal)).toEqual({
      error: { code: 'HTTP_ERROR', message: 'status 401', status: 401 },
    });
  });

  it('identical calls get the recorded answers in order; one more is a miss that says so', async () => {
    const r = replayer();
    const call = () => r.wire.protocol('ssh', 'ssh://10.0.0.5', { command: 'counter' }, never, signal);
    expect((await call()).result).toBe('count 1');
    expect((await call()).result).toBe('count 2');
    const third = await call();
    expect(third.error).toEqual({ code: REPLAY_MISS, message: 'replay: ssh ssh://10.0.0.5 {"command":"counter"} was recorded 2 times and every recorded answer was already used' });
    expect(r.warnings()).toContain('replay: 1 request had no recorded answer (REPLAY_MISS, see the HTTP exchanges)');
  });

  it('a call not recorded is a REPLAY_MISS naming the closest recorded calls and what differs', async () => {
    const r = replayer();
    const missed = await r.wire.protocol('ssh', 'ssh://10.0.0.5', { command: 'cat /proc/loadavg', port: 22 }, never, signal);
    expect(missed.error?.code).toBe(REPLAY_MISS);
    expect(missed.error?.message).toBe(
      'replay: no recorded answer for ssh ssh://10.0.0.5 {"command":"cat /proc/loadavg","port":22}; closest recorded: ' +
        'ssh ssh://10.0.0.5 {"command":"cat /proc/uptime","port":22}, differs in options.command; ' +
        'ssh ssh://10.0.0.5 {"command":"counter"}, differs in options.command and options.port; ' +
        'sshShell sshshell://10.0.0.5 {"commands":["terminal length 0","show version"],"password":"***"}, differs in module and url and options.command and options.port and options.commands and options.password',
    );
  });

  it('recorded calls never asked for are named in the warnings', () => {
    const r = replayer();
    expect(r.warnings().join('\n')).toMatch(/5 recorded exchanges were never asked for: ssh ssh:\/\/10\.0\.0\.5 \{"command":"cat \/proc\/uptime","port":22\}/);
  });
});

describe('calls the run ended before', () => {
  it('are recorded unanswered, and replay leaves them unanswered until the run ends', async () => {
    const { recording } = await record('unanswered.json', async (wire, signal, abort) => {
      void wire.protocol('ssh', 'ssh://10.0.0.5', { command: 'sleep 100' }, () => new Promise(() => {}), signal);
      // Answered only after the run ended (its signal aborted): not the device's answer.
      const late = wire.protocol('telnet', 'telnet://10.0.0.5', { command: 'late' }, () => new Promise((resolve) => setTimeout(() => resolve({ error: { code: 'ABORTED', message: 'run ended' } }), 20)), signal);
      abort();
      await late;
    });
    expect(recording.exchanges).toEqual([
      { kind: 'ssh', url: 'ssh://10.0.0.5', request: { command: 'sleep 100' }, unanswered: true },
      { kind: 'telnet', url: 'telnet://10.0.0.5', request: { command: 'late' }, unanswered: true },
    ]);
    const r = new Replayer(recording);
    r.device({});
    const controller = new AbortController();
    let settled: ProtocolAnswer | null = null;
    const pending = r.wire.protocol('ssh', 'ssh://10.0.0.5', { command: 'sleep 100' }, () => Promise.reject(new Error('performed')), controller.signal).then((a) => (settled = a));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled).toBeNull();
    controller.abort();
    await pending;
    expect(settled).toEqual({ error: { code: 'ABORTED', message: 'ssh on ssh://10.0.0.5: the run ended before the answer' } });
  });
});

describe('reading a recording with protocol kinds', () => {
  const base = { recording: 1, action: 'get_status', device: { ip: '10.0.0.5', host: null, username: null, hasPassword: false, portMap: {} } };
  it('a kind this driverbox does not know is refused, naming it (a newer recording is never half replayed)', async () => {
    const error = await loadRecording({ ...base, exchanges: [{ kind: 'ftp', url: 'ftp://10.0.0.5', request: {}, answer: { error: null } }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DriverboxError);
    expect((error as DriverboxError).code).toBe('REPLAY_MALFORMED');
    expect((error as Error).message).toMatch(/exchanges\[0\]\.kind must be one of "http", "tls", "ssh", "sshShell", "telnet", "snmp", "winrm", "tftp" \(a kind this driverbox does not know: was the recording made by a newer one\?\) \(got "ftp"\)/);
  });
  it.each([
    [{ kind: 'ssh', url: 'http://10.0.0.5', request: {}, answer: { error: null } }, /exchanges\[0\]\.url must be a ssh: or sshshell: or telnet: or snmp: or winrm: or tftp: url/],
    [{ kind: 'ssh', url: 'ssh://10.0.0.5', request: 'uptime', answer: { error: null } }, /exchanges\[0\]\.request must be an object/],
    [{ kind: 'ssh', url: 'ssh://10.0.0.5', request: {}, answer: { error: null }, unanswered: true }, /exchanges\[0\] must be one of "answer", "unanswered"/],
    [{ kind: 'snmp', url: 'snmp://10.0.0.5', request: {}, answer: { error: { code: 1 } } }, /exchanges\[0\]\.answer\.error\.code must be a string/],
  ])('a damaged protocol exchange is refused, naming the field (%#)', async (entry, message) => {
    await expect(loadRecording({ ...base, exchanges: [entry] })).rejects.toThrow(message);
  });
});

// End to end: the protocol handlers on this branch answer NOT_SUPPORTED, a real answer the
// driver's callback gets; it is recorded and replayed like any other.
const SSH_DRIVER = `
function validate() { D.success(); }
function get_status() {
  D.device.sendSSHCommand({ command: 'echo ' + D.device.password(), password: D.device.password(), timeout: 1000 }, function (out, err) {
    if (err) { console.error('ssh: ' + err.code + ': ' + err.message); return D.failure(D.errorType.GENERIC_ERROR); }
    D.success([D.createVariable('out', 'out', out)]);
  });
}`;

describe('end to end', () => {
  const host = useHost();

  it('createHost().run records an SSH call and replays it with no device and no password', async () => {
    const file = path.join(dir, 'e2e.json');
    const recorded = await runSource(host, SSH_DRIVER, { device: { ip: '127.0.0.1', password: PASSWORD }, record: file });
    // On this branch the SSH handler answers NOT_SUPPORTED; once built, a refused connection (no sshd on
    // 127.0.0.1:22). Either is a real answer, recorded and replayed the same way.
    expect(recorded.logs.map((l) => l.message)).toEqual([expect.stringMatching(/^ssh: \S+: /)]);
    const code = /^ssh: (\S+):/.exec(recorded.logs[0]!.message)![1];
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(PASSWORD);
    expect(JSON.parse(text).exchanges).toEqual([
      { kind: 'ssh', url: 'ssh://127.0.0.1', request: { command: 'echo ***', password: '***', timeout: 1000 }, answer: { error: expect.objectContaining({ code, message: expect.any(String) }) } },
    ]);
    const replayed = await runSource(host, SSH_DRIVER, { replay: file, transcript: 'full' });
    expect(replayed.status).toBe(recorded.status);
    expect(replayed.errorType).toBe(recorded.errorType);
    expect(replayed.logs).toEqual(recorded.logs);
    expect(replayed.warnings).toEqual([]);
    // The replayed call is in the transcript, as the handler's own exchange would be.
    expect(replayed.http.map((h) => `${h.method} ${h.url} ${h.error}`)).toEqual([`SSH ssh://127.0.0.1 ${code}`]);
    expect(replayed.http[0]!.request?.body).toBe('echo ***');
  });

  it('a driver that changed its command gets REPLAY_MISS through its callback', async () => {
    const file = path.join(dir, 'e2e.json');
    const changed = SSH_DRIVER.replace("'echo '", "'printf '");
    const replayed = await runSource(host, changed, { replay: file });
    expect(replayed.logs[0]!.message).toMatch(/^ssh: REPLAY_MISS: replay: no recorded answer for ssh ssh:\/\/127\.0\.0\.1 \{"command":"printf \*\*\*","password":"\*\*\*"\}; closest recorded: .* differs in options\.command$/);
    expect(replayed.warnings).toContain('replay: 1 request had no recorded answer (REPLAY_MISS, see the HTTP exchanges)');
  });

  it('the CLI: --record then --replay', async () => {
    const driver = path.join(dir, 'ssh-cli.js');
    const file = path.join(dir, 'cli.json');
    await writeFile(driver, SSH_DRIVER);
    const rec = await runCli(['run', driver, '--device-ip', '127.0.0.1', '--password', PASSWORD, '--record', file, '--json']);
    expect(rec.stderr).toContain(`recorded to ${file}`);
    const rep = await runCli(['run', driver, '--replay', file, '--json']);
    expect(JSON.parse(rep.stdout).logs).toEqual(JSON.parse(rec.stdout).logs);
    expect(await readFile(file, 'utf8')).not.toContain(PASSWORD);
  });
});
