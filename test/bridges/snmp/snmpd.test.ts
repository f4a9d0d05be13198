// D.device.createSNMPSession against a real agent: Debian's snmpd, started by the test with
// a config of its own (test/helpers/snmpd.ts). get / walk / set, v2c and v3, the value
// conversions of the platform, a missing OID, timeouts (wrong community, nothing listening,
// the run's deadline), bounds, masking of communities and keys, a callback that throws.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceSpec, SnmpSettings } from '../../../host/contract/device.js';
import type { RunResult } from '../../../host/contract/run-result.js';
import { freeUdpPort, haveSnmpd, snmpdAuth, startSnmpd, type Snmpd } from '../../helpers/snmpd.js';
import { runSource, useHost } from '../../helpers/host.js';
import { runCli } from '../../helpers/cli.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const SYS_DESCR = '1.3.6.1.2.1.1.1.0';
const SYS_OBJECT_ID = '1.3.6.1.2.1.1.2.0';
const SYS_UPTIME = '1.3.6.1.2.1.1.3.0';
const SYS_CONTACT = '1.3.6.1.2.1.1.4.0';
const MISSING = '1.3.6.1.2.1.1.99.0';

const v2c: SnmpSettings = { version: 'v2c', community: snmpdAuth.readCommunity, writeCommunity: snmpdAuth.writeCommunity };
const v3: SnmpSettings = {
  version: 'v3',
  user: { name: snmpdAuth.user.name, level: 'authPriv', authProtocol: 'sha', authKey: snmpdAuth.user.authKey, privProtocol: 'aes', privKey: snmpdAuth.user.privKey },
};

/** A driver that hands what its callback got to the test as one JSON variable. */
function reporting(call: string): string {
  return `function get_status() {
    ${call}(function (output, error) {
      var text = JSON.stringify({
        output: output,
        error: error === null ? null : error === undefined ? 'undefined' : { name: error.name, message: error.message, code: error.code, status: error.status, isError: error instanceof Error },
      });
      var parts = [];
      for (var i = 0; i * 400 < text.length; i++) parts.push(D.createVariable('got' + i, 'Got', text.slice(i * 400, i * 400 + 400)));
      D.success(parts);
    });
  }`;
}

interface Got {
  output: Record<string, unknown> | null;
  error: { name: string; message: string; code?: string; status?: number; isError: boolean } | null;
}

function got(result: RunResult): Got {
  expect(result.status, JSON.stringify(result)).toBe('success');
  return JSON.parse(result.variables.filter((v) => v.uid.startsWith('got')).map((v) => v.value).join('')) as Got;
}

