import { describe, expect, it } from 'vitest';
import { assertSuccess, assertVariables, runDriver } from 'driverbox/testing';

const driver = new URL('./driver.js', import.meta.url).pathname;
const simulate = new URL('./device.json', import.meta.url).pathname;

describe('ups-snmp', () => {
  it('reads UPS-MIB: scalars with get, the input table with a walk', async () => {
    const result = await runDriver({ path: driver, simulate });
    assertSuccess(result);
    assertVariables(result, {
      model: 'PC-3000 RT',
      'battery-status': 'normal',
      charge: { value: '98', unit: '%', valueType: 'NUMBER' },
      runtime: 47,
      'on-battery-for': 0,
      'battery-temperature': 27,
      'output-source': 'normal',
      load: 41,
    }, { only: true });
    expect(result.tables[0]!.rows).toEqual([
      ['line-1', '231', '50', '4.2'],
      ['line-2', '229', '49.9', '3.8'],
    ]);
    expect(result.logs).toEqual([{ level: 'info', message: 'UPS PowerCell PC-3000 RT' }]);
    expect(result.http.map((e) => e.method)).toEqual(['SNMP', 'SNMP', 'SNMP']);
  });

  it('works over SNMP v3 (authPriv) too', async () => {
    const v3 = { version: 'v3' as const, user: { name: 'upsops', level: 'authPriv' as const, authProtocol: 'sha' as const, authKey: 'ups-auth-pass', privProtocol: 'aes' as const, privKey: 'ups-priv-pass' } };
    assertSuccess(await runDriver({ path: driver, simulate, device: { snmp: v3 } }));
  });

  it('custom_1 sets sysContact with the write community', async () => {
    const result = await runDriver({ path: driver, simulate, action: 'custom_1' });
    assertSuccess(result);
    // The contact is the "contact" parameter's value: parameter values are masked in logs (docs/architecture/security.md).
    expect(result.logs).toEqual([{ level: 'info', message: 'sysContact is now ***' }]);
  });

  it('validate: a wrong community is never answered: RESOURCE_UNAVAILABLE after the timeout', async () => {
    assertSuccess(await runDriver({ path: driver, simulate, action: 'validate' }));
    const wrong = await runDriver({ path: driver, simulate, action: 'validate', device: { snmp: { version: 'v2c', community: 'public' } } });
    expect(wrong).toMatchObject({ status: 'failure', errorType: 'RESOURCE_UNAVAILABLE' });
    expect(wrong.logs).toEqual([{ level: 'error', message: 'SNMP RequestTimedOutError: Request timed out' }]);
  });
});
