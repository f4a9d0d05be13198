import { describe, expect, it } from 'vitest';
import { assertSuccess, assertVariables, runDriver } from 'driverbox/testing';

const driver = new URL('./driver.js', import.meta.url).pathname;
const simulate = new URL('./device.json', import.meta.url).pathname;

describe('ups-status', () => {
  it('reads the HTML status page', async () => {
    const result = await runDriver({ path: driver, simulate });
    assertSuccess(result);
    assertVariables(result, {
      model: 'SmartCell 1500',
      battery: { value: '97.5', unit: '%', valueType: 'NUMBER' },
      runtime: 42,
      load: 31.2,
      'input-voltage': 229.8,
      'on-battery': false,
    }, { only: true });
    expect(result.logs).toEqual([{ level: 'info', message: 'UPS model SmartCell 1500' }]);
  });

  it('validate: wrong credentials are an AUTHENTICATION_ERROR', async () => {
    assertSuccess(await runDriver({ path: driver, simulate, action: 'validate' }));
    const wrong = await runDriver({ path: driver, simulate, action: 'validate', device: { username: 'guest' } });
    expect(wrong).toMatchObject({ status: 'failure', errorType: 'AUTHENTICATION_ERROR' });
  });
});
