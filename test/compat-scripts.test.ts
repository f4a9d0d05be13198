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

describe('compat-scan', () => {
  it('counts each member per driver and says where driverbox has it; names what is missing', async () => {
    const { stdout } = await run('compat-scan.mjs', [folder, '--json']);
    const report = JSON.parse(stdout) as { drivers: number; members: Array<{ member: string; drivers: number; module: string; docs: string }> };
    expect(report.drivers).toBe(3);
    const by = Object.fromEntries(report.members.map((m) => [m.member, m]));
    expect(by['D.device.sendSSHCommand']).toMatchObject({ drivers: 1, module: 'ssh (issue 18)', docs: 'docs/driver-api/ssh.md' });
    expect(by['D.device.http.get']).toMatchObject({ drivers: 1, module: 'http' });
    expect(by['D.failure']).toMatchObject({ drivers: 2, module: 'core' });
    expect(by['D.errorType.GENERIC_ERROR']).toMatchObject({ drivers: 1 });
    expect(by.setTimeout).toMatchObject({ drivers: 1, module: 'timers (issue 18)', docs: 'docs/driver-api/timers.md' });
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
  it('sorts gaps (a module answering NOT_SUPPORTED, a missing member or global) from network errors', async () => {
    const out = path.join(folder, 'out.json');
    const { stdout } = await run('corpus-check.mjs', [folder, '--timeout', '2000', '--json-out', out]);
    expect(stdout).toMatch(/^3 drivers, 6 runs: /);
    const rows = JSON.parse(readFileSync(out, 'utf8')) as Array<{ driver: string; action: string; outcome: string; detail: string; modules: string[] }>;
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
