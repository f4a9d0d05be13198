import { describe, expect, it } from 'vitest';
import { assertSuccess, assertVariables, runDriver } from 'driverbox/testing';

const driver = new URL('./driver.js', import.meta.url).pathname;
const simulate = new URL('./device.json', import.meta.url).pathname;

describe('ip-camera', () => {
  it('parses the key=value parameter list', async () => {
    const result = await runDriver({ path: driver, simulate });
    assertSuccess(result);
    assertVariables(result, {
      model: 'LensView P3245',
      firmware: '10.12.182',
      resolution: '1920x1080',
      fps: { value: '25', unit: 'fps' },
      motion: true,
      'motion-events': 17,
    }, { only: true });
  });

  it('sends basic auth from the device credentials; without them the camera refuses', async () => {
    assertSuccess(await runDriver({ path: driver, simulate, action: 'validate' }));
    const anonymous = await runDriver({ path: driver, simulate, device: { username: undefined, password: undefined } });
    expect(anonymous).toMatchObject({ status: 'failure', errorType: 'AUTHENTICATION_ERROR' });
  });
});
