// The simulated SNMP agent of a fixture's "snmp" section (host/simulator/snmp/), driven by
// D.device.createSNMPSession through createHost().run and `driverbox run`: typed values and
// their conversions, walk order, set on writable OIDs only, communities and v3 users, and the
// fixture's checks.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FixtureSpec } from '../../host/simulator/fixture-types.js';
import { parseFixture } from '../../host/simulator/parse-fixture.js';
import { startSimulator, type Simulator } from '../../host/simulator/simulator.js';
import { runCli } from '../helpers/cli.js';
import { runSource, useHost } from '../helpers/host.js';

const fixture: FixtureSpec = {
  fixture: 1,
  description: 'an SNMP test device',
  routes: [],
  snmp: {
    community: 'sim-read',
    writeCommunity: 'sim-write',
    v3Users: [{ name: 'simops', authProtocol: 'sha256', authKey: 'sim-auth-key', privProtocol: 'aes', privKey: 'sim-priv-key' }],
    oids: {
      // listed out of order: walks answer in OID order
      '1.3.6.1.2.1.2.2.1.10.2': { type: 'Counter32', value: 2000 },
      '1.3.6.1.2.1.2.2.1.10.10': { type: 'Counter32', value: 10000 },
      '1.3.6.1.2.1.2.2.1.10.1': { type: 'Counter32', value: 1000 },
      '1.3.6.1.2.1.1.1.0': 'Simulated UPS 3000',
      '1.3.6.1.2.1.1.2.0': { type: 'OID', value: '1.3.6.1.4.1.318.1.3.27' },
      '1.3.6.1.2.1.1.3.0': { type: 'TimeTicks', value: 123456 },
      '1.3.6.1.2.1.1.4.0': { type: 'OctetString', value: 'nobody', writable: true },
      '1.3.6.1.2.1.1.7.0': 72,
      '1.3.6.1.2.1.4.20.1.1.10.0.0.5': { type: 'IpAddress', value: '10.0.0.5' },
      '1.3.6.1.2.1.31.1.1.1.6.1': { type: 'Counter64', value: '1099511627781' },
      '1.3.6.1.2.1.25.2.2.0': { type: 'Gauge32', value: 4096 },
      '1.3.6.1.4.1.99.1.0': { type: 'Opaque', hex: '0102' },
      '1.3.6.1.4.1.99.3.0': { type: 'OctetString', hex: '00:1a:2b:3c:4d:5e' },
    },
  },
};

function reporting(call: string): string {
  return `function get_status() {
    ${call}(function (output, error) {
      var text = JSON.stringify({ output: output, error: error && { name: error.name, message: error.message, code: error.code } });
      var parts = [];
      for (var i = 0; i * 400 < text.length; i++) parts.push(D.createVariable('got' + i, 'Got', text.slice(i * 400, i * 400 + 400)));
      D.success(parts);
    });
  }`;
}
const got = (result: { variables: Array<{ uid: string; value: string | null }> }) =>
  JSON.parse(result.variables.filter((v) => v.uid.startsWith('got')).map((v) => v.value).join('')) as { output: Record<string, unknown> | null; error: { name: string; message: string; code?: string } | null };

