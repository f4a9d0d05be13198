import { describe, expect, it } from 'vitest';
import { assertSuccess, assertTableRows, assertVariables, runDriver } from 'driverbox/testing';

const driver = new URL('./driver.js', import.meta.url).pathname;
const simulate = new URL('./device.json', import.meta.url).pathname;

describe('switch-ssh-shell', () => {
  it('reads show version and show interfaces status through one shell sequence', async () => {
    const result = await runDriver({ path: driver, simulate });
    assertSuccess(result);
    assertVariables(result, {
      model: 'WS-C2960X-48FPD-L',
      software: '15.2(7)E4',
      serial: 'FOC1234X0AB',
      uptime: '12 weeks, 3 days, 4 hours, 5 minutes',
      'ports-connected': 2,
      'ports-errdisabled': 1,
    }, { only: true });
    assertTableRows(result, 'Ports', [
      { id: 'Gi1/0/1', Name: 'uplink to core', Status: 'connected', VLAN: 'trunk', Duplex: 'a-full', Speed: 'a-1000' },
      { id: 'Gi1/0/2', Name: '', Status: 'notconnect', VLAN: '10', Duplex: 'auto', Speed: 'auto' },
      { id: 'Gi1/0/3', Name: 'printer-2f', Status: 'connected', VLAN: '20', Duplex: 'a-full', Speed: 'a-100' },
      { id: 'Gi1/0/4', Name: 'ap-lobby', Status: 'err-disabled', VLAN: '30', Duplex: 'auto', Speed: 'auto' },
    ], { only: true });
    // One exchange per command of the sequence.
    expect(result.http.map((h) => h.method)).toEqual(['SSH-SHELL', 'SSH-SHELL', 'SSH-SHELL']);
  });

  it('validate: a wrong password is an AUTHENTICATION_ERROR', async () => {
    assertSuccess(await runDriver({ path: driver, simulate, action: 'validate' }));
    const wrong = await runDriver({ path: driver, simulate, action: 'validate', device: { password: 'guess' } });
    expect(wrong).toMatchObject({ status: 'failure', errorType: 'AUTHENTICATION_ERROR' });
  });
});
