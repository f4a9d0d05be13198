import { describe, expect, it } from 'vitest';
import { assertSuccess, assertVariables, runDriver } from 'driverbox/testing';

const driver = new URL('./driver.js', import.meta.url).pathname;
const simulate = new URL('./device.json', import.meta.url).pathname;

describe('av-receiver', () => {
  it('posts the XML status request and reads the XML answer', async () => {
    const result = await runDriver({ path: driver, simulate, transcript: 'full' });
    assertSuccess(result);
    assertVariables(result, { power: 'On', input: 'HDMI2', volume: { value: '-34.5', unit: 'dB' }, mute: false }, { only: true });
    expect(result.http[0]?.request?.body).toContain('<Basic_Status>GetParam</Basic_Status>');
    expect(result.http[0]?.request?.headers['content-type']).toBe('text/xml; charset=utf-8');
  });

  it('an answer that is not the expected XML is a PARSING_ERROR', async () => {
    const result = await runDriver({
      path: driver,
      simulate: { fixture: 1, routes: [{ method: 'POST', path: '/control/xml', body: '<Response rsp="GET" RC="4"/>' }] },
    });
    expect(result).toMatchObject({ status: 'failure', errorType: 'PARSING_ERROR' });
  });
});
