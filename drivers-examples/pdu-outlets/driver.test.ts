import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from 'driverbox';
import { assertSuccess, assertTableRows, assertVariables, runDriver } from 'driverbox/testing';

const driver = new URL('./driver.js', import.meta.url).pathname;
const fixture = new URL('./device.json', import.meta.url).pathname;

describe('pdu-outlets', () => {
  // One simulator for the whole file: switching outlet 2 off must show in the next get_status.
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator(fixture);
  });
  afterAll(() => sim.close());

  it('reports the outlets as a table with the total load', async () => {
    const result = await runDriver({ path: driver, simulate: sim });
    assertSuccess(result);
    assertVariables(result, { 'total-load': 1.9, 'outlets-on': 3 }, { only: true });
    assertTableRows(result, 'Outlets', [{ id: '2', Name: 'nas', State: 'on', Load: 1.37 }]);
  });

  it('custom actions act on the outlet of the "outlet" parameter, and the device remembers', async () => {
    assertSuccess(await runDriver({ path: driver, simulate: sim, action: 'custom_1' }));
    assertSuccess(await runDriver({ path: driver, simulate: sim, action: 'custom_2' }));
    expect(sim.state).toBe('outlet-2-off');
    const off = await runDriver({ path: driver, simulate: sim });
    assertVariables(off, { 'total-load': 0.53, 'outlets-on': 2 });
    assertTableRows(off, 'Outlets', [{ id: '2', State: 'off', Load: 0 }]);
    assertSuccess(await runDriver({ path: driver, simulate: sim, action: 'custom_3' }));
    expect(sim.state).toBe('start');
    expect(sim.requests.filter((r) => r.method === 'POST').map((r) => r.url)).toEqual(['/api/outlets/2/cycle', '/api/outlets/2/off', '/api/outlets/2/on']);
  });

  it('an outlet the PDU does not have fails the action', async () => {
    const result = await runDriver({ path: driver, simulate: sim, action: 'custom_1', parameters: { outlet: 9 } });
    expect(result).toMatchObject({ status: 'failure', errorType: 'GENERIC_ERROR' });
    expect(result.logs[0]?.message).toBe('POST /api/outlets/9/cycle answered 404');
  });
});
