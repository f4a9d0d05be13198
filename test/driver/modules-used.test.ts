// Which modules a driver uses (issue 18 item 9): the static scan behind `driverbox drivers add`
// and `driverbox actions`, and what they print; a driver is never called valid without saying
// what it needs, and one that uses what driverbox lacks gets a warning.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { modulesUsed } from '../../host/driver/modules-used.js';
import { inspectDriver } from '../../host/store/drivers/driver-inspection.js';
import { runCli } from '../helpers/cli.js';

const names = (source: string) => modulesUsed(source).modules.map((m) => m.name);

describe('the scan', () => {
  it('finds each module by what the driver calls', () => {
    expect(names(`function get_status() { D.device.http.get({ url: '/' }, cb); }`)).toEqual(['http']);
    expect(names(`var dev = D.createExternalDevice('api.example.com'); dev.http.post({}, cb); dev.http.getTLSCertificate({}, cb);`)).toEqual(['http', 'tls', 'external devices']);
    expect(names(`D.device.sendSSHCommand({ command: 'uptime' }, cb); D.device.sendSSHCommands({ commands: [] }, cb);`)).toEqual(['ssh', 'sshShell']);
    expect(names(`D.device.sendSSHCommands({ commands: [] }, cb);`)).toEqual(['sshShell']);
    expect(names(`D.device.sendTelnetCommand({}, cb); D.device.createSNMPSession().walk('1.3', cb); D.device.sendWinRMCommand({}, cb);`)).toEqual(['telnet', 'snmp', 'winrm']);
    expect(names(`function backup() { D.createBackup({ label: 'x', running: 'cfg' }); }`)).toEqual(['backup']);
    expect(names(`function backup() { D.tftpServer.accept({}, ready, done); }`)).toEqual(['backup', 'tftp']);
    expect(names(`setTimeout(go, 10); var t = setInterval(go, 10);`)).toEqual(['timers']);
    expect(names(`D.crypto.hash('x', 'sha256'); D.q.all([]); D._.map([], f); D.htmlParse('<a/>'); D._unsafe.buffer.from('x');`)).toEqual(['crypto', 'q', 'lodash', 'html', 'buffer']);
  });

  it('does not count what is in comments or strings, nor a method of the same name', () => {
    expect(names(`// D.device.sendSSHCommand(...)\nvar s = "D.device.createSNMPSession()"; /* setTimeout(f) */ obj.setTimeout(1); function get_status() { D.success(); }`)).toEqual([]);
  });

  it('names the D members driverbox lacks', () => {
    expect(modulesUsed(`D.device.sendSFTP({}, cb); D.device.http.patch({}, cb); D.ftp.get(); D.q.whatever(); D.errorType.ANY;`).missing).toEqual([
      'D.device.sendSFTP: driverbox does not have it (docs/reference/compatibility.md lists what D offers)',
      'D.device.http.patch: driverbox does not have it (docs/reference/compatibility.md lists what D offers)',
      'D.ftp: driverbox does not have it (docs/reference/compatibility.md lists what D offers)',
    ]);
  });

  it('names the globals driverbox lacks, with what to use instead; typeof tests, members, keys and the driver\'s own names are fine', () => {
    expect(modulesUsed(`fetch('/x'); var b = Buffer.from('x'); if (process.env.X) {}`).missing).toEqual([
      'fetch: driverbox has no such global; use D.device.http.get / post / put / delete (D.createExternalDevice(host).http for another host)',
      'process: driverbox has no such global; a driver has no process: its parameters come from D.getParameter(name), the device from D.device.ip() / username() / password()',
      'Buffer: driverbox has no such global; use D._unsafe.buffer.from / alloc / concat',
    ]);
    expect(modulesUsed(`if (typeof setImmediate === 'undefined') {} var o = { fetch: 1, process: 2 }; o.fetch(); function process(data) { return data; } var self = this; function f(err, document) {}`).missing).toEqual([]);
    expect(modulesUsed(`var x = require('http');`).missing).toEqual(['require(): not allowed in a driver (the run fails with REQUIRE_NOT_ALLOWED); everything a driver may use is on D']);
  });

  it('the store\'s inspection keeps the modules and the warnings (the driver stays valid)', () => {
    const inspection = inspectDriver(`function validate() { D.success(); }\nfunction get_status() { D.device.sendSSHCommand({ command: 'df' }, function () { fetch('/'); }); }`);
    expect(inspection.errors).toEqual([]);
    expect(inspection.modules).toEqual(['ssh']);
    expect(inspection.missing).toEqual([expect.stringMatching(/^fetch: driverbox has no such global/)]);
  });
});

describe('the CLI', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'driverbox-modules-'));
  const driver = path.join(work, 'switch.js');
  writeFileSync(
    driver,
    `/**\n * @label Get config\n */\nfunction validate() { D.device.sendSSHCommand({ command: 'show version' }, function (out, err) { D.success(); }); }\nfunction get_status() { D.device.createSNMPSession().get(['1.3.6.1.2.1.1.3.0'], function (out, err) { setTimeout(function () { D.device.sendSFTP({}); }, 1); }); }\n`,
  );

  it('drivers add: "valid; uses …" and a warning line for what driverbox lacks', async () => {
    const out = await runCli(['drivers', 'add', driver, '--store', path.join(work, 'lib.db')], { env: { NO_COLOR: '1' } });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('added custom driver 1 "switch", version 1: valid; uses ssh, snmp, timers');
    expect(out.stdout).toContain('  ! uses D.device.sendSFTP: driverbox does not have it (docs/reference/compatibility.md lists what D offers)');
  });

  it('drivers add of an HTTP-only driver says so', async () => {
    const out = await runCli(['drivers', 'add', path.resolve('drivers-examples/pdu-outlets/driver.js'), '--store', path.join(work, 'lib.db')]);
    expect(out.stdout).toMatch(/version 1: valid; uses http/);
    expect(out.stdout).not.toContain('!');
  });

  it('actions lists the modules under the entry points; --json keeps the list of entry points', async () => {
    const text = await runCli(['actions', driver]);
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n').slice(-2)).toEqual(['Uses: ssh, snmp, timers', '! D.device.sendSFTP: driverbox does not have it (docs/reference/compatibility.md lists what D offers)']);
    const json = await runCli(['actions', driver, '--json']);
    expect(JSON.parse(json.stdout).map((e: { name: string }) => e.name)).toEqual(['validate', 'get_status']);
  });
});
