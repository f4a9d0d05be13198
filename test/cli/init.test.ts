// driverbox init: the scaffold, through the real CLI; its driver type-checks with the jsconfig
// it writes, and its own test passes under a plain vitest (no flags) in a project that
// depends on driverbox, as a user would run it.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { driverJsconfigText } from '../../host/driver/jsconfig.js';
import { createDriverProject, typecheck } from '../helpers/typecheck.js';

const run = promisify(execFile);
const repo = path.resolve(import.meta.dirname, '../..');
const bin = path.join(repo, 'bin', 'driverbox.js');
const work = mkdtempSync(path.join(tmpdir(), 'driverbox-init-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function cli(args: string[], cwd = work) {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], { cwd });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('driverbox init', () => {
  it('creates the driver, its simulated device, its test and the jsconfig', async () => {
    const { code, stdout } = await cli(['init', 'my-ups']);
    expect(code).toBe(0);
    expect(stdout).toContain('Created my-ups/ with driver.js, device.json, driver.test.mjs, vitest.config.mjs and jsconfig.json.');
    expect(stdout).toContain('npx driverbox simulate my-ups/device.json');
    const dir = path.join(work, 'my-ups');
    expect(readdirSync(dir).sort()).toEqual(['device.json', 'driver.js', 'driver.test.mjs', 'jsconfig.json', 'vitest.config.mjs']);
    expect(readFileSync(path.join(dir, 'jsconfig.json'), 'utf8')).toBe(driverJsconfigText());
    expect(readFileSync(path.join(dir, 'driver.js'), 'utf8')).toMatch(/^ \* my-ups: a driver/m);
    expect(readFileSync(path.join(dir, 'driver.test.mjs'), 'utf8')).toContain("describe('my-ups'");
    // Its entry points, as the actions command lists them.
    const actions = await cli(['actions', 'my-ups/driver.js']);
    expect(actions.stdout).toMatch(/validate[\s\S]*get_status[\s\S]*custom_1\s+Reboot/);
  });

  it('refuses a bad name or a folder that is not empty, writing nothing', async () => {
    const bad = await cli(['init', '../escape']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"../escape" is not a usable name');
    mkdirSync(path.join(work, 'taken'));
    writeFileSync(path.join(work, 'taken', 'notes.txt'), 'mine');
    const taken = await cli(['init', 'taken']);
    expect(taken.code).toBe(2);
    expect(taken.stderr).toMatch(/taken already exists and is not empty: nothing was written/);
    expect(readdirSync(path.join(work, 'taken'))).toEqual(['notes.txt']);
    expect((await cli(['init'])).stderr).toContain('init needs one name');
  });

  it('its driver type-checks clean with the jsconfig it wrote', async () => {
    const project = createDriverProject({}, null);
    expect((await cli(['init', 'cam', '--dir', project.dir])).code).toBe(0);
    expect(typecheck(project, 'cam/jsconfig.json')).toEqual([]);
    // and the check is live: a mistake in it is reported
    const driver = path.join(project.dir, 'cam', 'driver.js');
    writeFileSync(driver, readFileSync(driver, 'utf8').replace("D.errorType.PARSING_ERROR", "D.errorType.PARSE_ERROR"));
    expect(typecheck(project, 'cam/jsconfig.json').map((p) => p.code)).toEqual([2551]);
  });

  it("its own test passes under a plain vitest, in a project that depends on driverbox", async () => {
    const project = mkdtempSync(path.join(tmpdir(), 'driverbox-init-project-'));
    try {
      writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'my-drivers', private: true, devDependencies: { driverbox: '*', vitest: '*' } }));
      mkdirSync(path.join(project, 'node_modules'));
      symlinkSync(repo, path.join(project, 'node_modules', 'driverbox'), 'dir');
      symlinkSync(path.join(repo, 'node_modules', 'vitest'), path.join(project, 'node_modules', 'vitest'), 'dir');
      expect((await cli(['init', 'nas', '--dir', project])).code).toBe(0);
      const vitest = path.join(repo, 'node_modules', 'vitest', 'vitest.mjs');
      const { stdout } = await run(process.execPath, [vitest, 'run', '--root', project, '--reporter', 'verbose'], {
        cwd: project,
        env: { PATH: process.env.PATH, NO_COLOR: '1' },
      });
      expect(stdout).toMatch(/✓ nas\/driver\.test\.mjs > nas > get_status reports the device and its interfaces/);
      expect(stdout).toMatch(/Tests\s+3 passed \(3\)/);
      expect(existsSync(path.join(project, 'nas', 'driver.js'))).toBe(true);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  }, 120_000);
});
