import { describe, expect, it } from 'vitest';
import { assertSuccess, assertTableRows, assertVariables, runDriver } from 'driverbox/testing';

const driver = new URL('./driver.js', import.meta.url).pathname;
const simulate = new URL('./device.json', import.meta.url).pathname;

describe('linux-ssh', () => {
  it('reads uptime, load, memory and the file systems over SSH', async () => {
    const result = await runDriver({ path: driver, simulate });
    assertSuccess(result);
    assertVariables(result, {
      hostname: 'web-01',
      uptime: { value: '10', unit: 'days' },
      'load-1': 0.42,
      'load-5': 0.35,
      'load-15': 0.3,
      'memory-total': 8,
      'memory-used': { value: '37.5', unit: '%' },
    }, { only: true });
    assertTableRows(result, 'File systems', [
      { id: '/', 'File system': '/dev/sda1', Size: 49.1, Used: 19.6, Use: 43, 'Mounted on': '/' },
      { id: '/srv/data', 'File system': '/dev/sdb1', Size: 492, Used: 393.6, Use: 80, 'Mounted on': '/srv/data' },
      { id: '/boot/efi', 'File system': '/dev/sda15', Size: 0.1, Used: 0, Use: 5, 'Mounted on': '/boot/efi' },
    ], { only: true });
    // One SSH exchange per command, each a connection of its own.
    expect(result.http.map((h) => h.method)).toEqual(['SSH', 'SSH', 'SSH', 'SSH', 'SSH']);
  });

  it('validate: wrong credentials are an AUTHENTICATION_ERROR (SSH code 5)', async () => {
    assertSuccess(await runDriver({ path: driver, simulate, action: 'validate' }));
    const wrong = await runDriver({ path: driver, simulate, action: 'validate', device: { password: 'guess' } });
    expect(wrong).toMatchObject({ status: 'failure', errorType: 'AUTHENTICATION_ERROR' });
    expect(wrong.logs).toEqual([{ level: 'error', message: 'SSH command failed: Permission denied' }]);
  });
});
