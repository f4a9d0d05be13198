// scripts/compat-scan.mjs and scripts/corpus-check.mjs on folders of drivers written here and on
// our example drivers: what they count and how they sort outcomes.
import { execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runSource, useHost } from './helpers/host.js';

const run = (script: string, args: string[]) => promisify(execFile)(process.execPath, [path.resolve('scripts', script), ...args], { timeout: 120_000 });

const folder = mkdtempSync(path.join(tmpdir(), 'driverbox-corpus-'));
mkdirSync(path.join(folder, 'ssh'));
writeFileSync(path.join(folder, 'ssh', 'uptime.js'), `function validate() { D.device.sendSSHCommand({ command: 'uptime' }, function (out, err) { if (err) return D.failure(D.errorType.GENERIC_ERROR); D.success(); }); }\nfunction get_status() { validate(); }\n`);
writeFileSync(path.join(folder, 'web.js'), `function validate() { D.device.http.get({ url: '/' }, function (err) { if (err) { console.error(err.message); return D.failure(D.errorType.RESOURCE_UNAVAILABLE); } D.success(); }); }\nfunction get_status() { setTimeout(validate, 1); }\n`);
writeFileSync(path.join(folder, 'odd.js'), `function validate() { D.device.sendSFTP({}); }\nfunction get_status() { Buffer.from('x'); }\n`);
writeFileSync(path.join(folder, 'odd.json'), JSON.stringify({ parameters: [{ name: 'p', value_type: 'STRING', value: 'v' }] }));
writeFileSync(path.join(folder, 'notes.js'), `// not a driver: no entry point\nvar x = 1;\n`);

type Row = { driver: string; action: string; outcome: string; detail: string; modules: string[]; tableRows: number };
type Missing = { driver: string; kind: string; member: string; line: number };
/** What corpus-check --json-out wrote. */
const report = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as { runs: Row[]; missingMembers: Missing[] };

describe('compat-scan', () => {
  it('counts each member per driver and says where driverbox has it; names what is missing', async () => {
    const { stdout } = await run('compat-scan.mjs', [folder, '--json']);
    const report = JSON.parse(stdout) as { drivers: number; members: Array<{ member: string; drivers: number; module: string; docs: string }> };
    expect(report.drivers).toBe(3);
    const by = Object.fromEntries(report.members.map((m) => [m.member, m]));
    expect(by['D.device.sendSSHCommand']).toMatchObject({ drivers: 1, module: 'ssh (issue 18)', docs: 'docs/reference/driver-api/ssh.md' });
    expect(by['D.device.http.get']).toMatchObject({ drivers: 1, module: 'http' });
    expect(by['D.failure']).toMatchObject({ drivers: 2, module: 'core' });
    expect(by['D.errorType.GENERIC_ERROR']).toMatchObject({ drivers: 1 });
    expect(by.setTimeout).toMatchObject({ drivers: 1, module: 'timers (issue 18)', docs: 'docs/reference/driver-api/timers.md' });
    expect(by['console.error']).toMatchObject({ drivers: 1, module: 'console' });
    expect(by['D.device.sendSFTP']).toMatchObject({ drivers: 1, module: 'MISSING' });
    expect(by.Buffer).toMatchObject({ drivers: 1, module: 'MISSING (no such global)' });
  });

  it('on our example drivers nothing is missing', async () => {
    const { stdout } = await run('compat-scan.mjs', ['drivers-examples']);
    expect(stdout).toMatch(/^\d+ drivers in /);
    expect(stdout.trim().endsWith('nothing missing')).toBe(true);
  });
});

describe('corpus-check', () => {
  const host = useHost();

  it('without a device (--no-device): sorts gaps (a module answering NOT_SUPPORTED, a missing member or global) from network errors', async () => {
    const out = path.join(folder, 'out.json');
    const { stdout } = await run('corpus-check.mjs', [folder, '--timeout', '2000', '--no-device', '--json-out', out]);
    expect(stdout).toMatch(/^3 drivers, 6 runs: /);
    const rows = report(out).runs;
    const outcome = (driver: string, action: string) => rows.find((r) => r.driver === driver && r.action === action);
    // The SSH driver swallows the error: the run's recording shows the module's answer. While the SSH
    // module answers NOT_SUPPORTED that is a gap; once it is built, a refused connection (no sshd on 127.0.0.1).
    const record = path.join(folder, 'ssh-direct.json');
    await runSource(host, readFileSync(path.join(folder, 'ssh', 'uptime.js'), 'utf8'), { action: 'validate', device: { ip: '127.0.0.1' }, record });
    const answered = (JSON.parse(readFileSync(record, 'utf8')) as { exchanges: Array<{ answer?: { error?: { code: string } } }> }).exchanges[0]!.answer?.error?.code;
    expect(outcome('ssh/uptime.js', 'validate')).toMatchObject(
      answered === 'NOT_SUPPORTED' ? { outcome: 'gap', detail: 'D.device.sendSSHCommand is not supported by this driverbox yet', modules: ['ssh'] } : { outcome: 'network', modules: ['ssh'] },
    );
    expect(outcome('web.js', 'validate')).toMatchObject({ outcome: 'network' });
    expect(outcome('web.js', 'get_status')).toMatchObject({ outcome: 'network', modules: ['http', 'timers'] });
    expect(outcome('odd.js', 'validate')).toMatchObject({ outcome: 'gap', detail: 'TypeError: D.device.sendSFTP is not a function' });
    expect(outcome('odd.js', 'get_status')).toMatchObject({ outcome: 'gap', detail: 'ReferenceError: Buffer is not defined' });
    expect(stdout).toContain('| D.device.sendSFTP is not a function | 1 |');
  });
});

