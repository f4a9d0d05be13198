import { describe, expect, it } from 'vitest';
import { assertSuccess, assertTableRows, assertVariables, runDriver } from 'driverbox/testing';

const driver = new URL('./driver.js', import.meta.url).pathname;
const simulate = new URL('./device.json', import.meta.url).pathname;

describe('router-dhcp', () => {
  it('logs in for a token and reports the leases as a table', async () => {
    const result = await runDriver({ path: driver, simulate });
    assertSuccess(result);
    assertVariables(result, { 'lease-count': 3 }, { only: true });
    assertTableRows(result, 'DHCP leases', [
      { id: '3c:22:fb:10:aa:01', 'IP address': '192.168.1.20', 'Host name': 'laptop-anna', 'Expires in': 1420, Static: 'no' },
      { id: 'b8:27:eb:4d:02:9c', 'IP address': '192.168.1.30', 'Host name': 'printer', 'Expires in': 0, Static: 'yes' },
      { id: 'f0:18:98:7e:51:c3', 'IP address': '192.168.1.41', 'Host name': '', 'Expires in': 59, Static: 'no' },
    ], { only: true });
  });

  it('a refused login is an AUTHENTICATION_ERROR, and no lease request is made', async () => {
    const result = await runDriver({ path: driver, simulate, device: { password: 'wrong' } });
    expect(result).toMatchObject({ status: 'failure', errorType: 'AUTHENTICATION_ERROR' });
    expect(result.http.map((h) => h.status)).toEqual([403]);
  });
});
