// Tests of the {{name}} driver against its simulated device (device.json): `npx vitest run {{name}}`.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { assertSuccess, assertTableRows, assertVariables, runDriver } from 'driverbox/testing';

const driver = fileURLToPath(new URL('./driver.js', import.meta.url));
const simulate = fileURLToPath(new URL('./device.json', import.meta.url));

describe('{{name}}', () => {
  it('get_status reports the device and its interfaces', async () => {
    const result = await runDriver({ path: driver, simulate });
    assertSuccess(result);
    assertVariables(result, { model: 'Example-100', firmware: '1.4.2', uptime: 76, temperature: { value: '43.5', unit: 'C' } });
    assertTableRows(result, 'Interfaces', [
      { id: 'eth0', Status: 'up', Speed: 1000, Received: 73400 },
      { id: 'eth1', Status: 'down' },
    ]);
  });

  it('validate fails with AUTHENTICATION_ERROR on wrong credentials', async () => {
    assertSuccess(await runDriver({ path: driver, simulate, action: 'validate' }));
    const wrong = await runDriver({ path: driver, simulate, action: 'validate', device: { password: 'wrong' } });
    expect(wrong.errorType).toBe('AUTHENTICATION_ERROR');
  });

  it('custom_1 asks the device to reboot', async () => {
    const result = await runDriver({ path: driver, simulate, action: 'custom_1' });
    assertSuccess(result);
    expect(result.logs).toEqual([{ level: 'info', message: 'reboot requested' }]);
  });
});
