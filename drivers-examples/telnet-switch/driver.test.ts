import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from 'driverbox';
import { assertSuccess, assertTableRows, assertVariables, runDriver } from 'driverbox/testing';

const driver = new URL('./driver.js', import.meta.url).pathname;
const fixture = new URL('./device.json', import.meta.url).pathname;

describe('telnet-switch', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator(fixture);
  });
  afterAll(() => sim.close());

  it('logs in, reads the ports table and the firmware', async () => {
    const result = await runDriver({ path: driver, simulate: sim });
    assertSuccess(result);
    assertVariables(result, { firmware: '4.2.7', uptime: 412 }, { only: true });
    assertTableRows(result, 'Ports', [
      { id: '1', Description: 'uplink-core', Status: 'up', Speed: 1000 },
      { id: '3', Description: 'spare', Status: 'down', Speed: 0 },
    ]);
    expect(sim.telnet!.events.filter((e) => e.kind === 'command').map((e) => e.detail)).toEqual(['show interfaces status', 'show version']);
  });

  it('a wrong password is an AUTHENTICATION_ERROR', async () => {
    const result = await runDriver({ path: driver, simulate: sim, device: { password: 'wrong' } });
    expect(result).toMatchObject({ status: 'failure', errorType: 'AUTHENTICATION_ERROR' });
  });
});