// Issue 36: the check sees what drivers call on D's objects, and runs them against a device that answers.
describe('corpus-check: members of what D returns, and a generic device', () => {
  const objects = mkdtempSync(path.join(tmpdir(), 'driverbox-corpus-objects-'));
  // Calls on a table, an HTTP response (a callback's parameter, also through a named callback), an
  // external device, an SNMP session, a timer and a variable: the missing ones are listed with their line.
  writeFileSync(
    path.join(objects, 'members.js'),
    [
      "var table = D.createTable('T', [{ label: 'c' }]);",
      'var api = D.createExternalDevice("api.example.com");',
      'function onAnswer(err, res, body) { res.getHeader("x"); if (err) err.toString(); }',
      'function validate() {',
      "  table.insertRecord('a', [1]);",
      "  table.addRows([['b', 2]]);",
      "  D.device.http.get({ url: '/' }, function (error, response, body) { response.pipe(); body.trim(); D.success(); });",
      "  D.device.http.get({ url: '/' }, onAnswer);",
      "  api.http.get({ url: '/' }, function () {}); api.http.patch({ url: '/' }, function () {});",
      "  var session = D.device.createSNMPSession(); session.walk('1.3.6.1.2.1.1', function (out, e) {}); session.getNext('1.3', function () {});",
      "  var t = setTimeout(function () {}, 1); t.unref();",
      "  var v = D.createVariable('u', 'L', 1); v.setValue(2);",
      '}',
      // Followed through an alias, an object's field, `this`, and a callback bound with .bind.
      "var alias = table; alias.removeRecord('a');",
      "var Kube = { rows: D.createTable('K', [{ label: 'c' }]) }; Kube.rows.clear();",
      "function Poller() { this.session = D.device.createSNMPSession(); this.session.bulkWalk('1.3'); }",
      "D.device.sendSSHCommand({ command: 'uptime' }, function (out, err) { out.lines(); }.bind(null));",
      "function shadow() { var table = { addRows: function () {} }; table.addRows(); }",
      'function get_status() { validate(); }',
      '',
    ].join('\n'),
  );
  // Rows only when the device answers a list: a run without a device never reaches insertRecord.
  writeFileSync(
    path.join(objects, 'rows.js'),
    [
      "function validate() { D.success(); }",
      'function get_status() {',
      "  D.device.http.get({ url: '/api/ports', port: 8443, protocol: 'https', rejectUnauthorized: false }, function (error, response, body) {",
      '    if (error || response.statusCode !== 200) return D.failure(D.errorType.RESOURCE_UNAVAILABLE);',
      '    var data = JSON.parse(body);',
      "    var table = D.createTable('Ports', [{ label: 'Name' }, { label: 'Speed', valueType: D.valueType.NUMBER }]);",
      '    data.ports.forEach(function (port) { table.addMetrics(port.portName, [{ value: port.portName }, { value: port.speed, metadata: { url: "https://x/" + port.portName } }]); });',
      '    D.success([], table);',
      '  });',
      '}',
      '',
    ].join('\n'),
  );

  it('lists every member called on D\'s objects that the runtime lacks, by kind and line, from a probe of the real runtime', async () => {
    const out = path.join(objects, 'out.json');
    const { stdout } = await run('corpus-check.mjs', [objects, '--timeout', '3000', '--json-out', out]);
    const missing = report(out).missingMembers.filter((m) => m.driver === 'members.js').map((m) => `${m.kind}.${m.member}:${m.line}`);
    expect(missing.sort()).toEqual(
      [
        'table.addRows:6', 'httpResponse.pipe:7', 'httpResponse.getHeader:3', 'externalDevice.http.patch:9', 'snmpSession.getNext:10', 'timer.unref:11', 'variable.setValue:12',
        'table.removeRecord:14', 'table.clear:15', 'snmpSession.bulkWalk:16', 'sshOutput.lines:17',
      ].sort(),
    );
    expect(stdout).toContain('| table.addRows | 1 | members.js:6 |');
  });

  it('runs a driver against a generic device that answers with its own words: the row-making path runs, on the port it names, over TLS', async () => {
    const out = path.join(objects, 'out-rows.json');
    await run('corpus-check.mjs', [objects, '--timeout', '3000', '--json-out', out]);
    const rows = report(out).runs.filter((r) => r.driver === 'rows.js');
    expect(rows.find((r) => r.action === 'get_status')).toMatchObject({ outcome: 'success', tableRows: 2 });
    // Without the device the same driver never reaches a row.
    const bare = path.join(objects, 'out-bare.json');
    await run('corpus-check.mjs', [objects, '--timeout', '3000', '--no-device', '--json-out', bare]);
    expect(report(bare).runs.find((r) => r.driver === 'rows.js' && r.action === 'get_status')).toMatchObject({ outcome: 'network', tableRows: 0 });
  });

  it('a call the static check found missing that a run reaches is a gap, not the driver\'s bug', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-corpus-gap-'));
    writeFileSync(path.join(dir, 'gap.js'), "function validate() { var t = D.createTable('T', [{ label: 'c' }]); t.addRows([]); D.success(); }\nfunction get_status() { validate(); }\n");
    const out = path.join(dir, 'out.json');
    await run('corpus-check.mjs', [dir, '--timeout', '3000', '--json-out', out]);
    expect(report(out).runs.find((r) => r.action === 'validate')).toMatchObject({ outcome: 'gap', detail: expect.stringContaining('t.addRows is not a function') });
  });
});