describe('the SNMP simulator', () => {
  const host = useHost({ limits: { timeoutMs: 10_000 } });
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator(fixture);
  });
  afterAll(() => sim?.close());

  it('serves on a UDP port of its own, mapped from the device port 161, with the fixture\'s community', () => {
    expect(sim.snmpPort).toBeGreaterThan(0);
    expect(sim.portMap[161]).toBe(sim.snmpPort);
    expect(sim.device.snmp).toEqual({ version: 'v2c', community: 'sim-read', writeCommunity: 'sim-write' });
  });

  it('get: every type converted as the platform does; missing objects and instances', async () => {
    const oids = Object.keys(fixture.snmp!.oids).concat(['1.3.6.1.2.1.1.99.0', '1.3.6.1.2.1.2.2.1.10.3']);
    const { output, error } = got(await runSource(host, reporting(`D.device.createSNMPSession().get.bind(null, ${JSON.stringify(oids)})`), { device: sim.device }));
    expect(error).toBeNull();
    expect(output).toEqual({
      '1.3.6.1.2.1.2.2.1.10.2': '2000',
      '1.3.6.1.2.1.2.2.1.10.10': '10000',
      '1.3.6.1.2.1.2.2.1.10.1': '1000',
      '1.3.6.1.2.1.1.1.0': 'Simulated UPS 3000',
      '1.3.6.1.2.1.1.2.0': '1.3.6.1.4.1.318.1.3.27',
      '1.3.6.1.2.1.1.3.0': '123456',
      '1.3.6.1.2.1.1.4.0': 'nobody',
      '1.3.6.1.2.1.1.7.0': '72',
      '1.3.6.1.2.1.4.20.1.1.10.0.0.5': '10.0.0.5',
      '1.3.6.1.2.1.31.1.1.1.6.1': 1099511627781,
      '1.3.6.1.2.1.25.2.2.0': '4096',
      '1.3.6.1.4.1.99.1.0': 258,
      '1.3.6.1.4.1.99.3.0': Buffer.from('001a2b3c4d5e', 'hex').toString('utf8'),
      '1.3.6.1.2.1.1.99.0': { error: 'NoSuchObject: 1.3.6.1.2.1.1.99.0' },
      '1.3.6.1.2.1.2.2.1.10.3': { error: 'NoSuchInstance: 1.3.6.1.2.1.2.2.1.10.3' },
    });
  });

  it('walk: OID order (10 after 2), only the subtree', async () => {
    const { output, error } = got(await runSource(host, reporting(`D.device.createSNMPSession({ maxRepetitions: 2 }).walk.bind(null, '1.3.6.1.2.1.2.2.1.10')`), { device: sim.device }));
    expect(error).toBeNull();
    expect(Object.entries(output!)).toEqual([
      ['1.3.6.1.2.1.2.2.1.10.1', '1000'],
      ['1.3.6.1.2.1.2.2.1.10.2', '2000'],
      ['1.3.6.1.2.1.2.2.1.10.10', '10000'],
    ]);
    const all = got(await runSource(host, reporting(`D.device.createSNMPSession().walk.bind(null, '1.3.6.1')`), { device: sim.device }));
    expect(Object.keys(all.output!)).toHaveLength(Object.keys(fixture.snmp!.oids).length);
  });

  it('walk under an OID with nothing: {} and no error; v1 walks with getNext', async () => {
    const empty = got(await runSource(host, reporting(`D.device.createSNMPSession().walk.bind(null, '1.3.6.1.2.1.55')`), { device: sim.device }));
    expect(empty).toEqual({ output: {}, error: null });
    const v1 = got(await runSource(host, reporting(`D.device.createSNMPSession().walk.bind(null, '1.3.6.1.2.1.2.2.1.10')`), { device: { ...sim.device, snmp: { version: 'v1', community: 'sim-read' } } }));
    expect(Object.keys(v1.output!)).toEqual(['1.3.6.1.2.1.2.2.1.10.1', '1.3.6.1.2.1.2.2.1.10.2', '1.3.6.1.2.1.2.2.1.10.10']);
  });

  it('set: a writable OID with the write community; others refused', async () => {
    const set = got(await runSource(host, reporting(`D.device.createSNMPSession().set.bind(null, '1.3.6.1.2.1.1.4.0', 'ops@example.net')`), { device: sim.device }));
    expect(set).toEqual({ output: { '1.3.6.1.2.1.1.4.0': 'ops@example.net' }, error: null });
    const after = got(await runSource(host, reporting(`D.device.createSNMPSession().get.bind(null, ['1.3.6.1.2.1.1.4.0'])`), { device: sim.device }));
    expect(after.output).toEqual({ '1.3.6.1.2.1.1.4.0': 'ops@example.net' });
    const readOnly = got(await runSource(host, reporting(`D.device.createSNMPSession().set.bind(null, '1.3.6.1.2.1.1.1.0', 'x')`), { device: sim.device }));
    expect(readOnly).toEqual({ output: {}, error: { name: 'RequestFailedError', message: 'NotWritable: 1.3.6.1.2.1.1.1.0' } });
    const wrongType = got(await runSource(host, reporting(`D.device.createSNMPSession().set.bind(null, '1.3.6.1.2.1.1.4.0', 5)`), { device: sim.device }));
    expect(wrongType.error).toMatchObject({ name: 'RequestFailedError' });
    const readCommunity = got(await runSource(host, reporting(`D.device.createSNMPSession().set.bind(null, '1.3.6.1.2.1.1.4.0', 'y')`), { device: { ...sim.device, snmp: { version: 'v2c', community: 'sim-read' } } }));
    expect(readCommunity.error).toMatchObject({ name: 'RequestFailedError', message: 'NoAccess: 1.3.6.1.2.1.1.4.0' });
  });

  it('v3 user with SHA-256 / AES; a wrong community times out', async () => {
    const v3 = got(await runSource(host, reporting(`D.device.createSNMPSession().get.bind(null, ['1.3.6.1.2.1.1.1.0'])`), {
      device: { ...sim.device, snmp: { version: 'v3', user: { name: 'simops', level: 'authPriv', authProtocol: 'sha256', authKey: 'sim-auth-key', privProtocol: 'aes', privKey: 'sim-priv-key' } } },
    }));
    expect(v3).toEqual({ output: { '1.3.6.1.2.1.1.1.0': 'Simulated UPS 3000' }, error: null });
    const wrong = got(await runSource(host, reporting(`D.device.createSNMPSession({ timeout: 200 }).get.bind(null, ['1.3.6.1.2.1.1.1.0'])`), { device: { ...sim.device, snmp: { version: 'v2c', community: 'public' } } }));
    expect(wrong).toEqual({ output: null, error: { name: 'RequestTimedOutError', message: 'Request timed out' } });
  });

  it('driverbox run with --snmp-community / --snmp-version, and the flags\' usage errors', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-snmp-cli-'));
    writeFileSync(path.join(dir, 'driver.js'), reporting(`D.device.createSNMPSession().get.bind(null, ['1.3.6.1.2.1.1.1.0'])`));
    const base = ['run', 'driver.js', '--device-ip', '127.0.0.1', '--port-map', `161=${sim.snmpPort}`, '--json', '--verbose'];
    const ok = await runCli([...base, '--snmp-version', '2c', '--snmp-community', 'sim-read'], { cwd: dir });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('Simulated UPS 3000');
    expect(ok.stdout).not.toContain('sim-read');
    const fromEnv = await runCli(base, { cwd: dir, env: { DEVICE_SNMP_READ_COMMUNITY: 'sim-read' } });
    expect(fromEnv.code).toBe(0);
    const v3 = await runCli([...base, '--snmp-user', 'simops', '--snmp-auth-protocol', 'sha256', '--snmp-auth-key', 'sim-auth-key', '--snmp-priv-key', 'sim-priv-key'], { cwd: dir });
    expect(v3.code).toBe(0);
    expect(v3.stdout).toContain('Simulated UPS 3000');
    expect(v3.stdout).not.toMatch(/sim-auth-key|sim-priv-key/);
    const bad = async (args: string[]) => runCli([...base, ...args], { cwd: dir }).catch((error: Error) => ({ code: 2, stdout: '', stderr: error.message }));
    for (const [args, message] of [
      [['--snmp-version', '4'], /--snmp-version must be 1, 2c or 3/],
      [['--snmp-version', '2c', '--snmp-user', 'x'], /--snmp-user is for SNMP v3 only/],
      [['--snmp-version', '3'], /--snmp-user is required for SNMP v3/],
      [['--snmp-user', 'x', '--snmp-auth-key', 'short'], /--snmp-auth-key must have at least 8 characters/],
      [['--snmp-user', 'x', '--snmp-priv-key', 'long-enough'], /--snmp-auth-key is required with privKey/],
      [['--snmp-user', 'x', '--snmp-auth-key', 'long-enough', '--snmp-auth-protocol', 'sha1024'], /--snmp-auth-protocol must be one of md5, sha/],
      [['--snmp-user', 'x', '--snmp-community', 'c'], /--snmp-community is for SNMP v1 \/ v2c only/],
    ] as Array<[string[], RegExp]>) {
      const outcome = await bad(args);
      expect(outcome.code, args.join(' ')).toBe(2);
      expect(outcome.stdout + outcome.stderr, args.join(' ')).toMatch(message);
    }
  });
});