describe.skipIf(!haveSnmpd)('SNMP against snmpd', () => {
  const host = useHost({ limits: { timeoutMs: 20_000 } });
  let snmpd: Snmpd;
  let device: (snmp: SnmpSettings | null) => DeviceSpec;
  beforeAll(async () => {
    snmpd = await startSnmpd();
    device = (snmp) => ({ ip: '127.0.0.1', portMap: { 161: snmpd.port }, snmp });
  });
  afterAll(() => snmpd?.stop());

  it('get: sysDescr as text, sysObjectID and sysUpTime as strings, a missing OID as its own error', async () => {
    const result = await runSource(host, reporting(`D.device.createSNMPSession().get.bind(null, ${JSON.stringify([SYS_DESCR, SYS_OBJECT_ID, SYS_UPTIME, MISSING])})`), { device: device(v2c) });
    const { output, error } = got(result);
    expect(error).toBeNull();
    const cli = snmpd.tool('snmpget', ['-v2c', '-c', snmpdAuth.readCommunity, SYS_DESCR, SYS_OBJECT_ID]);
    expect(Object.keys(output!)).toEqual([SYS_DESCR, SYS_OBJECT_ID, SYS_UPTIME, MISSING]);
    expect(cli).toContain(`STRING: "${output![SYS_DESCR]}"`);
    expect(output![SYS_OBJECT_ID]).toBe('1.3.6.1.4.1.8072.3.2.10');
    expect(output![SYS_UPTIME]).toMatch(/^\d+$/);
    expect(output![MISSING]).toEqual({ error: `NoSuchObject: ${MISSING}` });
  });

  it('walk: the subtree in walk order, every OID snmpwalk lists, over several pages', async () => {
    const base = '1.3.6.1.2.1.1.9'; // sysORTable: tens of rows
    const result = await runSource(host, reporting(`D.device.createSNMPSession({ maxRepetitions: 5 }).walk.bind(null, '${base}')`), { device: device(v2c) });
    const { output, error } = got(result);
    expect(error).toBeNull();
    const expected = snmpd.tool('snmpwalk', ['-v2c', '-c', snmpdAuth.readCommunity, base]).trim().split('\n').map((line) => line.slice(1, line.indexOf(' = ')));
    expect(expected.length).toBeGreaterThan(20);
    expect(Object.keys(output!)).toEqual(expected);
    // sysORID values are OIDs, sysORUpTime TimeTicks: strings.
    expect(output![`${base}.1.2.1`]).toMatch(/^1\.3\.6\.1\./);
    expect(output![`${base}.1.4.1`]).toMatch(/^\d+$/);
    // the run's transcript: one exchange for the whole walk
    expect(result.http.filter((e) => e.method === 'SNMP')).toHaveLength(1);
  });

  it('set: sysContact with the write community; the agent keeps it', async () => {
    const contact = `ops-${Date.now()}@example.net`;
    const result = await runSource(host, reporting(`D.device.createSNMPSession().set.bind(null, '${SYS_CONTACT}', '${contact}')`), { device: device(v2c) });
    const { output, error } = got(result);
    expect(error).toBeNull();
    expect(output).toEqual({ [SYS_CONTACT]: contact });
    expect(snmpd.tool('snmpget', ['-v2c', '-c', snmpdAuth.readCommunity, SYS_CONTACT])).toContain(contact);
  });

  it('set with only the read-only community: the agent refuses it, output {}', async () => {
    const result = await runSource(host, reporting(`D.device.createSNMPSession().set.bind(null, '${SYS_CONTACT}', 'nope')`), { device: device({ version: 'v2c', community: snmpdAuth.readCommunity }) });
    const { output, error } = got(result);
    expect(output).toEqual({});
    expect(error).toMatchObject({ name: 'RequestFailedError', isError: true });
    expect(error!.message).toMatch(/^NoAccess: /);
  });

  it('v3 authPriv: get with the user, its SHA / AES keys', async () => {
    const result = await runSource(host, reporting(`D.device.createSNMPSession().get.bind(null, ['${SYS_DESCR}'])`), { device: device(v3) });
    const { output, error } = got(result);
    expect(error).toBeNull();
    expect(snmpd.tool('snmpget', ['-v2c', '-c', snmpdAuth.readCommunity, SYS_DESCR])).toContain(String(output![SYS_DESCR]));
  });

  it('v3 with a wrong key ends as an error, not a hang', async () => {
    const wrong: SnmpSettings = { version: 'v3', user: { ...v3.user!, authKey: 'not-the-right-key' } };
    const started = Date.now();
    const result = await runSource(host, reporting(`D.device.createSNMPSession({ timeout: 500 }).get.bind(null, ['${SYS_DESCR}'])`), { device: device(wrong) });
    const { output, error } = got(result);
    expect(output).toBeNull();
    expect(error).not.toBeNull();
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a wrong community is dropped by the agent: RequestTimedOutError after timeout × 2 (one retry)', async () => {
    const started = Date.now();
    const result = await runSource(host, reporting(`D.device.createSNMPSession({ timeout: 400 }).get.bind(null, ['${SYS_DESCR}'])`), { device: device({ version: 'v2c', community: 'not-the-community' }) });
    const elapsed = Date.now() - started;
    const { output, error } = got(result);
    expect(output).toBeNull();
    expect(error).toEqual({ name: 'RequestTimedOutError', message: 'Request timed out', isError: true });
    expect(elapsed).toBeGreaterThanOrEqual(790);
    expect(elapsed).toBeLessThan(4_000);
  });

  it('secrets: communities and v3 keys are masked in the verbose transcript', async () => {
    const result = await runSource(host, reporting(`D.device.createSNMPSession().get.bind(null, ['${SYS_DESCR}'])`), { device: device(v3), transcript: 'full' });
    got(result);
    const v2 = await runSource(host, reporting(`D.device.createSNMPSession().set.bind(null, '${SYS_CONTACT}', 'a ${snmpdAuth.readCommunity} b')`), { device: device(v2c), transcript: 'full' });
    // What the driver got is its own; the transcript and logs are what is shown and stored.
    const text = JSON.stringify([result.http, v2.http, result.logs, v2.logs]);
    for (const secret of [snmpdAuth.readCommunity, snmpdAuth.writeCommunity, snmpdAuth.user.authKey, snmpdAuth.user.privKey]) expect(text).not.toContain(secret);
    const exchange = v2.http.find((e) => e.method === 'SNMP')!;
    expect(exchange.url).toBe(`snmp://127.0.0.1:${snmpd.port}`);
    expect(exchange.request!.body).toContain(`SET ${SYS_CONTACT} OctetString`);
    expect(exchange.response!.body).toContain('***');
  });
});

