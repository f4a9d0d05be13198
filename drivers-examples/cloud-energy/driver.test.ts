import { describe, expect, it } from 'vitest';
import { assertSuccess, assertVariables, runDriver } from 'driverbox/testing';

const driver = new URL('./driver.js', import.meta.url).pathname;
const simulate = new URL('./device.json', import.meta.url).pathname;
const cloud = new URL('./hosts/api.solar-cloud.example.json', import.meta.url).pathname;

describe('cloud-energy', () => {
  it('reaches the vendor cloud over verified HTTPS with D.createExternalDevice and the driver parameters', async () => {
    const result = await runDriver({ path: driver, simulate, simulateHosts: { 'api.solar-cloud.example': cloud } });
    assertSuccess(result);
    assertVariables(result, { power: { value: '3650', unit: 'W' }, 'energy-today': 18.42, 'energy-lifetime': 48213, 'last-update': '2026-11-21 11:45:00' }, { only: true });
    expect(result.http[0]?.url).toMatch(/^https:\/\/api\.solar-cloud\.example:\d+\/v1\/sites\/4711\/overview\?api_key=\*\*\*$/);
  });

  it('a wrong API key is an AUTHENTICATION_ERROR; missing parameters fail before any request', async () => {
    const wrongKey = await runDriver({ path: driver, simulate, simulateHosts: { 'api.solar-cloud.example': cloud }, parameters: { apiKey: 'nope' } });
    expect(wrongKey).toMatchObject({ status: 'failure', errorType: 'AUTHENTICATION_ERROR' });
    const missing = await runDriver({ path: driver, simulate, parameters: { siteId: '' } });
    expect(missing).toMatchObject({ status: 'failure', errorType: 'MISSING_DEVICE_ERROR' });
    expect(missing.http).toEqual([]);
  });

  it('the host application can refuse the cloud host', async () => {
    const { createHost } = await import('driverbox');
    const host = createHost({ externalHosts: ['other.example'] });
    try {
      const result = await host.run({ path: driver, parameters: { siteId: '4711', apiKey: 'k' } });
      expect(result.status).toBe('failure');
      expect(result.message).toMatch(/the host application does not allow "api\.solar-cloud\.example"/);
    } finally {
      await host.close();
    }
  });
});