describe('the fixture\'s snmp section', () => {
  const problems = (snmp: unknown): string => {
    try {
      parseFixture({ fixture: 1, snmp });
      return '';
    } catch (error) {
      return (error as Error).message;
    }
  };

  it('needs no HTTP routes', () => {
    expect(parseFixture({ fixture: 1, snmp: { oids: { '1.3.6.1.2.1.1.1.0': 'x' } } }).snmp).toMatchObject({ port: 161, community: 'public', writeCommunity: null });
  });

  it('names every problem by its field', () => {
    expect(problems({ oids: { 'abc': 'x' } })).toContain('snmp.oids.abc: the key must be a numeric OID');
    expect(problems({ oids: { '1.3.6.1.2.1.1.1.0': { type: 'Float', value: 1 } } })).toMatch(/snmp\.oids\["1\.3\.6\.1\.2\.1\.1\.1\.0"\]\.type: .*OctetString/);
    expect(problems({ oids: { '1.3.6.1.2.1.1.3.0': { type: 'TimeTicks', value: -1 } } })).toContain('.value');
    expect(problems({ oids: { '1.3.6.1.2.1.1.1': 'a', '1.3.6.1.2.1.1.1.0': 'b' } })).toContain('is under 1.3.6.1.2.1.1.1, which has a value itself');
    expect(problems({ oids: { '1.3.6.1.2.1.1.1.0': 'a' }, v3Users: [{ name: 'u', authKey: 'short' }] })).toContain('snmp.v3Users[0].authKey: must have at least 8 characters');
    expect(problems({ oids: { '1.3.6.1.2.1.1.1.0': 'a' }, comunity: 'x' })).toContain('comunity');
    expect(problems({ oids: {} })).toContain('snmp.oids: must hold at least one OID');
  });
});

