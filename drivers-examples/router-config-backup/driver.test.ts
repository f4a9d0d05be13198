import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { assertSuccess, assertVariables, runDriver } from 'driverbox/testing';

const driver = new URL('./driver.js', import.meta.url).pathname;
const simulate = new URL('./device.json', import.meta.url).pathname;
const file = (name: string) => readFileSync(new URL(`./${name}`, import.meta.url), 'utf8');

describe('router-config-backup', () => {
  it('backup: stores the running and startup configurations', async () => {
    const result = await runDriver({ path: driver, simulate, action: 'backup' });
    assertSuccess(result);
    expect(result.backup).toEqual({
      label: 'edge-r1 configuration',
      running: file('running-config.txt'),
      startup: file('startup-config.txt'),
      runningBytes: Buffer.byteLength(file('running-config.txt')),
      startupBytes: Buffer.byteLength(file('startup-config.txt')),
    });
    expect(result.warnings).toEqual([]);
  });

  it('get_status: model, firmware and uptime', async () => {
    const result = await runDriver({ path: driver, simulate });
    assertSuccess(result);
    assertVariables(result, { model: 'ER-4', firmware: '2.0.9-hotfix.7', uptime: { value: '240', unit: 'h', valueType: 'NUMBER' } }, { only: true });
    expect(result.backup).toBeUndefined();
  });

  it('backup with wrong credentials is an AUTHENTICATION_ERROR and carries no backup', async () => {
    const wrong = await runDriver({ path: driver, simulate, action: 'backup', device: { password: 'nope' } });
    expect(wrong).toMatchObject({ status: 'failure', errorType: 'AUTHENTICATION_ERROR' });
    expect(wrong.backup).toBeUndefined();
  });
});