describe.skipIf(!haveSnmpd)('driverbox run against snmpd', () => {
  let snmpd: Snmpd;
  beforeAll(async () => {
    snmpd = await startSnmpd();
  });
  afterAll(() => snmpd?.stop());

  it('--snmp-user / keys (v3 authPriv) and --snmp-write-community: get, walk and set; --verbose masks every key', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-snmpd-cli-'));
    writeFileSync(path.join(dir, 'driver.js'), `function get_status() {
      var s = D.device.createSNMPSession();
      s.get(['${SYS_DESCR}'], function (out, err) {
        if (err) return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
        s.walk('1.3.6.1.2.1.1.9.1.2', function (rows, err2) {
          if (err2) return D.failure(D.errorType.GENERIC_ERROR);
          D.success([D.createVariable('descr', 'Descr', out['${SYS_DESCR}'].slice(0, 40)), D.createVariable('rows', 'Rows', Object.keys(rows).length)]);
        });
      });
    }
    function custom_1() {
      D.device.createSNMPSession().set('${SYS_CONTACT}', 'cli@example.net', function (out, err) {
        if (err) { console.error(err.name + ': ' + err.message); return D.failure(D.errorType.GENERIC_ERROR); }
        D.success();
      });
    }`);
    const { user } = snmpdAuth;
    const base = ['run', 'driver.js', '--device-ip', '127.0.0.1', '--port-map', `161=${snmpd.port}`, '--verbose'];
    const v3 = await runCli([...base, '--snmp-version', '3', '--snmp-user', user.name, '--snmp-auth-protocol', 'sha', '--snmp-auth-key', user.authKey, '--snmp-priv-protocol', 'aes', '--snmp-priv-key', user.privKey], { cwd: dir });
    expect(v3.code, v3.stdout + v3.stderr).toBe(0);
    expect(v3.stdout).toMatch(/rows +Rows +\d+/);
    expect(v3.stdout).toContain(`> GET ${SYS_DESCR} (v3 user ${user.name} (authPriv))`);
    expect(v3.stdout + v3.stderr).not.toMatch(new RegExp(`${user.authKey}|${user.privKey}`));
    // set: the read community cannot, the write community can
    const readOnly = await runCli([...base, '--action', 'custom_1', '--snmp-community', snmpdAuth.readCommunity], { cwd: dir });
    expect(readOnly.code).toBe(1);
    expect(readOnly.stdout).toContain('RequestFailedError: NoAccess: 1.3.6.1.2.1.1.4.0');
    const write = await runCli([...base, '--action', 'custom_1', '--snmp-community', snmpdAuth.readCommunity, '--snmp-write-community', snmpdAuth.writeCommunity], { cwd: dir });
    expect(write.code, write.stdout).toBe(0);
    expect(snmpd.tool('snmpget', ['-v2c', '-c', snmpdAuth.readCommunity, SYS_CONTACT])).toContain('cli@example.net');
    expect(readOnly.stdout + write.stdout).not.toMatch(new RegExp(`${snmpdAuth.readCommunity}|${snmpdAuth.writeCommunity}`));
  });
});

