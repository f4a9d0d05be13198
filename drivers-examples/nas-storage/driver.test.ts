import { describe, expect, it } from 'vitest';
import { assertSuccess, assertTableRows, assertVariables, runDriver } from 'driverbox/testing';

const driver = new URL('./driver.js', import.meta.url).pathname;
const simulate = new URL('./device.json', import.meta.url).pathname;

describe('nas-storage', () => {
  it('logs in with a session cookie and reports the system and its volumes', async () => {
    const result = await runDriver({ path: driver, simulate });
    assertSuccess(result);
    assertVariables(result, { hostname: 'nas-01', firmware: '7.2.1', uptime: 240, 'cpu-temp': { value: '48', unit: 'C' } }, { only: true });
    assertTableRows(result, 'Volumes', [
      { id: 'vol1', Name: 'Volume 1', Used: 67, Free: 1188, Status: 'healthy' },
      { id: 'vol2', Name: 'Volume 2', Used: 15, Free: 6120, Status: 'degraded' },
    ], { only: true });
    expect(result.http.map((h) => `${h.method} ${new URL(h.url).pathname} ${h.status}`)).toEqual(['POST /api/auth/login 200', 'GET /api/system 200', 'GET /api/volumes 200']);
  });

  it('validate fails with AUTHENTICATION_ERROR when the password is wrong', async () => {
    const result = await runDriver({ path: driver, simulate, action: 'validate', device: { password: 'guess' } });
    expect(result).toMatchObject({ status: 'failure', errorType: 'AUTHENTICATION_ERROR' });
  });

  it('custom_1 starts a scrub', async () => {
    assertSuccess(await runDriver({ path: driver, simulate, action: 'custom_1' }));
  });
});
