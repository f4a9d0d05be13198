// `npm start` for a new user: the demo, then (in a terminal, or with --serve) the web console
// served over the demo's store at a printed address with the data folder's API key, the
// examples' simulated devices kept up and their drivers in the library, until Ctrl-C. Checked
// through the real bin and in a real browser (chromium): the demo's devices, and a driver run
// from the editor against its simulated device. Without a terminal (CI, a pipe) the demo ends.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { demoServes } from '../../host/cli/commands/demo.js';
import type { CliIo } from '../../host/cli/io.js';
import { chromiumInstalled, openBrowser, type BrowserSession } from '../helpers/browser.js';

const BIN = path.resolve('bin/driverbox.js');

const io = (env: NodeJS.ProcessEnv, tty: boolean): CliIo => ({ stdout: () => {}, stderr: () => {}, cwd: tmpdir(), env, stdoutStream: { isTTY: tty } });

describe('demo: serving the console after the examples', () => {
  it('serves by default only for a person at a terminal, not in CI or a pipe; the flags decide otherwise', () => {
    expect(demoServes({}, io({}, true), true)).toBe(true);
    expect(demoServes({}, io({}, false), true)).toBe(false);
    expect(demoServes({}, io({}, true), false)).toBe(false);
    expect(demoServes({}, io({ CI: 'true' }, true), true)).toBe(false);
    expect(demoServes({}, io({ CI: 'false' }, true), true)).toBe(true);
    expect(demoServes({ serve: true }, io({ CI: 'true' }, false), false)).toBe(true);
    expect(demoServes({ 'no-serve': true }, io({}, true), true)).toBe(false);
    expect(() => demoServes({ serve: true, 'no-serve': true }, io({}, true), true)).toThrow(/cannot be used together/);
  });

  const dataDir = mkdtempSync(path.join(tmpdir(), 'driverbox-demo-serve-'));
  let browser: BrowserSession | undefined;
  afterAll(async () => {
    await browser?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints the console address and key; the console shows the demo devices and runs a driver from the editor; Ctrl-C stops it', async () => {
    const proc = spawn(process.execPath, [BIN, 'demo', '--serve', '--port', '0'], { env: { PATH: process.env.PATH, NO_COLOR: '1', DRIVERBOX_DATA_DIR: dataDir } });
    let stdout = '';
    let stderr = '';
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        proc.stdout.on('data', (d: Buffer) => {
          stdout += d.toString();
          const m = /^Console: (http:\/\/127\.0\.0\.1:\d+)\/$/m.exec(stdout);
          if (m && stdout.includes('Ctrl-C to stop.')) resolve(m[1]!);
        });
        void exited.then((code) => reject(new Error(`demo exited ${code}: ${stderr}`)));
      });
      const examples = Number(/(\d+) of \1 example drivers succeeded/.exec(stdout)?.[1]);
      const key = readFileSync(path.join(dataDir, 'api-key'), 'utf8').trim();
      expect(stdout).toContain(`sign in with the API key ${key} (from ${path.join(dataDir, 'api-key')}`);
      const agentId = Number(/agent "driverbox demo" \(id (\d+)\)/.exec(stdout)?.[1]);

      // The library holds every example, applied to its device.
      const drivers = (await (await fetch(`${url}/public-api/v1/custom-driver`, { headers: { 'X-Api-Key': key } })).json()) as Array<{ id: number; name: string; device_ids: number[] }>;
      expect(drivers).toHaveLength(examples);
      expect(drivers.every((d) => d.device_ids.length === 1)).toBe(true);

      if (!chromiumInstalled()) throw new Error('chromium is missing: scripts/install-test-peers.sh installs it');
      browser = await openBrowser({ width: 1280, height: 860 });
      const { page } = browser;
      await page.goto(`${url}/`);
      await page.getByLabel('API key').fill(key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('link', { name: 'driverbox demo' }).click();
      await expect.poll(() => page.locator('table.list tbody tr').count(), { timeout: 10_000 }).toBe(examples);
      expect(await page.locator('table.list').textContent()).toContain('example ups-status');

      // The ups-status example from the editor, against its simulated device (the association's).
      const ups = drivers.find((d) => d.name === 'ups-status')!;
      await page.goto(`${url}/#/driver/${ups.id}`);
      await page.getByRole('link', { name: 'Edit and run on example ups-status' }).click();
      await page.locator('.code-host[data-ready="true"]').waitFor();
      await page.getByRole('button', { name: 'Run' }).click();
      const result = page.locator('.trial-result[data-outcome="success"]');
      await result.waitFor({ timeout: 20_000 });
      expect(await result.locator('table.trial-variables').textContent()).toMatch(/Battery charge.*97\.5/);
      expect(browser.errors).toEqual([]);
      expect(agentId).toBeGreaterThan(0);
    } finally {
      proc.kill('SIGINT');
    }
    expect(await exited).toBe(0);
    expect(stdout).toContain('Stopped (SIGINT).');
  }, 180_000);
});