describe.skipIf(!haveSnmpd)('SNMP failures and bounds', () => {
  const host = useHost({ limits: { timeoutMs: 20_000 } });
  let snmpd: Snmpd;
  beforeAll(async () => {
    snmpd = await startSnmpd();
  });
  afterAll(() => snmpd?.stop());

  it('nothing listening on the port: RequestTimedOutError within 2 × timeout', async () => {
    const port = await freeUdpPort();
    const started = Date.now();
    const result = await runSource(host, reporting(`D.device.createSNMPSession({ timeout: 300 }).walk.bind(null, '1.3.6.1.2.1.1')`), { device: { ip: '127.0.0.1', portMap: { 161: port } } });
    const { output, error } = got(result);
    expect(output).toEqual({});
    expect(error).toMatchObject({ name: 'RequestTimedOutError', message: 'Request timed out' });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('the run\'s deadline shorter than the SNMP timeout: TIMEOUT_ERROR on time', async () => {
    const port = await freeUdpPort();
    const started = Date.now();
    const result = await runSource(host, reporting(`D.device.createSNMPSession().get.bind(null, ['${SYS_DESCR}'])`), { device: { ip: '127.0.0.1', portMap: { 161: port } }, limits: { timeoutMs: 1_200 } });
    expect(result.status).toBe('failure');
    expect(result.errorType).toBe('TIMEOUT_ERROR');
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(result.http[0]).toMatchObject({ method: 'SNMP', error: 'ABORTED' });
  });

  it('a callback that throws is the driver\'s uncaught error (GENERIC_ERROR, the driver\'s line)', async () => {
    const source = `function get_status() {
      D.device.createSNMPSession().get(['${SYS_DESCR}'], function (output, error) {
        throw new Error('driver bug after ' + (error ? 'an error' : 'a value'));
      });
    }`;
    const result = await runSource(host, source, { device: { ip: '127.0.0.1', portMap: { 161: snmpd.port }, snmp: { version: 'v2c', community: snmpdAuth.readCommunity } } });
    expect(result.status).toBe('failure');
    expect(result.errorType).toBe('GENERIC_ERROR');
    expect(result.message).toContain('driver bug after a value');
    expect(result.message).toContain('driver.js:3');
  });

  it('bad options reach the callback as INVALID_OPTIONS; nothing is sent', async () => {
    const device = { ip: '127.0.0.1', portMap: { 161: snmpd.port } };
    const cases: Array<[string, RegExp]> = [
      [`D.device.createSNMPSession().get.bind(null, ['not.an.oid'])`, /oids\[0\] is not a numeric OID/],
      [`D.device.createSNMPSession().get.bind(null, [])`, /get needs a list of OIDs/],
      [`D.device.createSNMPSession({ port: 'x' }).get.bind(null, ['${SYS_DESCR}'])`, /port must be an integer/],
      [`D.device.createSNMPSession({ timeout: -1 }).walk.bind(null, '1.3.6')`, /timeout must be an integer/],
      [`D.device.createSNMPSession().set.bind(null, '${SYS_CONTACT}', { a: 1 })`, /value must be a string .* or an integer/],
      [`D.device.createSNMPSession().set.bind(null, '${SYS_CONTACT}', 1.5)`, /Integer32/],
    ];
    for (const [call, message] of cases) {
      const result = await runSource(host, reporting(call), { device });
      const { error } = got(result);
      expect(error, call).toMatchObject({ name: 'Error', code: 'INVALID_OPTIONS', isError: true });
      expect(error!.message, call).toMatch(message);
      expect(result.http.filter((e) => e.method === 'SNMP'), call).toHaveLength(0);
    }
  });

  it('a walk past the run\'s output bound stops with OUTPUT_TOO_LARGE and what it had', async () => {
    const result = await runSource(host, reporting(`D.device.createSNMPSession().walk.bind(null, '1.3.6.1.2.1.1')`), {
      device: { ip: '127.0.0.1', portMap: { 161: snmpd.port }, snmp: { version: 'v2c', community: snmpdAuth.readCommunity } },
      limits: { maxOutputBytes: 600 },
    });
    const { output, error } = got(result);
    expect(error).toMatchObject({ code: 'OUTPUT_TOO_LARGE' });
    expect(Object.keys(output!).length).toBeGreaterThan(0);
    expect(JSON.stringify(output).length).toBeLessThanOrEqual(600);
  });

  it('requests count against maxProtocolCommands; many sessions with the same options are one session', async () => {
    const source = `function get_status() {
      var n = 0, errors = [];
      function next() {
        if (n === 40) return D.success([D.createVariable('got', 'Got', JSON.stringify(errors))]);
        n++;
        D.device.createSNMPSession().get(['${SYS_DESCR}'], function (out, err) { if (err) errors.push(n + ':' + err.code); next(); });
      }
      next();
    }`;
    const result = await runSource(host, source, {
      device: { ip: '127.0.0.1', portMap: { 161: snmpd.port }, snmp: { version: 'v2c', community: snmpdAuth.readCommunity } },
      limits: { maxProtocolCommands: 35, maxProtocolSessions: 1 },
    });
    expect(JSON.parse(result.variables[0]!.value!)).toEqual(['36:TOO_MANY_COMMANDS', '37:TOO_MANY_COMMANDS', '38:TOO_MANY_COMMANDS', '39:TOO_MANY_COMMANDS', '40:TOO_MANY_COMMANDS']);
  });
});