describe('driverbox simulate with an snmp section', () => {
  it('prints the agent and a run line that reaches it, then logs each request', async () => {
    const { spawn } = await import('node:child_process');
    const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-snmp-simulate-'));
    writeFileSync(path.join(dir, 'device.json'), JSON.stringify(fixture));
    writeFileSync(path.join(dir, 'driver.js'), reporting(`D.device.createSNMPSession().get.bind(null, ['1.3.6.1.2.1.1.1.0'])`));
    const proc = spawn(process.execPath, [path.resolve('bin/driverbox.js'), 'simulate', 'device.json'], { cwd: dir, env: { PATH: process.env.PATH } });
    let stdout = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no banner: ${stdout}`)), 20_000);
        proc.stdout.on('data', () => stdout.includes('Ctrl-C to stop') && (clearTimeout(timer), resolve()));
      });
      expect(stdout).toMatch(/ {2}snmp {3}udp:\/\/127\.0\.0\.1:\d+ {3}device port 161; community "sim-read" \(read-only\), write community "sim-write", v3 user simops \(authPriv\); 13 OIDs, 1 writable/);
      const line = /driverbox run (driver\.js .*)/.exec(stdout)![1]!;
      expect(line).toContain('--snmp-community sim-read --snmp-write-community sim-write');
      const args = line.split(' ');
      const run = await runCli(['run', ...args, '--json'], { cwd: dir });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('Simulated UPS 3000');
      await new Promise((r) => setTimeout(r, 200));
      expect(stdout).toMatch(/#s1 snmp {2}GetRequest 1\.3\.6\.1\.2\.1\.1\.1\.0 {2}by community sim-read/);
    } finally {
      proc.kill('SIGTERM');
    }
  });
});
